import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';
import { makeBundle, writeBundleFile, type WriteSpec } from '../unit/txn/txn-helpers.js';

/**
 * Issue #7 defects 5 and 7: `undo X` and a bundle applied under the id `undo-X`
 * shared one namespace (undo returned "replayed" and changed nothing), and
 * re-applying a bundle after its operation was undone answered ok/replayed with
 * exit 0 without checking the approval, although the vault no longer held the
 * change.
 */
const cli = (root: string, home: string, args: string[]) => runCli(args, { vault: root, home });

async function inspectApply(root: string, home: string, op: string, writes: WriteSpec[]) {
  const file = writeBundleFile(path.dirname(root), makeBundle(root, op, writes), `${op}.json`);
  const i = await cli(root, home, ['tx', 'inspect', file]);
  assert.equal(i.exitCode, 0, i.stdout);
  const a = await cli(root, home, ['tx', 'apply', file, '--approval', i.json.approval_sha256]);
  return { file, approval: i.json.approval_sha256 as string, apply: a };
}
const read = (root: string, p: string) => fs.readFileSync(path.join(root, p), 'utf8');

test('issue 7.5: a user bundle applied under the id undo-X first, then `undo X`, undoes X', async () => {
  const { root, home } = tempVault({ 'a.md': 'A', 'b.md': 'B' });
  assert.equal((await inspectApply(root, home, 'X', [{ path: 'a.md', mode: 'replace', content: 'A by X' }])).apply.exitCode, 0);
  assert.equal((await inspectApply(root, home, 'undo-X', [{ path: 'b.md', mode: 'replace', content: 'B by undo-X' }])).apply.exitCode, 0);
  const u = await cli(root, home, ['undo', 'X']);
  assert.equal(u.exitCode, 0, u.stdout);
  assert.notEqual(u.json.replayed, true, 'undo answered from the user operation undo-X');
  assert.equal(u.json.undone, 'X');
  assert.equal(read(root, 'a.md'), 'A', 'X was not undone');
  assert.equal(read(root, 'b.md'), 'B by undo-X', 'the user operation undo-X was touched');
  // undo-X is an ordinary user operation: it can be undone on its own
  const u2 = await cli(root, home, ['undo', 'undo-X']);
  assert.equal(u2.exitCode, 0, u2.stdout);
  assert.equal(read(root, 'b.md'), 'B');
});

test('issue 7.5: `undo X` first, then a user bundle under the id undo-X, is applied as its own operation', async () => {
  const { root, home } = tempVault({ 'a.md': 'A', 'b.md': 'B' });
  assert.equal((await inspectApply(root, home, 'X', [{ path: 'a.md', mode: 'replace', content: 'A by X' }])).apply.exitCode, 0);
  const u = await cli(root, home, ['undo', 'X']);
  assert.equal(u.exitCode, 0, u.stdout);
  assert.equal(read(root, 'a.md'), 'A');
  const r = await inspectApply(root, home, 'undo-X', [{ path: 'b.md', mode: 'replace', content: 'B by undo-X' }]);
  assert.equal(r.apply.exitCode, 0, r.apply.stdout);
  assert.notEqual(r.apply.json.replayed, true);
  assert.equal(read(root, 'b.md'), 'B by undo-X');
  // and `undo X` again is a replay of the real undo, still changing nothing else
  const again = await cli(root, home, ['undo', 'X']);
  assert.deepEqual([again.exitCode, again.json.replayed, again.json.undone], [0, true, 'X']);
  assert.equal(read(root, 'b.md'), 'B by undo-X');
});

test('issue 7.7: a replay still requires the approval of that operation', async () => {
  const { root, home } = tempVault({ 'a.md': 'A' });
  const r = await inspectApply(root, home, 'X', [{ path: 'a.md', mode: 'replace', content: 'A2' }]);
  assert.equal(r.apply.exitCode, 0);
  const zeros = await cli(root, home, ['tx', 'apply', r.file, '--approval', '0'.repeat(64)]);
  assert.deepEqual([zeros.exitCode, zeros.json.error?.code], [75, 'APPROVAL_MISMATCH'], zeros.stdout);
  const ok = await cli(root, home, ['tx', 'apply', r.file, '--approval', r.approval]);
  assert.deepEqual([ok.exitCode, ok.json.replayed], [0, true]);
});

test('issue 7.7: re-applying a bundle after its operation was undone is not a success: OPERATION_UNDONE names the undo', async () => {
  const { root, home } = tempVault({ 'a.md': 'A' });
  const r = await inspectApply(root, home, 'X', [{ path: 'a.md', mode: 'replace', content: 'A2' }]);
  assert.equal((await cli(root, home, ['undo', 'X'])).exitCode, 0);
  const zeros = await cli(root, home, ['tx', 'apply', r.file, '--approval', '0'.repeat(64)]);
  assert.deepEqual([zeros.exitCode, zeros.json.error?.code], [75, 'APPROVAL_MISMATCH'], 'the approval is checked first');
  const again = await cli(root, home, ['tx', 'apply', r.file, '--approval', r.approval]);
  assert.notEqual(again.exitCode, 0, again.stdout);
  assert.equal(again.json.ok, false);
  assert.equal(again.json.error.code, 'OPERATION_UNDONE');
  assert.deepEqual([again.json.error.details.replayed, again.json.error.details.undone], [true, true]);
  assert.equal(read(root, 'a.md'), 'A', 'the vault holds the undone state and nothing was written');
});

test('issue 7.5: undo refuses an operation id that is not an id (no path games in .vaultgate/txn/done)', async () => {
  const { root, home } = tempVault({ 'a.md': 'A' });
  assert.equal((await inspectApply(root, home, 'X', [{ path: 'a.md', mode: 'replace', content: 'A2' }])).apply.exitCode, 0);
  for (const id of ['../done/X', 'X/../X', '', '-X', '.X']) {
    for (const verb of [['undo', id], ['checkpoint', id], ['tx', 'resolve', id, '--keep-current']]) {
      const r = await cli(root, home, verb);
      assert.equal(r.exitCode, 2, `${verb.join(' ')}: ${r.stdout}`);
      assert.match(r.json.error.code, /^(OPERATION_UNKNOWN|USAGE)$/);
    }
  }
});
