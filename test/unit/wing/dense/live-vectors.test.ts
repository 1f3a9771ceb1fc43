import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { holdLiveVectors, liveVectorsFor } from '../../../../src/wing/dense/live-vectors.js';
import { noteVectors, openStoredVectors, scanSections } from '../../../../src/wing/dense/stored-vectors.js';
import { encodeLengths, openVectorStore } from '../../../../src/wing/similar/vector-store.js';
import { mulberry32 } from '../../../../bench/lib/random.js';

const DIMS = 16;
const SECTIONS = 3;

/** A deterministic pseudo-random stream centred on 0 (bench/lib/random.ts's mulberry32): the same vectors every run. */
function rng(seed: number): () => number {
  const next = mulberry32(seed);
  return () => next() - 0.5;
}

function unit(r: () => number): Float32Array {
  const v = new Float32Array(DIMS);
  let s = 0;
  for (let i = 0; i < DIMS; i++) s += (v[i] = r()) ** 2;
  for (let i = 0; i < DIMS; i++) v[i]! /= Math.sqrt(s);
  return v;
}

/**
 * A store shaped as `similar --provider` fills it, with what makes the scan's
 * choices delicate: more notes than the pool's cut (ties at the cut: duplicate
 * vectors), paths whose UTF-16 and UTF-8 orders differ, empty notes (zero
 * vectors), a row of another length, and a second model beside it.
 */
function makeStore() {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'vaultgate-live-'));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vaultgate-live-vault-'));
  const env = { VAULTGATE_HOME: home };
  const r = rng(7);
  const w = openVectorStore(root, env);
  w.prepare('INSERT INTO models(provider, model, dims, created_at, trained_notes) VALUES (?, ?, ?, ?, 0)').run('p', 'm', DIMS, 'x');
  w.prepare('INSERT INTO models(provider, model, dims, created_at, trained_notes) VALUES (?, ?, ?, ?, 0)').run('p', 'other', DIMS, 'x');
  const put = w.prepare('INSERT OR REPLACE INTO notes(provider, model, path, sha256, section_len, dense, sparse, section_dense) VALUES (?, ?, ?, ?, ?, ?, NULL, ?)');
  const write = (model: string, p: string, sha: string, note: Float32Array, secs: Float32Array) => put.run('p', model, p, sha, encodeLengths(new Array<number>(Math.floor(secs.length / DIMS)).fill(1)), Buffer.from(note.buffer), Buffer.from(secs.buffer));
  const twin = unit(r);
  const names = ['a', 'Z', 'é', '\u{1F600}', '\uFF21', 'b/c'];
  w.transaction(() => {
    for (let n = 0; n < 1200; n++) {
      const secs = new Float32Array(SECTIONS * DIMS);
      for (let s = 0; s < SECTIONS; s++) secs.set(unit(r), s * DIMS);
      const note = n % 97 === 0 ? new Float32Array(DIMS) : n % 5 === 0 ? twin : unit(r);
      write('m', `${names[n % names.length]}/n${n}.md`, `h${n}`, note, secs);
      if (n % 3 === 0) write('other', `${names[n % names.length]}/n${n}.md`, `h${n}`, unit(r), secs);
    }
    write('m', 'odd/short.md', 'h-odd', new Float32Array(DIMS - 1), new Float32Array(DIMS));
  })();
  return { home, root, env, w, r, write, twin };
}

for (const budget of ['160', '0']) test(`live vectors (sections ${budget === '0' ? 'read from the store' : 'in memory'}): the in-memory scan chooses exactly what the SQLite scan chooses, before and after the store changes`, async () => {
  const made = makeStore();
  const { home, root, w, r, write, twin } = made;
  const env = { ...made.env, VAULTGATE_DENSE_LIVE_MB: budget };
  const release = holdLiveVectors(root, env);
  try {
    const queries = [unit(r), unit(r), twin];
    const warmed = async (model: string) => {
      const live = liveVectorsFor(root, env, 'p', model)!;
      await live.warm();
      assert.ok(live.ready);
      return live;
    };
    // One model is held at a time (another replaces it): the other first, then the one the rest of the test keeps.
    const same = async () => {
      const db = openStoredVectors(root, env)!;
      const m = { db, provider: 'p', model: 'm', dims: DIMS };
      try {
        const other = await warmed('other');
        assert.deepEqual(other.scan(queries, 20), scanSections({ db, provider: 'p', model: 'other', dims: DIMS }, queries, { topK: 20 }));
        const live = await warmed('m');
        assert.equal(live.holdsSections, budget !== '0');
        assert.deepEqual(live.scan(queries, 50), scanSections(m, queries, { topK: 50 }));
        const some = ['a/n0.md', 'Z/n1.md', 'new/one.md', 'odd/short.md', 'missing.md', 'b/c/n5.md'];
        assert.deepEqual(live.noteVectors(some), noteVectors(m, some));
        assert.deepEqual(live.scan(queries, 50, 100), null);
      } finally {
        db.close();
      }
    };
    await same();
    const before = liveVectorsFor(root, env, 'p', 'm')!.stamp;
    assert.equal(liveVectorsFor(root, env, 'p', 'm')!.stamp, before, 'nothing changed: the same stamp');
    // Edited notes (a new hash and vectors), a deleted one, a new one: the next sync sees them all.
    w.transaction(() => {
      write('m', 'a/n0.md', 'h0-new', twin, new Float32Array(SECTIONS * DIMS).fill(0.25));
      write('m', 'Z/n1.md', 'h1-new', unit(r), new Float32Array(SECTIONS * DIMS).fill(-0.25));
      w.prepare('DELETE FROM notes WHERE provider = ? AND model = ? AND path = ?').run('p', 'm', 'é/n2.md');
      write('m', 'new/one.md', 'h-new', twin, new Float32Array(SECTIONS * DIMS).fill(0.5));
    })();
    assert.notEqual(liveVectorsFor(root, env, 'p', 'm')!.stamp, before);
    await same();
    // The store replaced on disk (removed and made again): reopened and read whole.
    w.close();
    fs.rmSync(path.join(path.dirname(liveVectorsFor(root, env, 'p', 'm')!.db!.name)), { recursive: true, force: true });
    assert.equal(liveVectorsFor(root, env, 'p', 'm')!.dims, null);
    const again = openVectorStore(root, env);
    again.prepare('INSERT INTO models(provider, model, dims, created_at, trained_notes) VALUES (?, ?, ?, ?, 0)').run('p', 'm', DIMS, 'x');
    again.prepare('INSERT INTO notes(provider, model, path, sha256, section_len, dense, sparse, section_dense) VALUES (?, ?, ?, ?, ?, ?, NULL, ?)').run('p', 'm', 'only.md', 'h', encodeLengths([1]), Buffer.from(twin.buffer), Buffer.from(twin.buffer));
    again.close();
    const first = liveVectorsFor(root, env, 'p', 'm')!;
    assert.equal(first.ready, false, 'a new store is loaded in slices: searches read the store meanwhile');
    const live = await warmed('m');
    assert.equal(live.notes, 1);
    assert.deepEqual(live.scan([twin], 5)!.top[0]!.map((s) => s.path), ['only.md']);
    release();
    assert.equal(liveVectorsFor(root, env, 'p', 'm'), null, 'released: a one-shot process holds no matrix');
  } finally {
    release();
    fs.rmSync(home, { recursive: true, force: true });
    fs.rmSync(root, { recursive: true, force: true });
  }
});
