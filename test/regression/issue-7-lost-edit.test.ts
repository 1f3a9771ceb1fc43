import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isVaultgateError } from '../../src/errors.js';
import { applyBundle, faultyFsOps, inspectBundle, parseBundle, realFsOps, txStatus, undoOperation, type FsOps } from '../../src/txn/index.js';
import { CLI_BIN } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';
import { makeBundle, sha, vaultImage, type WriteSpec } from '../unit/txn/txn-helpers.js';

/**
 * Issue #7 defect 1: a concurrent edit must never be lost. Every original used to be
 * hashed once before the first write, so an editor saving note k while writes
 * 0…k−1 ran was silently overwritten (temp + rename) or left only in the backup
 * (in-place write). Now each file is moved aside and checked right before it is
 * published, and every moved original is checked again before the commit.
 */
const N = 1000;
const oldText = (n: number) => `# note ${n}\n\nold text of note ${n}\n`;
const newText = (n: number) => `# note ${n}\n\nnew text of note ${n}, written by the bundle\n`;
const EDIT = '# note (the person)\n\nwhat the person typed while the bundle was applied\n';

/**
 * A second process that waits until the apply has published note 0, then saves the
 * last note the way an editor does: `rename` (write a temp file, rename it over the
 * note: Obsidian, VS Code, most editors) or `in-place` (open the note itself and
 * overwrite its bytes: vim with backupcopy=yes, some sync tools). It reports whether
 * the note still held its old text right before the save (the race was real).
 */
const EDITOR = `
const fs = require('node:fs');
const [first, target, style, firstNew, oldText, edit] = process.argv.slice(1);
const deadline = Date.now() + 60000;
for (;;) {
  let cur = null;
  try { cur = fs.readFileSync(first, 'utf8'); } catch {}
  if (cur === firstNew) break;
  if (Date.now() > deadline) { console.log(JSON.stringify({ saved: false })); process.exit(0); }
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
}
let before = null;
try { before = fs.readFileSync(target, 'utf8'); } catch {}
if (style === 'rename') {
  const tmp = target + '.editor-tmp';
  fs.writeFileSync(tmp, edit);
  fs.renameSync(tmp, target);
} else {
  fs.writeFileSync(target, edit);
}
console.log(JSON.stringify({ saved: true, raced: before === oldText }));
`;

function runNode(args: string[], env: Record<string, string> = {}): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

async function raceEditor(style: 'rename' | 'in-place') {
  const files: Record<string, string> = {};
  for (let n = 0; n < N; n++) files[`notes/n${String(n).padStart(4, '0')}.md`] = oldText(n);
  // in memory: the race is between two real processes; per-file fsync on a shared disk would only slow it down
  const { root, home } = tempVault(files, { tmpfs: true });
  const writes: WriteSpec[] = Object.keys(files).map((p, n) => ({ path: p, mode: 'replace', content: newText(n) }));
  const bundleFile = path.join(path.dirname(root), 'big.json');
  fs.writeFileSync(bundleFile, JSON.stringify(makeBundle(root, 'big', writes, 'note')));
  const approval = inspectBundle(root, parseBundle(fs.readFileSync(bundleFile), { baseDir: root })).approval_sha256;
  const last = N - 1;
  const target = path.join(root, `notes/n${String(last).padStart(4, '0')}.md`);
  const editor = runNode(['-e', EDITOR, path.join(root, 'notes/n0000.md'), target, style, newText(0), oldText(last), EDIT]);
  const apply = runNode([CLI_BIN, '--vault', root, 'tx', 'apply', bundleFile, '--approval', approval], { VAULTGATE_HOME: home });
  const [e, a] = await Promise.all([editor, apply]);
  const ed = JSON.parse(e.stdout) as { saved: boolean; raced?: boolean };
  assert.ok(ed.saved, `editor never saw the apply begin: ${e.stderr}`);
  const json = JSON.parse(a.stdout);
  // The one rule: the person's bytes are in the vault, under the name they saved.
  assert.equal(fs.readFileSync(target, 'utf8'), EDIT, `the person's edit was lost (apply exit ${a.code}: ${a.stdout.slice(0, 300)})`);
  const others = Object.keys(files).filter((p) => path.join(root, p) !== target);
  if (a.code === 0) {
    // the save landed after the bundle's write of that note: a later edit, and the bundle is whole
    for (const p of others) assert.equal(fs.readFileSync(path.join(root, p), 'utf8'), newText(Number(p.slice(7, 11))), p);
    assert.equal(ed.raced, false, 'apply reported success although the note still held its old text when the person saved');
  } else {
    assert.deepEqual([a.code, json.error?.code], [75, "STALE_HASH"], a.stdout.slice(0, 500));
    for (const p of others) assert.equal(fs.readFileSync(path.join(root, p), 'utf8'), oldText(Number(p.slice(7, 11))), `${p} not rolled back`);
  }
  assert.deepEqual(txStatus(root).pending, []);
  const leftovers = Object.keys(vaultImage(root)).filter((p) => p.includes('.vg-') || p.includes('editor-tmp'));
  assert.deepEqual(leftovers, [], 'no temp or aside file left');
  return { exit: a.code, raced: ed.raced };
}

test('issue 7.1: an editor saving by temp + rename during a 1,000-write apply is never overwritten (exit 75, all rolled back, the edit kept)', async (t) => {
  const r = await raceEditor('rename');
  t.diagnostic(`apply exit ${r.exit}; the save raced the apply: ${r.raced}`);
  assert.ok(r.raced, 'the editor saved before the bundle reached its note (else the test proves nothing)');
});

test('issue 7.1: an editor writing in place during a 1,000-write apply is never left only in a backup (exit 75, the edit kept)', async (t) => {
  const r = await raceEditor('in-place');
  t.diagnostic(`apply exit ${r.exit}; the save raced the apply: ${r.raced}`);
  assert.ok(r.raced);
});

const fastOps: FsOps = { ...realFsOps, fsync: () => {} };

test('issue 7.1: an in-place write into the original after it was checked, right before its replacement is published, is caught before the commit', async () => {
  const files = { 'a.md': 'A', 'b.md': 'B', 'c.md': 'C' };
  const { root } = tempVault(files);
  const writes: WriteSpec[] = [
    { path: 'a.md', mode: 'replace', content: 'A2' },
    { path: 'b.md', mode: 'replace', content: 'B2' },
    { path: 'c.md', mode: 'delete' },
  ];
  const bundle = parseBundle(Buffer.from(JSON.stringify(makeBundle(root, 'op1', writes))), { baseDir: root });
  const approval = inspectBundle(root, bundle).approval_sha256;
  const before = vaultImage(root);
  let wrote = false;
  const target = path.join(root, 'b.md');
  // the original inode of b.md is also linked as the backup b1: writing through that
  // name is exactly what an editor holding the old file open does
  const ops = faultyFsOps({
    atStep: Number.MAX_SAFE_INTEGER,
    kind: 'crash',
    beforeStep: (_n, op, args) => {
      if (wrote || !((op === 'rename' || op === 'link') && args[1] === target)) return;
      wrote = true;
      fs.writeFileSync(path.join(root, '.vaultgate/txn/pending/op1/b1'), 'typed in place');
    },
  }, fastOps);
  let code = 'OK';
  try {
    await applyBundle(root, bundle, approval, { ops });
  } catch (e) {
    assert.ok(isVaultgateError(e), (e as Error).stack);
    code = `${e.code}/${e.exitCode}`;
  }
  assert.ok(wrote);
  assert.equal(code, 'STALE_HASH/75', 'apply must not report success while the edit exists only in a backup');
  assert.equal(fs.readFileSync(target, 'utf8'), 'typed in place');
  assert.deepEqual(Object.keys(vaultImage(root)).sort(), Object.keys(before).sort(), 'no temp or aside file left');
  assert.equal(fs.readFileSync(path.join(root, 'a.md'), 'utf8'), 'A');
  assert.equal(fs.readFileSync(path.join(root, 'c.md'), 'utf8'), 'C');
  assert.deepEqual(txStatus(root).pending, []);
});

test('issue 7.1: undo never says a backup was pruned when it is kept but holds other bytes (an edit made while the operation ran)', async () => {
  const { root } = tempVault({ 'a.md': 'A' });
  const bundle = parseBundle(Buffer.from(JSON.stringify(makeBundle(root, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }]))), { baseDir: root });
  await applyBundle(root, bundle, inspectBundle(root, bundle).approval_sha256);
  const backups = path.join(root, '.vaultgate/txn/backups');
  const kept = path.join(backups, fs.readdirSync(backups)[0]!, 'b0');
  fs.writeFileSync(kept, 'an edit that landed in the original after the last check');
  try {
    await undoOperation(root, 'op1');
    assert.fail('undo succeeded');
  } catch (e) {
    assert.ok(isVaultgateError(e), (e as Error).stack);
    assert.doesNotMatch(e.message, /pruned|no longer kept/);
    assert.equal(e.code, 'INTEGRITY');
    assert.match(e.message, /b0/);
    assert.equal(e.details?.backup_sha256, sha('an edit that landed in the original after the last check'));
  }
  assert.equal(fs.readFileSync(path.join(root, 'a.md'), 'utf8'), 'A2');
});
