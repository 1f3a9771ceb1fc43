import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkVault, openVaultView } from '../../../src/links/index.js';
import { tempVault } from '../../helpers/temp-vault.js';

test('an oversized note met during a vault-wide read is a warning, not a failure', () => {
  const { root } = tempVault({ 'Big.md': 'x'.repeat(2000), 'Small.md': '[[Big]]' });
  const view = openVaultView(root, { maxNoteBytes: 1000 });
  const health = checkVault(root, view);
  assert.deepEqual(health.warnings.map((w) => [w.path, w.code]), [['Big.md', 'FILE_TOO_LARGE']]);
  assert.equal(health.counts.resolved, 1, 'links to the oversized note still resolve');
});

test('excluded notes are files for resolution but are not read', () => {
  const { root } = tempVault({
    '.vaultgate/config.yaml': 'index:\n  exclude: [private]\n',
    'private/Secret.md': '[[Public]]',
    'Public.md': '',
  });
  const view = openVaultView(root);
  assert.deepEqual(view.notePaths(), ['Public.md']);
  assert.deepEqual(view.index.files.map((f) => [f.path, f.indexed]), [['Public.md', true], ['private/Secret.md', false]]);
  assert.deepEqual(checkVault(root, view).items.orphans, ['Public.md']);
});

test('check reports names that differ only by Unicode normalisation or by case', () => {
  const { root } = tempVault({ 'Caf\u00e9.md': 'nfc', 'Cafe\u0301.md': 'nfd', 'Note.md': '', 'note.md': '' });
  const health = checkVault(root);
  assert.deepEqual(health.items.collisions, [
    { kind: 'nfc', paths: ['Cafe\u0301.md', 'Caf\u00e9.md'] },
    { kind: 'case', paths: ['Note.md', 'note.md'] },
  ]);
  assert.equal(health.counts.collisions, 2);
});
