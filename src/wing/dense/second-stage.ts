import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { SECTION_BITS, indexFile, type Db } from '../../index/index.js';
import { SECTION_COLUMNS, type SectionRow } from '../../retrieval/index.js';
import { checkConsent, embedConventions, embedRequestBody, endpointOf, headersOf, isLoopbackUrl, postToProvider } from '../providers/index.js';
import { normalize } from '../similar/sparse.js';
import { vectorStoreFile } from '../similar/vector-store.js';
import type { DenseConfig } from './config.js';
import { RRF_K, type Fused } from './fuse.js';
import { parseVectors } from './query-vectors.js';
import { sectionCosine, type NoteVectors } from './stored-vectors.js';

type Env = Record<string, string | undefined>;

/**
 * Experiments for a second retrieval stage after the fusion (issue 23): a
 * title intent signal (the query against each candidate note's title and
 * front-matter description: "how do I sync my vault to my phone" against a
 * guide titled "Sync your notes across devices"), and the expansion of the
 * best notes to every section they hold (the right note, the wrong section).
 * Both are off unless `search.embeddings` sets `title_weight` / `expand_notes`.
 */

/** The text a note's title vector is computed from: its file name, and its front-matter description when it has one. */
export function titleText(notePath: string, description: string | null): string {
  const name = path.posix.basename(notePath).replace(/\.md$/i, '');
  return description ? `${name}\n${description}` : name;
}

function textHash(text: string): string {
  return crypto.createHash('sha256').update(text).digest('hex').slice(0, 32);
}

/** Title vectors live beside the section vectors, in their own file (the similar store's schema is not touched). */
export function titleStoreFile(root: string, env: Env): string {
  return path.join(path.dirname(vectorStoreFile(root, env)), 'title-vectors.sqlite');
}

const TITLE_SCHEMA = `CREATE TABLE IF NOT EXISTS titles (
  provider TEXT NOT NULL,
  model    TEXT NOT NULL,
  path     TEXT NOT NULL,
  hash     TEXT NOT NULL,                   -- of titleText(): a renamed note or a new description is embedded again
  dense    BLOB NOT NULL,                   -- float32, normalised
  PRIMARY KEY (provider, model, path)
) STRICT, WITHOUT ROWID`;

/** Each note's description (front matter `description`), as a plain string, or null. */
function descriptions(db: Db, paths?: readonly string[]): Map<string, string> {
  const rows = db
    .prepare(`SELECT f.path, p.raw FROM properties p JOIN files f ON f.id = p.file_id WHERE p.key = 'description' AND f.kind = 'note'${paths ? ' AND f.path IN (SELECT value FROM json_each(?))' : ''}`)
    .all(...(paths ? [JSON.stringify(paths)] : [])) as { path: string; raw: string }[];
  const out = new Map<string, string>();
  for (const r of rows) {
    try {
      const v = JSON.parse(r.raw) as unknown;
      if (typeof v === 'string' && v.trim()) out.set(r.path, v.trim().slice(0, 500));
    } catch {
      // not JSON: no description
    }
  }
  return out;
}

export interface TitleFill {
  notes: number;
  embedded: number;
  took_ms: number;
}

/**
 * Embed every note title not stored yet (loopback providers only: titles are
 * note text). Batches of 32; resumable (each batch is committed).
 */
export async function fillTitleVectors(root: string, env: Env, cfg: DenseConfig): Promise<TitleFill> {
  const started = Date.now();
  const { model } = cfg;
  // Filling is a batch job, not a query: the provider's own patience, not the search's one short attempt.
  const spec = { ...cfg.spec, timeoutMs: 300_000, attempts: 3, backoffMs: 500 };
  const destination = endpointOf(spec, 'embed');
  if (!isLoopbackUrl(destination)) throw new Error(`title vectors: ${spec.name} is not on this machine`);
  const idx = new Database(indexFile(root, env), { readonly: true, fileMustExist: true });
  let notes: { path: string; text: string; hash: string }[];
  try {
    const paths = idx.prepare(`SELECT path FROM files WHERE kind = 'note' ORDER BY path`).pluck().all() as string[];
    const desc = descriptions(idx);
    notes = paths.map((p) => {
      const text = titleText(p, desc.get(p) ?? null);
      return { path: p, text, hash: textHash(text) };
    });
  } finally {
    idx.close();
  }
  const store = new Database(titleStoreFile(root, env), { timeout: 60_000 });
  try {
    store.pragma('journal_mode = WAL');
    store.exec(TITLE_SCHEMA);
    const have = new Map((store.prepare('SELECT path, hash FROM titles WHERE provider = ? AND model = ?').all(spec.name, cfg.storedModel) as { path: string; hash: string }[]).map((r) => [r.path, r.hash]));
    const todo = notes.filter((n) => have.get(n.path) !== n.hash);
    const put = store.prepare('INSERT OR REPLACE INTO titles (provider, model, path, hash, dense) VALUES (?, ?, ?, ?, ?)');
    const conventions = embedConventions(spec, model);
    for (let i = 0; i < todo.length; i += 32) {
      const batch = todo.slice(i, i + 32);
      const body = embedRequestBody(model, batch.map((n) => n.text), 'document', conventions);
      const outcome = checkConsent(root, env, { purpose: 'embed', provider: spec.name, kind: spec.kind, destination, model, files: batch.map((n) => ({ path: n.path, bytes: Buffer.byteLength(n.text) })), requests: [body], texts: batch.length }, { face: 'cli' });
      const res = await postToProvider(spec, destination, body, headersOf(spec, env), outcome);
      const vectors = parseVectors(spec.kind, res.json, batch.length);
      if (!vectors) throw new Error(`title vectors: ${spec.name} answered without ${batch.length} embeddings`);
      store.transaction(() => {
        batch.forEach((n, k) => {
          const v = normalize(Float32Array.from(vectors[k]!));
          put.run(spec.name, cfg.storedModel, n.path, n.hash, Buffer.from(v.buffer, v.byteOffset, v.byteLength));
        });
      })();
    }
    return { notes: notes.length, embedded: todo.length, took_ms: Date.now() - started };
  } finally {
    store.close();
  }
}

/** The stored title vectors of these notes whose title (and description) are still the ones embedded. */
export function readTitleVectors(root: string, env: Env, cfg: DenseConfig, db: Db, paths: readonly string[]): Map<string, Float32Array> {
  const out = new Map<string, Float32Array>();
  const file = titleStoreFile(root, env);
  if (paths.length === 0 || !fs.existsSync(file)) return out;
  const unique = [...new Set(paths)];
  const store = new Database(file, { readonly: true, fileMustExist: true, timeout: 5000 });
  try {
    const desc = descriptions(db, unique);
    const rows = store
      .prepare('SELECT path, hash, dense FROM titles WHERE provider = ? AND model = ? AND path IN (SELECT value FROM json_each(?))')
      .all(cfg.spec.name, cfg.storedModel, JSON.stringify(unique)) as { path: string; hash: string; dense: Buffer }[];
    for (const r of rows) {
      if (r.hash !== textHash(titleText(r.path, desc.get(r.path) ?? null))) continue;
      const copy = new Uint8Array(r.dense.byteLength);
      copy.set(r.dense);
      out.set(r.path, new Float32Array(copy.buffer));
    }
  } catch {
    // no table yet, or locked: no title signal for this query
  } finally {
    store.close();
  }
  return out;
}

function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

/**
 * A third ranking fused into the first two: the candidate notes ordered by how
 * close the query is to their title, each item scored `weight / (k + rank)` by
 * its note's place. A note without a title vector takes its place in the fused
 * order instead (neither lifted nor sunk, as fuseRanks treats a missing vector).
 */
export function addTitleRanking<K>(fused: Fused<K>[], noteOf: (key: K) => string, titles: Map<string, Float32Array>, q: Float32Array, weight: number, k = RRF_K): Fused<K>[] {
  if (weight <= 0 || fused.length === 0) return fused;
  const notes: string[] = [];
  for (const f of fused) {
    const p = noteOf(f.key);
    if (!notes.includes(p)) notes.push(p);
  }
  const byTitle = notes.filter((p) => titles.has(p)).sort((a, b) => dot(titles.get(b)!, q) - dot(titles.get(a)!, q));
  const rank = new Map<string, number>();
  byTitle.forEach((p, i) => rank.set(p, i + 1));
  notes.forEach((p, i) => {
    if (!rank.has(p)) rank.set(p, i + 1);
  });
  const scored = fused.map((f, order) => ({ f: { ...f, score: f.score + weight / (k + rank.get(noteOf(f.key))!) }, order }));
  scored.sort((a, b) => b.f.score - a.f.score || a.order - b.order);
  return scored.map((s) => s.f);
}

/**
 * Every other section of the given notes, with its stored vector's cosine: the
 * sections the lexical choice left out of a note the fusion ranks high (its
 * best sections by words are not always the one that answers). Only notes whose
 * stored vectors are current; empty sections never.
 */
export function expandNoteSections(db: Db, vecs: Map<string, NoteVectors>, notePaths: readonly string[], have: ReadonlySet<number>, dims: number, q: Float32Array): { row: SectionRow; cosine: number }[] {
  const stmt = db.prepare(`SELECT ${SECTION_COLUMNS}, s.empty FROM files f JOIN sections s ON s.id BETWEEN f.id * ${2 ** SECTION_BITS} AND f.id * ${2 ** SECTION_BITS} + ${2 ** SECTION_BITS - 1} WHERE f.path = ? AND f.kind = 'note' AND f.sha256 = ? ORDER BY s.id`);
  const out: { row: SectionRow; cosine: number }[] = [];
  for (const p of notePaths) {
    const v = vecs.get(p);
    if (!v) continue;
    for (const row of stmt.all(p, v.sha256) as (SectionRow & { empty: number })[]) {
      if (row.empty !== 0 || have.has(row.id)) continue;
      const c = sectionCosine(v, row.id & (2 ** SECTION_BITS - 1), dims, q);
      if (c !== null) out.push({ row, cosine: c });
    }
  }
  return out;
}

/**
 * The lexical ranking with, in each expanded note, its weakest section by the
 * dense side swapped for the note's best left-out section when that one is
 * closer to the query: the note keeps its place and its number of sections
 * (adding sections instead crowded the next notes out of the first five, eval dev).
 */
export function withNoteSections(lexical: readonly { sectionId: number; path: string }[], cosines: ReadonlyMap<number, number>, expanded: readonly { row: SectionRow; cosine: number }[]): number[] {
  const bestLeftOut = new Map<string, { row: SectionRow; cosine: number }>();
  for (const s of expanded) if ((bestLeftOut.get(s.row.path)?.cosine ?? -Infinity) < s.cosine) bestLeftOut.set(s.row.path, s);
  const out = lexical.map((c) => c.sectionId);
  for (const [p, s] of bestLeftOut) {
    let weakest = -1;
    lexical.forEach((c, i) => {
      if (c.path === p && (weakest < 0 || (cosines.get(c.sectionId) ?? Infinity) < (cosines.get(lexical[weakest]!.sectionId) ?? Infinity))) weakest = i;
    });
    if (weakest >= 0 && (cosines.get(lexical[weakest]!.sectionId) ?? Infinity) < s.cosine) out[weakest] = s.row.id;
  }
  return out;
}
