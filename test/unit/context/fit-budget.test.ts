import assert from 'node:assert/strict';
import { test } from 'node:test';
import { fitBudget, interleave, type Candidate } from '../../../src/context/index.js';

const c = (id: number, chars: number): Candidate => ({
  sectionId: id,
  path: `n${id}.md`,
  heading_path: [],
  anchor: null,
  lines: [1, 1],
  part: null,
  sha256: 'x',
  text: 'x'.repeat(chars),
  reason: 'r',
  score: 1,
});

test('fitBudget: takes whole items in order; one that does not fit is left out, later smaller ones still fit', () => {
  const r = fitBudget([c(1, 40), c(2, 100), c(3, 50), c(4, 20)], 100);
  assert.deepEqual(r.taken.map((x) => x.sectionId), [1, 3]);
  assert.deepEqual(r.left.map((x) => x.sectionId), [2, 4]);
  assert.equal(r.used, 90);
});

test('fitBudget: an item exactly the size of the budget fits; nothing is ever cut', () => {
  const r = fitBudget([c(1, 100)], 100);
  assert.equal(r.taken[0]!.text.length, 100);
  const none = fitBudget([c(1, 101)], 100);
  assert.deepEqual([none.taken.length, none.left.length, none.used], [0, 1, 0]);
});

test('fitBudget: maxTaken caps how many items are taken', () => {
  assert.deepEqual(fitBudget([c(1, 1), c(2, 1), c(3, 1)], 100, 2).taken.map((x) => x.sectionId), [1, 2]);
});

test('interleave: best of each list first, duplicates dropped', () => {
  const out = interleave([[c(1, 1), c(2, 1), c(3, 1)], [c(2, 1), c(9, 1)]]);
  assert.deepEqual(out.map((x) => x.sectionId), [1, 2, 9, 3]);
});
