/**
 * The default similarity on real temp vaults through the index: a long note
 * that holds a topic in one section is found for a short note on that topic;
 * vectors are refreshed incrementally (fold-in), retrained past the drift
 * share, and dropped with their notes.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { withFreshIndex, oneShotReader } from '../../../../src/index/index.js';
import { openVectorStore, pairSimilarity, refreshLsaVectors, similarNotes, DEFAULT_LSA_PARAMS } from '../../../../src/wing/similar/index.js';
import { tempVault } from '../../../helpers/temp-vault.js';

/** Five topics with their own words; notes mix a topic's words with a few common ones. */
const TOPICS: Record<string, string[]> = {
  cache: ['cache', 'expiry', 'eviction', 'ttl', 'invalidation', 'stale', 'hit', 'miss', 'origin', 'edge'],
  garden: ['tomato', 'compost', 'seedling', 'mulch', 'watering', 'soil', 'harvest', 'prune', 'trellis', 'bed'],
  chess: ['opening', 'gambit', 'bishop', 'castling', 'endgame', 'pawn', 'knight', 'checkmate', 'rook', 'tempo'],
  bread: ['sourdough', 'starter', 'flour', 'hydration', 'proof', 'crumb', 'crust', 'knead', 'levain', 'oven'],
  travel: ['itinerary', 'passport', 'luggage', 'hostel', 'train', 'visa', 'museum', 'ticket', 'border', 'map'],
};
const COMMON = ['notes', 'today', 'idea', 'later', 'check', 'list'];

function sentence(words: string[], seed: number): string {
  const pick = (i: number) => words[(seed * 7 + i * 3) % words.length]!;
  return `${pick(0)} ${pick(1)} ${COMMON[seed % COMMON.length]} ${pick(2)} ${pick(3)} ${pick(4)}.`;
}

function paragraph(topic: string, seed: number, n = 4): string {
  return Array.from({ length: n }, (_, i) => sentence(TOPICS[topic]!, seed + i)).join(' ');
}

function vaultFiles(): Record<string, string> {
  const files: Record<string, string> = {};
  let seed = 1;
  for (const topic of Object.keys(TOPICS)) {
    for (let k = 0; k < 6; k++) files[`${topic}/${topic} ${k}.md`] = `# ${topic} ${k}\n\n${paragraph(topic, seed++)}\n\n## More\n\n${paragraph(topic, seed++)}\n`;
  }
  // A long journal: one section per topic, the cache section among them.
  files['journal/Year review.md'] = `# Year review\n\n${Object.keys(TOPICS).map((t) => `## ${t} part\n\n${paragraph(t, seed++, 6)}`).join('\n\n')}\n`;
  files['query/Cache note.md'] = `# Cache note\n\n${paragraph('cache', 100)}\n`;
  return files;
}

test('similar: a long note holding the topic in one section is found, by that section', async () => {
  const { root, home } = tempVault(vaultFiles());
  const env = { VAULTGATE_HOME: home };
  const ctx = { root, env, reader: oneShotReader(root, env) };
  const r = await similarNotes(ctx, 'query/Cache note.md', { limit: 50 });
  const rank = (p: string) => r.candidates.findIndex((c) => c.path === p);
  const review = r.candidates[rank('journal/Year review.md')]!;
  for (const other of ['garden', 'chess', 'bread', 'travel']) {
    for (let k = 0; k < 6; k++) assert.ok(rank('journal/Year review.md') < rank(`${other}/${other} ${k}.md`), `above ${other} ${k}`);
  }
  assert.deepEqual(review.best_pairs[0]!.b.heading_path, ['Year review', 'cache part'], 'the best pair is the cache section');
  const pair = await pairSimilarity(ctx, 'query/Cache note.md', 'journal/Year review.md');
  assert.ok(pair.parts.coverage > pair.parts.dense, 'the section match beats the whole-note match');
  assert.equal(r.provider.name, 'lsa');
});

test('similar: vectors follow the index incrementally — one changed note is folded in, a deleted one dropped, past 25% the model is retrained', () => {
  const files = vaultFiles();
  const { root, home } = tempVault(files);
  const env = { VAULTGATE_HOME: home };
  const refresh = (retrainMinNotes?: number) =>
    withFreshIndex(root, env, (h) => {
      const store = openVectorStore(root, env);
      try {
        return refreshLsaVectors(h.db, store, { params: DEFAULT_LSA_PARAMS, retrainMinNotes });
      } finally {
        store.close();
      }
    }).result;
  const first = refresh();
  assert.equal(first.retrained, true);
  assert.equal(first.notes, 32);
  const again = refresh();
  assert.deepEqual([again.retrained, again.embedded, again.model], [false, 0, first.model], 'nothing changed: nothing embedded');
  fs.appendFileSync(path.join(root, 'cache/cache 0.md'), `\n${paragraph('cache', 500)}\n`);
  fs.rmSync(path.join(root, 'travel/travel 5.md'));
  const third = refresh();
  assert.deepEqual([third.retrained, third.embedded, third.dropped, third.notes, third.model], [false, 1, 1, 31, first.model]);
  for (let k = 0; k < 5; k++) for (const t of ['garden', 'chess']) fs.appendFileSync(path.join(root, `${t}/${t} ${k}.md`), `\nedit ${k}\n`);
  // 10 more changed notes: 12 of 32 since training is past the 25% share, and past a minimum of 5: retrained.
  const fourth = refresh(5);
  assert.equal(fourth.retrained, true);
  assert.notEqual(fourth.model, first.model);
  assert.equal(refresh(5).retrained, false, 'a fresh model has no drift');
});

test('similar: a rebuilt index finds its vectors again (keyed by note path and hash, not by index row)', () => {
  const { root, home } = tempVault(vaultFiles());
  const env = { VAULTGATE_HOME: home };
  const run = (rebuild: boolean) =>
    withFreshIndex(
      root,
      env,
      (h) => {
        const store = openVectorStore(root, env);
        try {
          return refreshLsaVectors(h.db, store, { params: DEFAULT_LSA_PARAMS });
        } finally {
          store.close();
        }
      },
      { rebuild },
    ).result;
  const a = run(false);
  const b = run(true);
  assert.deepEqual([b.retrained, b.embedded, b.model], [false, 0, a.model]);
});
