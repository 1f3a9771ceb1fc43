import fs from 'node:fs';
import Database from 'better-sqlite3';
import { VECTOR_SCHEMA_VERSION, vectorStoreFile } from '../similar/vector-store.js';

type Env = Record<string, string | undefined>;

/**
 * Reading the section vectors `similar --provider` stored (src/wing/similar,
 * `vectors.sqlite`): search never embeds a section, it only reads what is there.
 * Per (provider, model, note) the store holds the note's hash at embedding time
 * and every section's normalised vector, in section order, in one blob; a note
 * whose hash differs from the index's has changed since and its vectors are not
 * used (they describe other text).
 */

const APPLICATION_ID = 0x56475643; // 'VGVC', as vector-store.ts

export type StoredVectors = Database.Database;

/** The store read-only, or null when there is none (nothing embedded yet) or it is not one this build reads. Never creates it. */
export function openStoredVectors(root: string, env: Env): StoredVectors | null {
  const file = vectorStoreFile(root, env);
  if (!fs.existsSync(file)) return null;
  let db: StoredVectors | undefined;
  try {
    db = new Database(file, { readonly: true, fileMustExist: true, timeout: 5000 });
    const app = db.pragma('application_id', { simple: true }) as number;
    const ver = db.pragma('user_version', { simple: true }) as number;
    // v3 (before the similar store split its LSA tables out) holds provider vectors
    // in the same columns this reader uses: fusion works before the first
    // `similar` upgrades the file in place.
    if (app === APPLICATION_ID && (ver === VECTOR_SCHEMA_VERSION || ver === 3)) return db;
  } catch {
    // damaged or locked: the lexical answer stands; `similar` recreates a damaged store
  }
  db?.close();
  return null;
}

export function storedDims(db: StoredVectors, provider: string, model: string): number | null {
  return (db.prepare('SELECT dims FROM models WHERE provider = ? AND model = ?').pluck().get(provider, model) as number | undefined) ?? null;
}

/** A note's stored section vectors: `count` vectors of `dims`, normalised (all zeros: a section without text). */
export interface NoteVectors {
  sha256: string;
  vectors: Float32Array;
  count: number;
}

function decode(buf: Buffer): Float32Array {
  // Copy: SQLite's buffer need not be 4-byte aligned.
  const copy = new Uint8Array(buf.byteLength);
  copy.set(buf);
  return new Float32Array(copy.buffer);
}

/** Which stored vectors: one provider's model in a store, with its vector length. */
export interface StoredModel {
  db: StoredVectors;
  provider: string;
  model: string;
  dims: number;
}

/** Stored vectors of the given notes (those embedded at all), one row each. */
export function noteVectors(stored: StoredModel, paths: readonly string[]): Map<string, NoteVectors> {
  const { db, provider, model, dims } = stored;
  const out = new Map<string, NoteVectors>();
  if (paths.length === 0) return out;
  const rows = db
    .prepare('SELECT path, sha256, section_dense FROM notes WHERE provider = ? AND model = ? AND path IN (SELECT value FROM json_each(?))')
    .all(provider, model, JSON.stringify([...new Set(paths)])) as { path: string; sha256: string; section_dense: Buffer }[];
  for (const r of rows) {
    const vectors = decode(r.section_dense);
    out.set(r.path, { sha256: r.sha256, vectors, count: Math.floor(vectors.length / dims) });
  }
  return out;
}

/** Cosine of section `idx` with a normalised query vector (both normalised: a dot product); null when it has no vector. */
export function sectionCosine(v: NoteVectors, idx: number, dims: number, q: Float32Array): number | null {
  if (idx < 0 || idx >= v.count) return null;
  let s = 0;
  let sq = 0;
  const o = idx * dims;
  for (let i = 0; i < dims; i++) {
    const x = v.vectors[o + i]!;
    s += x * q[i]!;
    sq += x * x;
  }
  return sq === 0 ? null : s;
}

export interface ScannedSection {
  path: string;
  sha256: string;
  idx: number;
  cosine: number;
}

export interface ScanResult {
  /** Per query, the best sections of the best notes, best first. */
  top: ScannedSection[][];
  /** Note vectors compared (per query). */
  scanned: number;
}

/** Notes per query whose sections are scored after the note-level pass. */
export const SCAN_NOTE_POOL = 200;

/**
 * The best notes of one query by their note vector, as the scan's first pass
 * keeps them: offered in the store's row order, the first {@link SCAN_NOTE_POOL}
 * by cosine (ties: the note offered first), a cosine of exactly 0 never (an
 * empty note). Shared by the scan over SQLite and the one over a live matrix
 * (live-vectors.ts), so both choose the same notes.
 */
export class NotePool {
  readonly #pool: { path: string; cosine: number }[] = [];
  #floor = -Infinity;

  offer(path: string, dot: number): void {
    if (dot === 0 || dot <= this.#floor) return;
    this.#pool.push({ path, cosine: dot });
    if (this.#pool.length > SCAN_NOTE_POOL * 4) {
      this.#pool.sort((a, b) => b.cosine - a.cosine);
      this.#pool.length = SCAN_NOTE_POOL;
      this.#floor = this.#pool[SCAN_NOTE_POOL - 1]!.cosine;
    }
  }

  /** The kept notes' paths, best first. */
  best(): string[] {
    return this.#pool.sort((a, b) => b.cosine - a.cosine).slice(0, SCAN_NOTE_POOL).map((p) => p.path);
  }
}

/** The second pass: every section of the pool's notes against the query, the best `topK` (ties: path, then position). */
export function bestSections(vecs: Map<string, NoteVectors>, dims: number, q: Float32Array, topK: number): ScannedSection[] {
  const list: ScannedSection[] = [];
  for (const [path, v] of vecs) {
    for (let s = 0; s < v.count; s++) {
      const c = sectionCosine(v, s, dims, q);
      if (c !== null) list.push({ path, sha256: v.sha256, idx: s, cosine: c });
    }
  }
  list.sort((a, b) => b.cosine - a.cosine || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.idx - b.idx));
  return list.slice(0, topK);
}

/**
 * Dot product of a stored note vector at `offset` in `m` with a query (the
 * first pass's inner loop). Unrolled by four with one accumulator: the sums are
 * added in the same order as a plain loop (so the same bits, the same ranking),
 * ~25% less time at 10k notes × 384 dims.
 */
export function dotAt(m: Float32Array, offset: number, q: Float32Array, dims: number): number {
  let dot = 0;
  let i = 0;
  for (; i + 3 < dims; i += 4) {
    dot += m[offset + i]! * q[i]!;
    dot += m[offset + i + 1]! * q[i + 1]!;
    dot += m[offset + i + 2]! * q[i + 2]!;
    dot += m[offset + i + 3]! * q[i + 3]!;
  }
  for (; i < dims; i++) dot += m[offset + i]! * q[i]!;
  return dot;
}

/**
 * The best stored sections for each query, in two passes: every note's own
 * vector (the mean of its sections', stored beside them) against the query,
 * then the sections of the {@link SCAN_NOTE_POOL} best notes. The first pass
 * reads one vector per note and never the section blobs (the last column of
 * the row: SQLite does not follow its overflow pages), so a 10k-note store
 * costs a fifth of a scan over every section (measured: bench/dense.bench.ts).
 * A section that matches strongly in a note whose other sections are far off
 * can be missed; the lexical side still finds it by its words.
 * Returns null (having read `maxNotes` rows) when the store holds more than `maxNotes` notes.
 * A long-lived face scans its live matrix instead (live-vectors.ts), with the same result.
 */
export function scanSections(stored: StoredModel, queries: readonly Float32Array[], bound: { topK: number; maxNotes?: number }): ScanResult | null {
  const { db, provider, model, dims } = stored;
  const { topK, maxNotes = Infinity } = bound;
  // No count(*) first: on this table it reads every record (measured ~100 ms at 10k notes); the bound is checked while scanning.
  let notes = 0;
  const pools = queries.map(() => new NotePool());
  const stmt = db.prepare('SELECT path, dense FROM notes WHERE provider = ? AND model = ?');
  for (const r of stmt.iterate(provider, model) as Iterable<{ path: string; dense: Buffer }>) {
    if (++notes > maxNotes) return null;
    const v = decode(r.dense);
    if (v.length !== dims) continue;
    for (let qi = 0; qi < queries.length; qi++) pools[qi]!.offer(r.path, dotAt(v, 0, queries[qi]!, dims));
  }
  const top = queries.map((q, qi) => bestSections(noteVectors(stored, pools[qi]!.best()), dims, q, topK));
  return { top, scanned: notes };
}

/**
 * Every stored note of a model, in the store's row order (path order), with
 * its hash: what a live matrix compares with what it holds. Reads no vector.
 */
export function storedNoteList(db: StoredVectors, provider: string, model: string): { path: string; sha256: string }[] {
  return db.prepare('SELECT path, sha256 FROM notes WHERE provider = ? AND model = ?').all(provider, model) as { path: string; sha256: string }[];
}

/** The note vectors (not the sections') of the given notes, with their hash; a vector of another length than `dims` is null. */
export function storedNoteVectors(stored: StoredModel, paths: readonly string[]): Map<string, { sha256: string; vector: Float32Array | null }> {
  const { db, provider, model, dims } = stored;
  const out = new Map<string, { sha256: string; vector: Float32Array | null }>();
  if (paths.length === 0) return out;
  const rows = db
    .prepare('SELECT path, sha256, dense FROM notes WHERE provider = ? AND model = ? AND path IN (SELECT value FROM json_each(?))')
    .all(provider, model, JSON.stringify([...new Set(paths)])) as { path: string; sha256: string; dense: Buffer }[];
  for (const r of rows) {
    const v = decode(r.dense);
    out.set(r.path, { sha256: r.sha256, vector: v.length === dims ? v : null });
  }
  return out;
}

/** SQLite's count of commits by other connections: unchanged means the store is as this connection last read it. */
export function storeVersion(db: StoredVectors): number {
  return db.pragma('data_version', { simple: true }) as number;
}
