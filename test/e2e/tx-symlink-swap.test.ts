import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isVaultgateError } from '../../src/errors.js';
import { applyBundle, faultyFsOps, initVault, inspectBundle, parseBundle, realFsOps, recoverVault, type FsOps } from '../../src/txn/index.js';
import { snapshotTree, tempVault } from '../helpers/temp-vault.js';
import { makeBundle } from '../unit/txn/txn-helpers.js';

/**
 * A parent folder swapped for a symlink to outside the vault between two steps
 * never redirects a write or an unlink (issue #3 §5). For every step k of a bundle
 * that writes into `sub/`, after step k succeeds `sub` is renamed away and replaced
 * by a symlink to a folder outside the vault holding decoy files of the same
 * names. Apply and the recovery after it may fail (typed), but the outside folder
 * must be byte-identical afterwards.
 */
const fastOps: FsOps = { ...realFsOps, fsync: () => {} };
const decoys = { 'a.md': 'DECOY A', 'd.md': 'DECOY D', 'm.md': 'DECOY M', 'n.md': 'DECOY N' };

function setup() {
  const { root } = tempVault({ 'top.md': 'T', 'sub/a.md': 'A', 'sub/d.md': 'D', 'sub/m.md': 'M' });
  const outside = path.join(path.dirname(root), 'outside');
  fs.mkdirSync(outside);
  for (const [n, c] of Object.entries(decoys)) fs.writeFileSync(path.join(outside, n), c);
  initVault(root, fastOps);
  const bundle = parseBundle(
    Buffer.from(JSON.stringify(makeBundle(root, 'op-swap', [
      { path: 'top.md', mode: 'replace', content: 'T2' },
      { path: 'sub/a.md', mode: 'replace', content: 'A2' },
      { path: 'sub/new.md', mode: 'create', content: 'NEW' },
      { path: 'sub/d.md', mode: 'delete' },
      { path: 'sub/m.md', mode: 'move', to: 'sub/n.md' },
    ]))),
    { baseDir: root },
  );
  return { root, outside, bundle, approval: inspectBundle(root, bundle).approval_sha256 };
}

test('a parent folder swapped for a symlink between any two steps never redirects a write or an unlink', async (t) => {
  const ref = setup();
  const counter = faultyFsOps({ atStep: Number.MAX_SAFE_INTEGER, kind: 'crash' }, fastOps);
  await applyBundle(ref.root, ref.bundle, ref.approval, { ops: counter });
  let refused = 0;
  for (let k = 1; k <= counter.steps; k++) {
    const v = setup();
    const outsideBefore = snapshotTree(v.outside, { includeHidden: true });
    let swapped = false;
    const ops = faultyFsOps({
      atStep: Number.MAX_SAFE_INTEGER,
      kind: 'crash',
      afterStep: (n) => {
        if (swapped || n < k) return;
        fs.renameSync(path.join(v.root, 'sub'), path.join(v.root, 'sub-real'));
        fs.symlinkSync(v.outside, path.join(v.root, 'sub'));
        swapped = true;
      },
    }, fastOps);
    try {
      await applyBundle(v.root, v.bundle, v.approval, { ops });
    } catch (e) {
      assert.ok(isVaultgateError(e), `k=${k}: untyped ${(e as Error).stack}`);
      refused++;
    }
    try {
      await recoverVault(v.root);
    } catch (e) {
      assert.ok(isVaultgateError(e), `k=${k}: recovery untyped ${(e as Error).stack}`);
    }
    if (!swapped) continue; // step k failed by itself (EEXIST of an existing .vaultgate folder): no gap after it
    assert.deepEqual(snapshotTree(v.outside, { includeHidden: true }), outsideBefore, `k=${k}: something outside the vault changed`);
  }
  t.diagnostic(`${counter.steps} swap points; apply refused at ${refused} of them, and nothing outside changed at any`);
});
