import fs from 'node:fs';
import path from 'node:path';
import Database from 'better-sqlite3';
import { VaultgateError } from '../errors.js';
import { dataRoots, privateDir, privateFile, vaultCacheKey } from '../vault/index.js';

type Env = Record<string, string | undefined>;
export type StoreDb = Database.Database;

/**
 * A store of the user's history under the data root
 * (`$XDG_DATA_HOME/vaultgate/<vault id>/<name>.sqlite`; VAULTGATE_HOME moves it):
 * proposals and their audit log, working state, consent records. Unlike the
 * index this is **not a cache**: a file that is not ours, has a schema we do not
 * know, or is damaged is a typed integrity error (STATE_CORRUPT, exit 3) naming
 * the file — never silently recreated, because that would destroy history.
 *
 * Each store names itself (`application_id`) and versions its schema
 * (`user_version`); `migrations[i]` takes version i to i+1, all in one
 * transaction, so an older file is upgraded in place and a newer one refused.
 */
export interface StoreSpec {
  /** File name without extension (`proposals`, `state`, `consent`). */
  name: string;
  /** SQLite `application_id` that marks the file as this store's. */
  applicationId: number;
  /** SQL for each version step, oldest first; the schema version is `migrations.length`. */
  migrations: readonly string[];
}

export interface OpenStore {
  db: StoreDb;
  file: string;
}

/** How long a writer waits for another process's write transaction. */
export const STORE_BUSY_TIMEOUT_MS = 10_000;

export function storeFile(root: string, env: Env, name: string): string {
  return path.join(dataRoots(env).data, vaultCacheKey(root), `${name}.sqlite`);
}

function corrupt(file: string, why: string, cause?: unknown): VaultgateError {
  return new VaultgateError('STATE_CORRUPT', `${file}: ${why}`, {
    cause,
    details: { file },
    hint: 'This file holds history vaultgate will not overwrite. Move it aside (keep a copy) to start a new store, or restore it from a backup.',
  });
}

/**
 * Open (creating when absent) a data store and bring its schema up to date.
 * `readonly` never creates the file: a read of a vault with no store yet gets null.
 */
export function openStore(root: string, env: Env, spec: StoreSpec, opts: { readonly?: boolean } = {}): OpenStore | null {
  const file = storeFile(root, env, spec.name);
  const exists = fs.existsSync(file);
  if (!exists && opts.readonly) return null;
  if (exists && !fs.statSync(file).isFile()) throw corrupt(file, 'is not a file');
  // Proposals (old and new texts), working state, consents: this user's only (privateDir).
  if (!opts.readonly) privateDir(path.dirname(file), dataRoots(env).data);
  let db: StoreDb;
  try {
    db = new Database(file, { timeout: STORE_BUSY_TIMEOUT_MS, readonly: opts.readonly === true });
  } catch (e) {
    throw corrupt(file, `cannot be opened: ${(e as Error).message}`, e);
  }
  try {
    const target = spec.migrations.length;
    // One read snapshot: read one by one, a first migration committed by another
    // process in between looks like "no application_id, but tables" — a foreign file.
    const { appId, version, objects } = db.transaction(() => ({
      appId: db.pragma('application_id', { simple: true }) as number,
      version: db.pragma('user_version', { simple: true }) as number,
      objects: db.prepare('SELECT count(*) FROM sqlite_schema').pluck().get() as number,
    }))();
    const fresh = appId === 0 && version === 0 && objects === 0;
    if (!fresh && appId !== spec.applicationId) throw corrupt(file, 'is not a vaultgate ' + spec.name + ' store');
    if (version > target) throw corrupt(file, `has schema version ${version}, newer than this vaultgate knows (${target})`);
    if (!opts.readonly) {
      privateFile(file);
      db.pragma('journal_mode = WAL');
      db.pragma('synchronous = FULL');
      db.pragma('foreign_keys = ON');
      if (version < target) {
        db.transaction(() => {
          // Re-read inside the write transaction: another process may have migrated first.
          const now = db.pragma('user_version', { simple: true }) as number;
          for (let v = now; v < target; v++) db.exec(spec.migrations[v]!);
          db.pragma(`application_id = ${spec.applicationId}`);
          db.pragma(`user_version = ${target}`);
        }).immediate();
      }
    } else if (version < target) {
      throw corrupt(file, `has schema version ${version}; run a write command once to upgrade it`);
    }
    return { db, file };
  } catch (e) {
    db.close();
    if (e instanceof VaultgateError) throw e;
    const code = (e as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_BUSY')) {
      throw new VaultgateError('LOCK_BUSY', `${file} is busy`, { cause: e, hint: 'Another vaultgate process is writing; retry.' });
    }
    if (code === 'SQLITE_NOTADB' || code.startsWith('SQLITE_CORRUPT')) throw corrupt(file, 'is damaged or not a database', e);
    throw e;
  }
}
