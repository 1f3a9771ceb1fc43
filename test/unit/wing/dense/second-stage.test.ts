import assert from 'node:assert/strict';
import { test } from 'node:test';
import { RRF_K, addTitleRanking, fuseRanks, titleText } from '../../../../src/wing/dense/index.js';

const unit = (...xs: number[]) => {
  const v = Float32Array.from(xs);
  const n = Math.hypot(...xs);
  return v.map((x) => x / n);
};

test('titleText: the file name without .md, then the description when there is one', () => {
  assert.equal(titleText('Guides/Sync your notes across devices.md', null), 'Sync your notes across devices');
  assert.equal(titleText('a/b.MD', 'How to sync'), 'b\nHow to sync');
});

test('addTitleRanking: a note whose title is closest to the query rises; weight 0 changes nothing', () => {
  const fused = fuseRanks(['a#1', 'a#2', 'b#1', 'c#1'], ['a#1', 'b#1', 'a#2', 'c#1'], 1);
  const noteOf = (k: string) => k.split('#')[0]!;
  const q = unit(1, 0);
  const titles = new Map([
    ['a', unit(0, 1)],
    ['b', unit(0.2, 1)],
    ['c', unit(1, 0.1)],
  ]);
  assert.deepEqual(addTitleRanking(fused, noteOf, titles, q, 0), fused);
  const out = addTitleRanking(fused, noteOf, titles, q, 5);
  assert.equal(out[0]!.key, 'c#1');
  const c = out.find((f) => f.key === 'c#1')!;
  assert.equal(c.score, fused.find((f) => f.key === 'c#1')!.score + 5 / (RRF_K + 1));
  // Sections of one note share its title rank: a's two sections keep their order.
  assert.ok(out.findIndex((f) => f.key === 'a#1') < out.findIndex((f) => f.key === 'a#2'));
});

test('addTitleRanking: a note without a title vector takes its place in the fused order', () => {
  const fused = fuseRanks(['x', 'y'], ['x', 'y'], 1);
  const out = addTitleRanking(fused, (k) => k, new Map([['y', unit(1, 0)]]), unit(1, 0), 1);
  // y is first by title; x (no title vector) is given its fused place, 1: both get 1/(k+1), x stays first.
  assert.deepEqual(out.map((f) => f.key), ['x', 'y']);
});
