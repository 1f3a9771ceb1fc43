import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { withFreshIndex } from '../../../src/index/index.js';
import { DEFAULT_RANKING_PROFILE, searchIndex } from '../../../src/retrieval/index.js';
import { editDistance, transliterate, type BridgeParams } from '../../../src/retrieval/bridge.js';
import { VaultgateError } from '../../../src/errors.js';
import { tempVault } from '../../helpers/temp-vault.js';

/**
 * Vocabulary bridging (bridge.ts): the question's words against the vault's
 * own vocabulary — a typo, a word joined with a hyphen the notes write apart,
 * a Russian word for the notes' English term, a word of the same stem family.
 */

const VAULT = {
  'Хэш.md': '# Хэш-таблицы\nРазрешение коллизий методом цепочек.\n## Удаление\nУдаляем элемент из цепочки.\n',
  'Shell.md': '# Terminal\nThe shell runs your commands one by one.\n',
  'Node.md': '# Runtime\nNode starts fast. The cache of modules lives elsewhere.\n',
  'Куча.md': '# Куча\nКуча реализует приоритетную очередь на массиве.\n',
  'Очередь.md': '# Очередь задач\nОчередь задач обрабатывается по порядку. Очередь растёт, очередь сжимается.\n',
  'Other.md': '# Other\nNothing about any of it.\n',
};
const vault = tempVault(VAULT);
/** Search with the default profile, or with some bridge parameters changed (a variant of it, as the eval builds). */
const search = (q: string, change: Partial<BridgeParams> = {}) => {
  const profile = { ...DEFAULT_RANKING_PROFILE, bridge: { ...DEFAULT_RANKING_PROFILE.bridge, ...change } };
  return withFreshIndex(vault.root, { VAULTGATE_HOME: vault.home }, (h) => searchIndex(h.db, q, { profile })).result;
};

test('bridge: a misspelt word that occurs nowhere is corrected to the vault\'s word, never total 0', () => {
  const r = search('колизии');
  assert.ok(r.total >= 1);
  assert.equal(r.hits[0]?.path, 'Хэш.md');
  assert.equal(search('колизии', { correctWeight: 0 }).total, 0, 'without the correction nothing matches');
});

test('bridge: a Russian word for an English term the vault uses finds it by transliteration', () => {
  assert.equal(search('шелл').hits[0]?.path, 'Shell.md');
});

test('bridge: words joined by a hyphen that never occur together are searched apart', () => {
  const r = search('node-cache');
  assert.equal(r.hits[0]?.path, 'Node.md');
  assert.equal(search('node-cache', { correctWeight: 0, familyWeight: 0, familyCredit: 0 }).hits[0]?.path, 'Node.md', 'splitting needs no correction');
});

test('bridge: a Russian word brings its stem family (приоритетами → приоритетную)', () => {
  // On by default at a small weight (DEFAULT_RANKING_PROFILE.bridge). Snowball leaves приоритет and приоритетн apart: only the family (or a correction) joins them.
  const onlyFamily = search('приоритетами', { correctWeight: 0 });
  assert.equal(onlyFamily.hits[0]?.path, 'Куча.md');
  assert.equal(search('приоритетами', { correctWeight: 0, familyWeight: 0, familyCredit: 0 }).total, 0);
  assert.equal(search('очередь с приоритетами').hits[0]?.path, 'Куча.md', 'by default the correction joins them');
});

test('bridge: words the vault has are left alone', () => {
  const r = search('коллизий');
  assert.equal(r.hits[0]?.path, 'Хэш.md');
  assert.equal(search('nothing').hits[0]?.path, 'Other.md');
});

test('editDistance: optimal string alignment, capped at limit + 1', () => {
  assert.equal(editDistance('колизии', 'коллизии', 2), 1);
  assert.equal(editDistance('abcd', 'abdc', 2), 1, 'a transposition is one edit');
  assert.equal(editDistance('abc', 'xyz', 1), 2, 'capped');
  fc.assert(
    fc.property(fc.string({ maxLength: 8 }), fc.string({ maxLength: 8 }), (a, b) => {
      const d = editDistance(a, b, 20);
      assert.equal(d, editDistance(b, a, 20));
      assert.ok(d <= Math.max(a.length, b.length));
      assert.equal(d === 0, a === b);
    }),
  );
});

test('transliterate: Russian letters as loanwords write them', () => {
  assert.equal(transliterate('шелл'), 'shell');
  assert.equal(transliterate('питон'), 'piton');
  assert.equal(transliterate('чек'), 'chek');
});

test('property: bridging any query (astral letters, mixed scripts) never throws anything but a typed error', () => {
  const letters = fc.constantFrom('а', 'ш', 'e', 'z', '𠀋', '𝒜', 'é', '面', '-', ' ', 'ё', 'л');
  fc.assert(
    fc.property(fc.array(letters, { minLength: 1, maxLength: 14 }), (parts) => {
      try {
        search(parts.join(''));
      } catch (e) {
        assert.ok(e instanceof VaultgateError, String(e));
      }
    }),
    { numRuns: 60, seed: 3 },
  );
});
