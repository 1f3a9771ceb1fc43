import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { indexFile, isCorruptionError } from '../../index/index.js';
import { dataRoots, privateDir, privateFile } from '../../vault/index.js';
import { decodeDense, encodeDense, encodeSectionVectors } from './sparse.js';

type Env = Record<string, string | undefined>;
export type VectorDb = Database.Database;

/**
 * Section vectors, in `vectors.sqlite` beside the index in the cache root
 * (disposable, like the index: a foreign, old or damaged file is recreated).
 * Vectors are keyed by (provider, model, input hash), so an unchanged section
 * is never embedded twice, a killed run keeps what it stored, and a rebuilt
 * index finds its vectors again. A file of its own rather than tables in the
 * index: the index is rebuilt whenever its schema changes, and embedding a
 * vault through a provider can take far longer than indexing it.
 *
 * - `models`: an LSA model (its parameters apart, read on every run; the
 *   body — vocabulary, idf, projection — read only to fold notes in) or a
 *   provider model's dims;
 * - `vectors`: one row per embedded section input of a provider: its dense
 *   vector (LSA keeps none: projecting a section costs less than looking it up);
 * - `notes`: per (provider, model, note): the hash it was embedded at, its
 *   note-level vectors, its sections' lengths and normalised vectors in one
 *   blob — everything scoring reads, one row per note, the note vector first
 *   (a scan of note vectors alone never reads the section blob);
 * - `note_sections`: per note, its sections' heading paths and lines (JSON),
 *   read only for the notes a command shows.
 *
 * Version 4 split the sections' JSON out of `notes` and gave LSA's parameters
 * a column. A version-3 store is upgraded in place on open: provider vectors
 * are kept (embedding them again may cost hours), LSA's rows are dropped and
 * its model retrained by the next `similar`.
 */
export const VECTOR_SCHEMA_VERSION = 4;
const APPLICATION_ID = 0x56475643; // 'VGVC'

const MODELS_TABLE = `
CREATE TABLE models (
  provider TEXT NOT NULL,
  model    TEXT NOT NULL,
  dims     INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  trained_notes INTEGER NOT NULL,
  folded_notes  INTEGER NOT NULL DEFAULT 0,  -- notes embedded since training (LSA retrains past a share)
  params   TEXT,                            -- LSA: its parameters (JSON); before body, so reading it skips body
  body     BLOB,                            -- LSA: vocabulary, idf, projection
  PRIMARY KEY (provider, model)
) STRICT;
`;

// A rowid table: a note's row (~5 KB at 150 dims) overflows a WITHOUT ROWID b-tree's
// ~1 KB of local payload into a chain of pages, a rowid table's 4 KB into one or two.
const NOTES_TABLES = `
CREATE TABLE notes (
  provider TEXT NOT NULL,
  model    TEXT NOT NULL,
  path     TEXT NOT NULL,
  sha256   TEXT NOT NULL,
  dense    BLOB NOT NULL,                   -- the note's vector, normalised
  sparse   BLOB,                            -- LSA: the note's sparse vector (sparse.ts encodeSparse)
  section_len   BLOB NOT NULL,              -- int32 per section: its length (0: the section has no vector)
  section_dense BLOB NOT NULL,              -- every section's vector, normalised, concatenated (zeros: no vector)
  UNIQUE (provider, model, path)
) STRICT;
-- What a refresh compares with the index (every note's hash), without reading the rows.
CREATE INDEX notes_hash ON notes(provider, model, path, sha256);
CREATE TABLE note_sections (
  provider TEXT NOT NULL,
  model    TEXT NOT NULL,
  path     TEXT NOT NULL,
  sections TEXT NOT NULL,                   -- JSON [{heading_path, lines, …}], in section order
  PRIMARY KEY (provider, model, path)
) STRICT, WITHOUT ROWID;
`;

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
${MODELS_TABLE}
CREATE TABLE vectors (
  provider TEXT NOT NULL,
  model    TEXT NOT NULL,
  hash     TEXT NOT NULL,
  dense    BLOB NOT NULL,                   -- float32 × dims, as computed (not normalised)
  sparse   BLOB,                            -- unused (NULL): sections keep only their dense vector
  PRIMARY KEY (provider, model, hash)
) STRICT, WITHOUT ROWID;
${NOTES_TABLES}
`;

export function vectorStoreFile(root: string, env: Env): string {
  return path.join(path.dirname(indexFile(root, env)), 'vectors.sqlite');
}

export function openVectorStore(root: string, env: Env): VectorDb {
  const file = vectorStoreFile(root, env);
  privateDir(path.dirname(file), dataRoots(env).cache);
  for (let attempt = 0; attempt < 2; attempt++) {
    let db: VectorDb | undefined;
    try {
      db = new Database(file, { timeout: 60_000 });
      privateFile(file);
      const app = db.pragma('application_id', { simple: true }) as number;
      const ver = db.pragma('user_version', { simple: true }) as number;
      const objects = db.prepare('SELECT count(*) FROM sqlite_schema').pluck().get() as number;
      if (app === APPLICATION_ID && (ver === VECTOR_SCHEMA_VERSION || ver === 3)) {
        db.pragma('journal_mode = WAL');
        if (ver === 3) upgradeFrom3(db);
        return tuned(db);
      }
      if (app === 0 && ver === 0 && objects === 0) {
        db.pragma('journal_mode = WAL');
        db.transaction(() => {
          if ((db!.prepare('SELECT count(*) FROM sqlite_schema').pluck().get() as number) > 0) return;
          db!.exec(SCHEMA);
          db!.pragma(`application_id = ${APPLICATION_ID}`);
          db!.pragma(`user_version = ${VECTOR_SCHEMA_VERSION}`);
        }).immediate();
        return tuned(db);
      }
      db.close();
      discard(file);
    } catch (e) {
      db?.close();
      if (!isCorruptionError(e)) throw e;
      discard(file);
    }
  }
  throw new Error(`could not create ${file}`);
}

function tuned(db: VectorDb): VectorDb {
  db.pragma('synchronous = NORMAL');
  return db;
}

/**
 * Scoring reads every note's vectors (~50 MB at 10k notes): through a memory
 * map it costs about half what reading the pages into SQLite's cache does —
 * but the mapped pages count in the process's resident memory. Worth it for a
 * warm `similar`, whose footprint is small; not right after (re)training,
 * whose peak it would raise by the size of the store.
 */
export function mapForScan(db: VectorDb): void {
  db.pragma(`mmap_size = ${1 << 30}`);
}

function discard(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
}

export function getMeta(db: VectorDb, key: string): string | null {
  return (db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined) ?? null;
}

export function setMeta(db: VectorDb, key: string, value: string): void {
  db.prepare('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
}

/**
 * Version 3 → 4, in one transaction (another process may be doing the same:
 * whoever comes second finds it done). Provider notes keep their vectors,
 * their sections' JSON moving to `note_sections` and their lengths to
 * `section_len`; LSA's model, notes and (unused) section vectors are dropped.
 */
function upgradeFrom3(db: VectorDb): void {
  db.transaction(() => {
    if ((db.pragma('user_version', { simple: true }) as number) !== 3) return;
    db.exec(`DELETE FROM vectors WHERE provider = 'lsa';
      ALTER TABLE notes RENAME TO notes_v3;
      ALTER TABLE models RENAME TO models_v3;
      ${MODELS_TABLE}
      INSERT INTO models(provider, model, dims, created_at, trained_notes, folded_notes, params, body)
        SELECT provider, model, dims, created_at, trained_notes, folded_notes, NULL, body FROM models_v3 WHERE provider != 'lsa';
      DROP TABLE models_v3;
      DELETE FROM meta WHERE key = 'lsa_model';
      ${NOTES_TABLES}`);
    const put = db.prepare('INSERT INTO notes(provider, model, path, sha256, dense, sparse, section_len, section_dense) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
    const putSections = db.prepare('INSERT INTO note_sections(provider, model, path, sections) VALUES (?, ?, ?, ?)');
    const rows = db.prepare(`SELECT provider, model, path, sha256, sections, dense, sparse, section_dense FROM notes_v3 WHERE provider != 'lsa'`).all() as (StoredNoteKey & { sha256: string; sections: string; dense: Buffer; sparse: Buffer | null; section_dense: Buffer })[];
    for (const r of rows) {
      const sections = JSON.parse(r.sections) as { len: number }[];
      const all = decodeDense(r.section_dense);
      const dims = sections.length ? all.length / sections.length : 0;
      const lens = sections.map((s, i) => (all.subarray(i * dims, (i + 1) * dims).some((x) => x !== 0) ? s.len : 0));
      put.run(r.provider, r.model, r.path, r.sha256, r.dense, r.sparse, encodeLengths(lens), r.section_dense);
      putSections.run(r.provider, r.model, r.path, r.sections);
    }
    db.exec('DROP TABLE notes_v3');
    db.pragma(`user_version = ${VECTOR_SCHEMA_VERSION}`);
  }).immediate();
}

interface StoredNoteKey {
  provider: string;
  model: string;
  path: string;
}

/** A note's row in `notes` and `note_sections`: what a refresh writes for it. */
export interface StoredNote {
  path: string;
  sha256: string;
  /** Normalised. */
  dense: Float32Array;
  sparse: Buffer | null;
  /** Per section: its length, 0 when it has no vector. */
  lengths: readonly number[];
  /** Per section, normalised (or null: no vector). */
  sections: readonly (Float32Array | null)[];
  /** JSON of the sections' heading paths and lines (and whatever else the provider keeps). */
  sectionsJson: string;
}

/** Statements that write and delete notes' rows. */
export function noteWriter(db: VectorDb, provider: string, model: string, dims: number): { put: (n: StoredNote) => void; drop: (path: string) => void } {
  const put = db.prepare('INSERT OR REPLACE INTO notes(provider, model, path, sha256, dense, sparse, section_len, section_dense) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  const putSections = db.prepare('INSERT OR REPLACE INTO note_sections(provider, model, path, sections) VALUES (?, ?, ?, ?)');
  const del = db.prepare('DELETE FROM notes WHERE provider = ? AND model = ? AND path = ?');
  const delSections = db.prepare('DELETE FROM note_sections WHERE provider = ? AND model = ? AND path = ?');
  return {
    put: (n) => {
      put.run(provider, model, n.path, n.sha256, encodeDense(n.dense), n.sparse, encodeLengths(n.lengths), encodeSectionVectors(n.sections, dims));
      putSections.run(provider, model, n.path, n.sectionsJson);
    },
    drop: (path) => {
      del.run(provider, model, path);
      delSections.run(provider, model, path);
    },
  };
}

/** Every note row of a provider, gone (before a retrain). */
export function dropProviderNotes(db: VectorDb, provider: string): void {
  db.prepare('DELETE FROM notes WHERE provider = ?').run(provider);
  db.prepare('DELETE FROM note_sections WHERE provider = ?').run(provider);
}

export function encodeLengths(lens: readonly number[]): Buffer {
  return Buffer.from(Int32Array.from(lens).buffer);
}
