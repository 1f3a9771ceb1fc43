import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { indexFile, isCorruptionError } from '../index/index.js';
import { dataRoots, privateDir, privateFile } from '../vault/index.js';

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
 * - `models`: an LSA model (vocabulary, idf, projection) or a provider model's dims;
 * - `vectors`: one row per embedded section input: its dense vector;
 * - `notes`: per (provider, model, note): the hash it was embedded at, its
 *   sections (heading path, lines, input hash, length), its note-level vectors
 *   and its sections' normalised vectors in one blob — what a query reads, one
 *   row per note (reading 50k section rows cost seconds on a 10k-note vault).
 */
export const VECTOR_SCHEMA_VERSION = 3;
const APPLICATION_ID = 0x56475643; // 'VGVC'

const SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE models (
  provider TEXT NOT NULL,
  model    TEXT NOT NULL,
  dims     INTEGER NOT NULL,
  created_at TEXT NOT NULL,
  trained_notes INTEGER NOT NULL,
  folded_notes  INTEGER NOT NULL DEFAULT 0,  -- notes embedded since training (LSA retrains past a share)
  body     BLOB,                            -- LSA: vocabulary, idf, projection
  PRIMARY KEY (provider, model)
) STRICT;
CREATE TABLE vectors (
  provider TEXT NOT NULL,
  model    TEXT NOT NULL,
  hash     TEXT NOT NULL,
  dense    BLOB NOT NULL,                   -- float32 × dims, as computed (not normalised)
  sparse   BLOB,                            -- unused (NULL): sections keep only their dense vector
  PRIMARY KEY (provider, model, hash)
) STRICT, WITHOUT ROWID;
CREATE TABLE notes (
  provider TEXT NOT NULL,
  model    TEXT NOT NULL,
  path     TEXT NOT NULL,
  sha256   TEXT NOT NULL,
  sections TEXT NOT NULL,                   -- JSON [{heading_path, lines, hash, len}]
  dense    BLOB NOT NULL,                   -- the note's vector, normalised
  sparse   BLOB,
  section_dense BLOB NOT NULL,              -- every section's vector, normalised, concatenated (zeros: no vector)
  PRIMARY KEY (provider, model, path)
) STRICT, WITHOUT ROWID;
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
      if (app === APPLICATION_ID && ver === VECTOR_SCHEMA_VERSION) {
        db.pragma('journal_mode = WAL');
        db.pragma('synchronous = NORMAL');
        return db;
      }
      if (app === 0 && ver === 0 && objects === 0) {
        db.pragma('journal_mode = WAL');
        db.transaction(() => {
          if ((db!.prepare('SELECT count(*) FROM sqlite_schema').pluck().get() as number) > 0) return;
          db!.exec(SCHEMA);
          db!.pragma(`application_id = ${APPLICATION_ID}`);
          db!.pragma(`user_version = ${VECTOR_SCHEMA_VERSION}`);
        }).immediate();
        db.pragma('synchronous = NORMAL');
        return db;
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

function discard(file: string): void {
  for (const f of [file, `${file}-wal`, `${file}-shm`]) fs.rmSync(f, { force: true });
}

export function getMeta(db: VectorDb, key: string): string | null {
  return (db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined) ?? null;
}

export function setMeta(db: VectorDb, key: string, value: string): void {
  db.prepare('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
}

/** What the `notes` table holds per note. */
export interface StoredNote {
  path: string;
  sha256: string;
  sections: { heading_path: string[]; lines: [number, number]; hash: string; len: number }[];
  dense: Buffer;
  sparse: Buffer | null;
  section_dense: Buffer;
}
