import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { VaultgateError } from '../errors.js';
import { dataRoots, privateDir, privateFile, vaultCacheKey } from '../vault/index.js';
import { APPLICATION_ID, FTS_TABLES, INDEXES_SQL, SCHEMA_VERSION, TABLES_SQL } from './schema.js';

export type Db = Database.Database;

/*
 * better-sqlite3 is imported statically: the CLI's bundles carry its JavaScript
 * (scripts/bundle.mjs), where this module is initialised only when a command
 * first needs the index, and the package loads its native addon only when the
 * first connection opens. The CLI's entry must still not reach it
 * (test/e2e/startup-graph.test.ts).
 */
type Env = Record<string, string | undefined>;

/**
 * How long a connection waits for another process's write transaction (a
 * refresher) before giving up with LOCK_BUSY. Generous: a cold index of a big
 * vault holds the write lock while it runs, and a reader would rather wait for a
 * fresh index than fail.
 */
export const BUSY_TIMEOUT_MS = 120_000;

export interface IndexHandle {
  db: Db;
  /** The vault root this index describes. */
  root: string;
  /** The database file. */
  file: string;
  /** Why the file was (re)created on open, if it was: 'new' | 'schema' | 'foreign' | 'corrupt'. */
  created: null | 'new' | 'schema' | 'foreign' | 'corrupt';
}

/** `<cache>/<vault id or path hash>/index.sqlite` (DESIGN §3); VAULTGATE_HOME relocates it. */
export function indexFile(root: string, env: Env = process.env): string {
  return path.join(dataRoots(env).cache, vaultCacheKey(root, env), 'index.sqlite');
}

/** SQLite errors that mean the file cannot be trusted: rebuild it from the vault. */
export function isCorruptionError(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return code === 'SQLITE_CORRUPT' || code === 'SQLITE_NOTADB' || code === 'SQLITE_CORRUPT_VTAB' || code === 'SQLITE_CORRUPT_INDEX';
}

export function isBusyError(e: unknown): boolean {
  const code = (e as { code?: unknown })?.code;
  return typeof code === 'string' && (code.startsWith('SQLITE_BUSY') || code.startsWith('SQLITE_LOCKED'));
}

/**
 * Move a bad cache file out of the way. The -wal, -shm and -journal files go
 * too: a stale WAL or hot journal left beside a fresh database would be
 * replayed into it (sqlite.org howtocorrupt: mispairing database files and hot
 * journals). Renaming first means a concurrent opener never sees half.
 */
export function discardIndexFile(file: string): void {
  const aside = `${file}.discarded-${process.pid}-${Date.now()}`;
  try {
    fs.renameSync(file, aside);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  for (const f of [aside, `${file}-wal`, `${file}-shm`, `${file}-journal`]) fs.rmSync(f, { force: true });
}

type Verdict = 'ok' | 'empty' | 'schema' | 'foreign';

function inspect(db: Db): Verdict {
  const appId = db.pragma('application_id', { simple: true }) as number;
  const version = db.pragma('user_version', { simple: true }) as number;
  if (appId === APPLICATION_ID) {
    if (version !== SCHEMA_VERSION) return 'schema';
    const meta = db.prepare(`SELECT value FROM meta WHERE key = 'schema'`).pluck().get();
    return meta === String(SCHEMA_VERSION) ? 'ok' : 'foreign';
  }
  const objects = db.prepare(`SELECT count(*) FROM sqlite_schema`).pluck().get() as number;
  return appId === 0 && version === 0 && objects === 0 ? 'empty' : 'foreign';
}

/**
 * Page cache per connection, in KiB (a ceiling, not an allocation). SQLite's 2 MB
 * default makes a cold index spill pages to the WAL and read them back: on
 * frontend-vault-ru (19 MB of notes) 64 MB halves the wall time of a cold index.
 */
export const CACHE_KIB = 65_536;

/**
 * The page cache while a big batch is written ({@link bulkCache}). Measured on
 * a cold index (2 cores, loaded): frontend-vault-ru 5.4–6.0 s either way, 190 →
 * 170 MB peak RSS; 100k synthetic notes 117 s CPU with 32 MB vs 124 s with 64 MB,
 * peak RSS 305 → 273 MB; 16 MB costs time (134 s CPU) for 17 MB less.
 */
const BULK_CACHE_KIB = 32_768;

/**
 * The smaller page cache of a bulk load (`on`), or back to the usual one: past
 * 32 MB the cache only adds to the peak memory of a big build, not to its
 * speed. Reads keep the full cache (a long-lived session re-reads the same FTS
 * pages).
 */
export function bulkCache(db: Db, on: boolean): void {
  db.pragma(`cache_size = -${on ? BULK_CACHE_KIB : CACHE_KIB}`);
}

function connect(file: string, busyTimeoutMs = BUSY_TIMEOUT_MS): Db {
  const db = new Database(file, { timeout: busyTimeoutMs });
  db.pragma('foreign_keys = ON');
  db.pragma(`cache_size = -${CACHE_KIB}`);
  return db;
}

/**
 * Create the schema in an empty file; a racing opener that got there first wins and we re-inspect.
 *
 * The file stays in SQLite's default rollback-journal mode until its first
 * refresh has loaded the vault ({@link ensureWal}): in WAL mode every page of
 * the load is written twice, into the WAL and again into the file by the
 * checkpoint when the transaction ends, while a rollback journal keeps only
 * the few pages the file had before (pages past its end are not journaled).
 * 10k synthetic notes, cold index: the checkpoint alone was ~0.33 s of wall
 * time (0.15–0.19 s of CPU, the rest its fsync), and the load's tail ran ~0.1 s
 * faster reading pages from the file rather than through the WAL. A crash
 * mid-load leaves a hot journal, which the next opener rolls back.
 */
function initialise(db: Db, root: string): void {
  db.transaction(() => {
    if (inspect(db) !== 'empty') return;
    db.exec(TABLES_SQL);
    const put = db.prepare('INSERT INTO meta(key, value) VALUES (?, ?)');
    put.run('schema', String(SCHEMA_VERSION));
    // Secondary indexes come after the first load (ensureIndexes).
    put.run('indexes', 'pending');
    put.run('vault_root', root);
    put.run('created_at', new Date().toISOString());
    db.pragma(`application_id = ${APPLICATION_ID}`);
    db.pragma(`user_version = ${SCHEMA_VERSION}`);
  }).immediate();
}

/**
 * Open (or create) the index of a vault. A file that is not a SQLite database, is
 * another program's, has another schema version, or reports corruption is moved
 * aside and rebuilt — the index is a cache, never trusted over the vault.
 * Read commands never write inside the vault: the file lives in the cache root.
 */
export function openIndex(root: string, env: Env = process.env, opts: { rebuild?: boolean; busyTimeoutMs?: number } = {}): IndexHandle {
  const file = indexFile(root, env);
  // The index holds the text of every note: its folder is this user's only (privateDir).
  privateDir(path.dirname(file), dataRoots(env).cache);
  let created: IndexHandle['created'] = null;
  if (opts.rebuild) discardIndexFile(file);
  for (let attempt = 0; attempt < 3; attempt++) {
    let db: Db | undefined;
    try {
      db = connect(file, opts.busyTimeoutMs);
      privateFile(file);
      const verdict = inspect(db);
      if (verdict === 'ok') {
        ensureWal(db);
        db.pragma('synchronous = NORMAL');
        return { db, root, file, created };
      }
      if (verdict === 'empty') {
        initialise(db, root);
        if (inspect(db) === 'ok') {
          db.pragma('synchronous = NORMAL');
          return { db, root, file, created: created ?? 'new' };
        }
        db.close();
        continue;
      }
      db.close();
      discardIndexFile(file);
      created = verdict;
    } catch (e) {
      db?.close();
      if (isBusyError(e)) throw lockBusy(file, e);
      if (!isCorruptionError(e)) throw e;
      discardIndexFile(file);
      created = 'corrupt';
    }
  }
  throw new VaultgateError('INTEGRITY', `could not create a usable index at ${file}`, {
    hint: `Delete ${path.dirname(file)} and run \`vaultgate index\`; it is a cache and is rebuilt from the vault.`,
  });
}

export function lockBusy(file: string, cause: unknown): VaultgateError {
  return new VaultgateError('LOCK_BUSY', 'the index is being rebuilt by another process', {
    cause,
    hint: `Retry in a moment; if it persists, another vaultgate process is stuck holding ${file}.`,
  });
}

/**
 * Switch the index to WAL mode if it is not in it: a new index once its first
 * load has committed ({@link initialise}). WAL lets readers read while a
 * refresh writes. Not while that load is still to come or running in another
 * process (its secondary indexes still pending): the switch needs an exclusive
 * lock, and asking for it while the loader holds its write lock is a deadlock
 * SQLite answers with SQLITE_BUSY at once, not after the busy timeout (a reader
 * racing a first build failed with LOCK_BUSY that way). The loader switches
 * when it is done (refresh.ts); if another connection still holds a lock then,
 * the file stays as it is and the next open or refresh switches it.
 */
export function ensureWal(db: Db): void {
  if (db.pragma('journal_mode', { simple: true }) === 'wal') return;
  if (storedMeta(db, 'indexes') === 'pending') return;
  try {
    db.pragma('journal_mode = WAL');
  } catch (e) {
    if (!isBusyError(e)) throw e;
  }
}

/**
 * Create the secondary indexes if a new index still lacks them. Called inside the
 * refresh transaction, after a first load, so a crash leaves no half state: the
 * load and the indexes commit together or not at all.
 */
export function ensureIndexes(db: Db): boolean {
  const state = db.prepare(`SELECT value FROM meta WHERE key = 'indexes'`).pluck().get();
  if (state !== 'pending') return false;
  db.exec(INDEXES_SQL);
  db.prepare(`DELETE FROM meta WHERE key = 'indexes'`).run();
  return true;
}

/** Full structural check (O(size of the file)): run by `vaultgate index`, not on every read. */
export function checkIntegrity(db: Db): boolean {
  try {
    const rows = db.pragma('quick_check') as { quick_check: string }[];
    if (rows.length !== 1 || rows[0]!.quick_check !== 'ok') return false;
    for (const t of FTS_TABLES) db.prepare(`INSERT INTO ${t}(${t}, rank) VALUES ('integrity-check', 0)`).run();
    return true;
  } catch (e) {
    if (isCorruptionError(e)) return false;
    throw e;
  }
}

/** The index's `meta` table (key → text): schema state, refresh digests, stored models. */
export function storedMeta(db: Db, key: string): string | undefined {
  return db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined;
}

/** Several meta values in one query. */
export function storedMetas<K extends string>(db: Db, keys: K[]): Partial<Record<K, string>> {
  const rows = db.prepare('SELECT key, value FROM meta WHERE key IN (SELECT value FROM json_each(?))').raw().all(JSON.stringify(keys)) as [K, string][];
  return Object.fromEntries(rows) as Partial<Record<K, string>>;
}

export function putMeta(db: Db, key: string, value: string): void {
  db.prepare('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
}
