import fs from 'node:fs';
import Database from 'better-sqlite3';
import { VECTOR_SCHEMA_VERSION, vectorStoreFile } from '../similar/vector-store.js';

type Env = Record<string, string | undefined>;

/**
 * Reading the section vectors `similar --provider` stored (src/similar,
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
    if (app === APPLICATION_ID && ver === VECTOR_SCHEMA_VERSION) return db;
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

/** Stored vectors of the given notes (those embedded at all), one row each. */
export function noteVectors(db: StoredVectors, provider: string, model: string, dims: number, paths: readonly string[]): Map<string, NoteVectors> {
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
  /** Per query, the best sections over every stored vector, best first. */
  top: ScannedSection[][];
  /** Section vectors compared (per query). */
  scanned: number;
}

/** Bytes of all stored section vectors of a model: `length()` of a blob is read from its header, the vectors stay on disk. */
export function storedSectionCount(db: StoredVectors, provider: string, model: string, dims: number): number {
  const bytes = (db.prepare('SELECT coalesce(sum(length(section_dense)), 0) FROM notes WHERE provider = ? AND model = ?').pluck().get(provider, model) as number) ?? 0;
  return Math.floor(bytes / 4 / dims);
}

/**
 * Brute-force cosine of each query against every stored section vector, keeping
 * the `topK` best per query. Linear in the stored vectors (measured in
 * docs/similar.md); the caller bounds it by `max_scan_sections`.
 */
export function scanSections(db: StoredVectors, provider: string, model: string, dims: number, queries: readonly Float32Array[], topK: number): ScanResult {
  const top: ScannedSection[][] = queries.map(() => []);
  const floor = queries.map(() => -Infinity);
  let scanned = 0;
  const stmt = db.prepare('SELECT path, sha256, section_dense FROM notes WHERE provider = ? AND model = ?');
  for (const r of stmt.iterate(provider, model) as Iterable<{ path: string; sha256: string; section_dense: Buffer }>) {
    const v = decode(r.section_dense);
    const count = Math.floor(v.length / dims);
    scanned += count;
    for (let s = 0; s < count; s++) {
      const o = s * dims;
      for (let qi = 0; qi < queries.length; qi++) {
        const q = queries[qi]!;
        let dot = 0;
        for (let i = 0; i < dims; i++) dot += v[o + i]! * q[i]!;
        // A section without text has a zero vector: never a match.
        if (dot === 0 || dot <= floor[qi]!) continue;
        const list = top[qi]!;
        list.push({ path: r.path, sha256: r.sha256, idx: s, cosine: dot });
        if (list.length > topK * 4) {
          list.sort((a, b) => b.cosine - a.cosine);
          list.length = topK;
          floor[qi] = list[topK - 1]!.cosine;
        }
      }
    }
  }
  for (const list of top) {
    list.sort((a, b) => b.cosine - a.cosine || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.idx - b.idx));
    if (list.length > topK) list.length = topK;
  }
  return { top, scanned };
}
