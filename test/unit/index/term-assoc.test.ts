import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { TERM_MODEL_PARAMS, termModelInfo, termNeighbours, trainTermAssociations, withFreshIndex } from '../../../src/index/index.js';
import { updateTermModel } from '../../../src/index/term-store.js';
import { tempVault } from '../../helpers/temp-vault.js';

/**
 * The term-association model (term-assoc.ts, term-store.ts): words used in the
 * same contexts become neighbours; the index trains it only when enabled, and
 * retrains once enough notes changed.
 */

/** Sections where `dough` and `batter` share every context, and `engine` never meets them. */
function corpus(): string[][] {
  const out: string[][] = [];
  for (let i = 0; i < 40; i++) {
    out.push(['flour', i % 2 ? 'dough' : 'batter', 'knead', 'oven', 'rest', 'sugar']);
    out.push(['engine', 'piston', 'fuel', 'spark', 'gear', 'oil']);
    out.push(['river', 'bank', 'fish', 'boat', 'water', 'shore']);
  }
  return out;
}

test('trainTermAssociations: words sharing contexts are neighbours, unrelated ones are not', () => {
  const m = trainTermAssociations(corpus(), { ...TERM_MODEL_PARAMS, dims: 8, minCount: 3, minSimilarity: 0.3 });
  const near = (w: string) => (m.neighbours.get(w) ?? []).map((n) => n.term);
  assert.ok(near('dough').includes('batter'), `dough: ${near('dough').join(' ')}`);
  assert.ok(!near('dough').includes('piston'));
  assert.ok(!near('engine').includes('batter'));
  for (const list of m.neighbours.values()) {
    for (let i = 1; i < list.length; i++) assert.ok(list[i - 1]!.similarity >= list[i]!.similarity, 'best first');
  }
});

test('trainTermAssociations: deterministic, and empty for a vocabulary too small to learn from', () => {
  const p = { ...TERM_MODEL_PARAMS, dims: 8, minCount: 3 };
  assert.deepEqual(trainTermAssociations(corpus(), p), trainTermAssociations(corpus(), p));
  assert.equal(trainTermAssociations([['a', 'b']], p).neighbours.size, 0);
});

function withEnabled<T>(fn: () => T): T {
  const saved = { ...TERM_MODEL_PARAMS };
  Object.assign(TERM_MODEL_PARAMS, { enabled: true, dims: 8, minCount: 3 });
  try {
    return fn();
  } finally {
    Object.assign(TERM_MODEL_PARAMS, saved);
  }
}

const NOTE = (i: number) => `# Baking ${i}\nKnead the dough, rest the dough, flour and sugar; batter needs flour and sugar too.\n## Engine\nThe engine burns fuel; the piston and the spark.\n`;

test('term model: off by default (nothing trained); when enabled, trained at index time and dropped when disabled again', () => {
  const files = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`n${i}.md`, NOTE(i)]));
  const { root, home } = tempVault(files);
  const env = { VAULTGATE_HOME: home };
  assert.equal(withFreshIndex(root, env, (h) => termModelInfo(h.db)).result, null);
  // The model follows the setting at the next refresh that has work to do.
  fs.writeFileSync(path.join(root, 'extra.md'), NOTE(99));
  const trained = withEnabled(() => withFreshIndex(root, env, (h) => ({ info: termModelInfo(h.db), near: termNeighbours(h.db, ['dough']) })).result);
  assert.ok(trained.info && trained.info.terms > 0, 'trained on the vault');
  assert.ok(trained.near.get('dough')?.some((n) => n.term === 'batter'));
  fs.rmSync(path.join(root, 'extra.md'));
  assert.equal(withFreshIndex(root, env, (h) => termModelInfo(h.db)).result, null, 'disabled: the stale model is dropped');
});

test('term model: small changes count as drift; it retrains once more than 50 notes and a fifth of the vault changed', () => {
  const files = Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`n${i}.md`, NOTE(i)]));
  const { root, home } = tempVault(files);
  withEnabled(() =>
    withFreshIndex(root, { VAULTGATE_HOME: home }, (h) => {
      const db = h.db;
      assert.equal(updateTermModel(db, 0), false, 'trained by the refresh already');
      assert.equal(updateTermModel(db, 30), false);
      assert.equal(termModelInfo(db)?.drift, 30);
      assert.equal(updateTermModel(db, 30), true, '60 changes: retrained');
      assert.equal(termModelInfo(db)?.drift, 0);
    }),
  );
});
