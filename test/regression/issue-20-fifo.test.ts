import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import path from 'node:path';
import { test } from 'node:test';
import { runCliProcess } from '../helpers/run-cli.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';

/**
 * Issue 20 §7: `propose --content-file FIFO` waited forever when nothing wrote
 * into the FIFO (the file-argument reader reopened a pipe blocking "because the
 * person named it"). Every file-reading flag now reads a regular file only, and
 * stdin only through `-`: a FIFO, a device or a socket is refused unread with a
 * typed error naming `-`. Each command runs as a real child with a deadline; a
 * hang is a kill by signal, not a passing test.
 */
const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const NOTE = '# A\n\ntext\n';

test('issue 20.7: a FIFO named by any file flag of propose, tx, state and check is refused at once (exit 2), never waited on', { timeout: 300_000 }, async () => {
  const { root, home } = tempVault({ 'A.md': NOTE });
  const work = tempDir();
  const fifo = path.join(work, 'fifo');
  assert.equal(spawnSync('mkfifo', [fifo]).status, 0);
  const cases: string[][] = [
    ['propose', 'A.md', '--content-file', fifo, '--base', sha(NOTE)],
    ['propose', 'A.md', '--append-file', fifo, '--base', sha(NOTE)],
    ['propose', 'A.md', '--append-to-section', 'A', '--content-file', fifo, '--base', sha(NOTE)],
    ['propose', '--changes', fifo],
    ['tx', 'inspect', fifo],
    ['tx', 'apply', fifo, '--approval', 'ab'.repeat(32)],
    ['state', 'patch', 'k', '--revision', '0', '--patch-file', fifo],
    ['check', '--links-baseline', fifo],
  ];
  for (const args of cases) {
    const r = await runCliProcess(args, { vault: root, home, timeoutMs: 20_000 });
    assert.notEqual(r.exitCode, 128, `${args.join(' ')} hung on the FIFO (killed after 20 s)`);
    assert.equal(r.exitCode, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.json?.error?.message ?? '', /not a regular file/, `${args.join(' ')}: ${r.stdout}`);
    assert.match(r.json?.error?.hint ?? '', /`?-`?/, 'the hint names stdin (`-`)');
  }
  // stdin through `-` still works
  const viaStdin = await runCliProcess(['propose', 'A.md', '--content-file', '-', '--base', sha(NOTE)], { vault: root, home, input: '# A\n\nnew text\n', timeoutMs: 20_000 });
  assert.equal(viaStdin.exitCode, 0, viaStdin.stdout + viaStdin.stderr);
});
