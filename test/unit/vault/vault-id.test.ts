import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { initVault } from '../../../src/txn/index.js';
import { predictVaultId, readVaultId, vaultCacheKey, vaultIdentity } from '../../../src/vault/index.js';
import { rememberedPrediction } from '../../../src/vault/predicted-id-cache.js';
import { snapshotTree, tempVault } from '../../helpers/temp-vault.js';

test('an uninitialised vault has a predicted id; reading it writes nothing', () => {
  const { root } = tempVault({ 'a.md': 'x' });
  const before = snapshotTree(root, { includeHidden: true });
  const id = vaultIdentity(root);
  assert.equal(id.initialised, false);
  assert.match(id.vault_id, /^[0-9a-f]{8}-[0-9a-f]{4}-8[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(readVaultId(root), null);
  assert.deepEqual(snapshotTree(root, { includeHidden: true }), before);
});

test('init stores exactly the predicted id, so the cache key survives initialisation', () => {
  const { root } = tempVault({ 'a.md': 'x' });
  const key = vaultCacheKey(root);
  assert.equal(key, predictVaultId(root));
  initVault(root);
  assert.equal(readVaultId(root), key);
  assert.equal(vaultCacheKey(root), key);
  assert.deepEqual(vaultIdentity(root), { vault_id: key, initialised: true });
});

test('two vaults get different ids', () => {
  assert.notEqual(predictVaultId(tempVault().root), predictVaultId(tempVault().root));
});

test('vaultCacheKey with env: an uninitialised vault\'s predicted id is remembered, and predicted again when the root is another folder', () => {
  const { root, home } = tempVault({ 'a.md': 'x' });
  const env = { VAULTGATE_HOME: home };
  let predictions = 0;
  const counted = (r: string) => {
    predictions++;
    return predictVaultId(r);
  };
  const id = rememberedPrediction(root, env, counted);
  assert.equal(id, predictVaultId(root));
  assert.equal(rememberedPrediction(root, env, counted), id);
  assert.equal(predictions, 1, 'the second call is answered from the cache');
  assert.equal(vaultCacheKey(root, env), id, 'vaultCacheKey goes through the same cache');
  // The same path, another folder (removed and made again: a new inode): predicted afresh.
  const files = fs.readdirSync(root);
  const moved = `${root}-old`;
  fs.renameSync(root, moved);
  fs.mkdirSync(root);
  for (const f of files) fs.renameSync(path.join(moved, f), path.join(root, f));
  const again = rememberedPrediction(root, env, counted);
  assert.equal(predictions, 2);
  assert.equal(again, predictVaultId(root));
  assert.notEqual(again, id);
  // A damaged cache file costs a prediction, never a wrong id.
  fs.writeFileSync(path.join(home, 'cache', 'predicted-vault-ids.json'), '{"not json');
  assert.equal(rememberedPrediction(root, env, counted), again);
  assert.equal(predictions, 3);
  // An initialised vault's id is its file's, whatever the cache says.
  fs.mkdirSync(path.join(root, '.vaultgate'), { recursive: true });
  fs.writeFileSync(path.join(root, '.vaultgate', 'vault-id'), '11111111-2222-4333-8444-555555555555\n');
  assert.equal(vaultCacheKey(root, env), '11111111-2222-4333-8444-555555555555');
});
