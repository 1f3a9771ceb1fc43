/**
 * The warm `similar NOTE` scan: its score-only scorer gives pairScore's score
 * to the bit, its bound never drops a note that could be shown, and the
 * cached list of placeholder notes and the no-change check follow the
 * vault's edits.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { oneShotReader } from '../../../../src/index/index.js';
import { ScanScorer } from '../../../../src/wing/similar/scan-score.js';
import { DEFAULT_WEIGHTS, pairScore, type NoteVectors } from '../../../../src/wing/similar/score.js';
import { similarNotes } from '../../../../src/wing/similar/index.js';
import { tempVault } from '../../../helpers/temp-vault.js';

/** A small deterministic generator (no Math.random: the same notes every run). */
function rng(seed: number): () => number {
  let s = seed >>> 0;
  return () => ((s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32) * 2 - 1;
}

function unit(r: () => number, dims: number): Float32Array {
  const v = Float32Array.from({ length: dims }, r);
  const n = Math.hypot(...v);
  return v.map((x) => x / n);
}

/** A note as the store holds it: packed sections (some without a vector, some short). */
function note(r: () => number, dims: number, path: string) {
  const count = 1 + Math.floor(((r() + 1) / 2) * 6);
  const lens = Int32Array.from({ length: count }, () => Math.floor(((r() + 1) / 2) * 8));
  const all = new Float32Array(count * dims);
  lens.forEach((len, i) => len && all.set(unit(r, dims), i * dims));
  const idx = Int32Array.from(new Set(Array.from({ length: 5 }, () => Math.floor(((r() + 1) / 2) * 20)))).sort();
  const val = Float32Array.from(idx, () => r());
  const row = { rowid: 0, path, dense: unit(r, dims), sparse: { idx, val }, lens, all, dims };
  const vectors: NoteVectors = { path, dense: row.dense, sparse: row.sparse, sections: [...lens].map((len, i) => ({ len, dense: len ? all.subarray(i * dims, (i + 1) * dims) : new Float32Array(0) })) };
  return { row, vectors };
}

test('scan score: the same number as pairScore, and the bound holds', () => {
  const r = rng(7);
  const dims = 12;
  const me = note(r, dims, 'me.md');
  const scorer = new ScanScorer(me.vectors, DEFAULT_WEIGHTS);
  for (let k = 0; k < 300; k++) {
    const other = note(r, dims, `n${k}.md`);
    const full = pairScore(me.vectors, other.vectors, DEFAULT_WEIGHTS).score;
    assert.equal(scorer.score(other.row), full, `note ${k}`);
    assert.equal(scorer.scoreAbove(other.row, full, () => other.row), full, `note ${k}: not dropped at its own score`);
    const dropped = scorer.scoreAbove(other.row, full + 0.6, () => other.row);
    assert.ok(dropped === null || dropped === full, `note ${k}: dropped or scored`);
  }
});

test('similar: a note given template placeholders after a warm run is left out on the next (the cached list follows the edit)', async () => {
  const files: Record<string, string> = {};
  for (let k = 0; k < 8; k++) files[`garden ${k}.md`] = `# garden ${k}\n\ntomato compost seedling mulch watering soil ${k}\n`;
  const { root, home } = tempVault(files);
  const env = { VAULTGATE_HOME: home };
  const ctx = () => ({ root, env, reader: oneShotReader(root, env) });
  const first = await similarNotes(ctx(), 'garden 0.md', { limit: 20 });
  assert.ok(first.candidates.some((c) => c.path === 'garden 3.md'));
  const again = await similarNotes(ctx(), 'garden 0.md', { limit: 20 });
  assert.deepEqual(again.candidates, first.candidates, 'a warm run, from the cache, is the same');
  assert.deepEqual([again.vectors.embedded, again.vectors.notes], [0, 8], 'nothing changed: nothing embedded, every note counted');
  fs.appendFileSync(path.join(root, 'garden 3.md'), '\ncreated {{date}}\n');
  const after = await similarNotes(ctx(), 'garden 0.md', { limit: 20 });
  assert.ok(!after.candidates.some((c) => c.path === 'garden 3.md'), 'the placeholder note is a template now');
  assert.equal(after.candidates.length, first.candidates.length - 1);
  assert.deepEqual([after.vectors.embedded, after.vectors.retrained], [1, false], 'the edited note is folded in: the no-change check saw the edit');
  const last = await similarNotes(ctx(), 'garden 0.md', { limit: 20 });
  assert.deepEqual([last.vectors.embedded, last.candidates], [0, after.candidates]);
});
