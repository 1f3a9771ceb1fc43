import assert from 'node:assert/strict';
import { test } from 'node:test';
import { initVault } from '../../../src/txn/index.js';
import { predictVaultId, readVaultId, vaultCacheKey, vaultIdentity } from '../../../src/vault/index.js';
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
