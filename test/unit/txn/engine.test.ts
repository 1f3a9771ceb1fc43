import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isVaultgateError } from '../../../src/errors.js';
import { applyBundle, faultyFsOps, inspectBundle, parseBundle, readDone, readLockOwner, realFsOps, undoOperation } from '../../../src/txn/index.js';
import { tempVault } from '../../helpers/temp-vault.js';
import { makeBundle, vaultImage, type WriteSpec } from './txn-helpers.js';

async function apply(root: string, op: string, writes: WriteSpec[], opts = {}) {
  const bundle = parseBundle(Buffer.from(JSON.stringify(makeBundle(root, op, writes))), { baseDir: root });
  return applyBundle(root, bundle, inspectBundle(root, bundle).approval_sha256, opts);
}
const codeOf = async (p: Promise<unknown>) => {
  try {
    await p;
    return 'OK';
  } catch (e) {
    assert.ok(isVaultgateError(e), (e as Error).stack);
    return `${e.code}/${e.exitCode}`;
  }
};

test('backups are pruned to txn.keep_backups; undo then says which original is gone (exit 2), and undoes creates without one', async () => {
  const { root } = tempVault({ 'a.md': 'A', '.vaultgate/config.yaml': 'txn:\n  keep_backups: 1\n' });
  await apply(root, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A1' }]);
  await apply(root, 'op2', [{ path: 'b.md', mode: 'create', content: 'B' }]);
  await apply(root, 'op3', [{ path: 'a.md', mode: 'replace', content: 'A3' }]);
  assert.equal(fs.readdirSync(path.join(root, '.vaultgate/txn/backups')).length, 1);
  fs.writeFileSync(path.join(root, 'a.md'), 'A1'); // so only the pruned original stands in the way
  assert.equal(await codeOf(undoOperation(root, 'op1')), 'UNDO_UNAVAILABLE/2');
  assert.equal(await codeOf(undoOperation(root, 'op2')), 'OK');
  assert.equal(fs.existsSync(path.join(root, 'b.md')), false);
});

test('every finished operation leaves one history line; a torn last line does not break the log', async () => {
  const prepare = async (root: string) => {
    await apply(root, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A1' }]);
    fs.appendFileSync(path.join(root, '.vaultgate/txn/history.jsonl'), '{"operation_id":"torn');
  };
  const { root } = tempVault({ 'a.md': 'A' });
  await prepare(root);
  const step = await publishStepOf({ 'a.md': 'A' }, [{ path: 'a.md', mode: 'replace', content: 'A2' }], 'a.md', prepare, 'op2');
  const ops = faultyFsOps({ atStep: step, kind: 'ENOSPC' }, realFsOps);
  assert.equal(await codeOf(apply(root, 'op2', [{ path: 'a.md', mode: 'replace', content: 'A2' }], { ops })), 'WRITE_FAILED/3');
  await apply(root, 'op3', [{ path: 'a.md', mode: 'replace', content: 'A3' }]);
  const lines = fs.readFileSync(path.join(root, '.vaultgate/txn/history.jsonl'), 'utf8').split('\n').filter(Boolean);
  const parsed = lines.flatMap((l) => {
    try {
      return [JSON.parse(l) as { operation_id: string; outcome: string }];
    } catch {
      return [];
    }
  });
  assert.deepEqual(parsed.map((p) => `${p.operation_id}:${p.outcome}`), ['op1:applied', 'op2:rolled_back', 'op3:applied']);
  assert.equal(fs.readFileSync(path.join(root, 'a.md'), 'utf8'), 'A3');
});

/** The step number of the last publish (`link`, or `rename`) onto a vault file (the second file's publish), found on a twin vault. */
async function publishStepOf(files: Record<string, string>, writes: WriteSpec[], target: string, prepare?: (root: string) => Promise<void>, op = 'op1') {
  const probe = tempVault(files).root;
  await prepare?.(probe);
  let step = 0;
  await apply(probe, op, writes, {
    ops: faultyFsOps({ atStep: Number.MAX_SAFE_INTEGER, kind: 'crash', beforeStep: (n, op, args) => void ((op === 'rename' || op === 'link') && String(args[1]).endsWith(`/${target}`) && (step = n)) }, realFsOps),
  });
  return step;
}

test('a failed write (ENOSPC) is WRITE_FAILED, exit 3, with the vault rolled back and the id free to retry', async () => {
  const files = { 'a.md': 'A', 'b.md': 'B' };
  const { root } = tempVault(files);
  const before = vaultImage(root);
  const writes: WriteSpec[] = [{ path: 'a.md', mode: 'replace', content: 'A2' }, { path: 'b.md', mode: 'replace', content: 'B2' }];
  const step = await publishStepOf(files, writes, 'b.md');
  assert.ok(step > 0);
  const r = await codeOf(apply(root, 'op1', writes, { ops: faultyFsOps({ atStep: step, kind: 'ENOSPC' }, realFsOps) }));
  assert.equal(r, 'WRITE_FAILED/3');
  assert.deepEqual(vaultImage(root), before, 'a.md, already replaced, was rolled back');
  await apply(root, 'op1', writes);
  assert.equal(fs.readFileSync(path.join(root, 'b.md'), 'utf8'), 'B2');
});

test('a note stored under an NFD name is replaced in place, not duplicated under its NFC name', async () => {
  const nfd = 'Cafe\u0301.md';
  const { root } = tempVault({ [nfd]: 'old' });
  const bundle = parseBundle(Buffer.from(JSON.stringify({ schema: 'vaultgate.transaction.v1', operation_id: 'op1', operation_type: 'note',
    writes: [{ path: 'Café.md', mode: 'replace', content: 'new' }], expected_hashes: { 'Café.md': makeBundle(root, 'x', [{ path: nfd, mode: 'delete' }]).expected_hashes[nfd] }, read_preconditions: {} })), { baseDir: root });
  await applyBundle(root, bundle, inspectBundle(root, bundle).approval_sha256);
  assert.deepEqual(fs.readdirSync(root).filter((n) => !n.startsWith('.')), [nfd]);
  assert.equal(fs.readFileSync(path.join(root, nfd), 'utf8'), 'new');
});

test('afterCommit runs once, under the lock, after the commit is recorded; a replay does not run it', async () => {
  const { root } = tempVault({ 'a.md': 'A' });
  const seen: { op: string; lock: string | undefined; done: string | undefined }[] = [];
  const afterCommit = (r: { operation_id: string }) => {
    seen.push({ op: r.operation_id, lock: readLockOwner(root)?.liveness, done: readDone(root, r.operation_id, realFsOps)?.outcome });
  };
  const bundle = parseBundle(Buffer.from(JSON.stringify(makeBundle(root, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A1' }]))), { baseDir: root });
  const approval = inspectBundle(root, bundle).approval_sha256;
  await applyBundle(root, bundle, approval, { afterCommit });
  const again = await applyBundle(root, bundle, approval, { afterCommit });
  assert.equal(again.replayed, true);
  // a second process reading the lock in this window sees a live apply, never a crashed one
  assert.deepEqual(seen, [{ op: 'op1', lock: 'live', done: 'applied' }]);
  assert.equal(readLockOwner(root), null, 'released afterwards');
});
