/**
 * The README's five-minute tour is run, line by line, on a copy of the demo
 * vault: a tour command that fails, or a search that finds nothing, fails here
 * rather than in front of a new user. `bundle.json`, `<hash>` and
 * `<operation_id>` are filled in with a real bundle, its approval and its id.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, runCli } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-vault.js';

/** The `vaultgate …` lines of the tour's shell block, comments dropped, split as sh would split them. */
function tourCommands(): string[][] {
  const readme = fs.readFileSync(path.join(REPO_ROOT, 'README.md'), 'utf8');
  const tour = readme.slice(readme.indexOf('## Five-minute tour'));
  const block = /```sh\n([\s\S]*?)```/.exec(tour)?.[1] ?? '';
  return block
    .split('\n')
    .filter((line) => line.startsWith('vaultgate '))
    .map((line) => shellWords(line.replace(/\s+#.*$/, '')).slice(1));
}

/** Words of a command line with '…' quoting, the only quoting the tour uses. */
function shellWords(line: string): string[] {
  return [...line.matchAll(/'([^']*)'|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

test('README tour: every command runs on the demo vault, and the read commands find something', async () => {
  const commands = tourCommands();
  assert.ok(commands.length >= 8, `the tour lists ${commands.length} commands`);
  const base = tempDir();
  const vault = path.join(base, 'vault');
  fs.cpSync(path.join(REPO_ROOT, 'examples/demo-vault'), vault, { recursive: true });
  const home = path.join(base, 'home');
  const bundlePath = path.join(base, 'bundle.json');
  const operationId = 'readme-tour-1';
  const target = 'Wiki/Cooking/Sourdough.md';
  const old = fs.readFileSync(path.join(vault, target));
  fs.writeFileSync(
    bundlePath,
    JSON.stringify({
      schema: 'vaultgate.transaction.v1',
      operation_id: operationId,
      operation_type: 'note',
      writes: [{ path: target, mode: 'replace', content: `${old.toString('utf8')}\nA line added on the tour.\n` }],
      expected_hashes: { [target]: crypto.createHash('sha256').update(old).digest('hex') },
    }),
  );

  let approval = '';
  for (const args of commands) {
    const filled = args.map((a) => (a === 'bundle.json' ? bundlePath : a === '<hash>' ? approval : a === '<operation_id>' ? operationId : a));
    const r = await runCli(filled, { home, env: { VAULTGATE_VAULT: vault }, cwd: base });
    const shown = `vaultgate ${args.join(' ')}`;
    assert.equal(r.exitCode, 0, `${shown}: ${r.stdout}${r.stderr}`);
    if (args[0] === 'tx' && args[1] === 'inspect') approval = r.json.approval_sha256;
    if (args[0] === 'search') assert.ok(r.json.total > 0, `${shown} finds nothing`);
    if (args.includes('--format') && args.includes('markdown')) assert.match(r.stdout, /^# Context packet from vaultgate/, shown);
    else if (args[0] === 'context') assert.ok(r.json.total > 0, `${shown} finds nothing`);
  }
  assert.ok(approval !== '', 'the tour inspects a bundle');
  // The tour ends with undo: the vault holds the original bytes again.
  assert.deepEqual(fs.readFileSync(path.join(vault, target)), old);
});
