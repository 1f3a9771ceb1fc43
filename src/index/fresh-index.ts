import { isCorruptionError, discardIndexFile, openIndex, type IndexHandle } from './db.js';
import { refreshIndex, type RefreshOptions, type RefreshResult } from './refresh.js';

type Env = Record<string, string | undefined>;

export interface FreshIndexOptions extends RefreshOptions {
  /** Discard the file and index from scratch (`vaultgate index --rebuild`). */
  rebuild?: boolean;
}

/**
 * Open the vault's index, bring it up to date, run `read` on it, close it.
 * Every read command goes through here, so "refresh before every read" holds.
 *
 * The index is a cache: when SQLite reports corruption anywhere on the way (a
 * damaged page is only found when it is read), the file is discarded and the
 * whole thing runs once more on a fresh index. A second failure is a real error.
 */
export function withFreshIndex<T>(
  root: string,
  env: Env,
  read: (handle: IndexHandle, refresh: RefreshResult) => T,
  opts: FreshIndexOptions = {},
): { result: T; refresh: RefreshResult; handle: Omit<IndexHandle, 'db'> } {
  for (let attempt = 0; ; attempt++) {
    const handle = openIndex(root, env, { rebuild: opts.rebuild === true && attempt === 0 });
    if (attempt > 0) handle.created = 'corrupt';
    try {
      const refresh = refreshIndex(handle, opts);
      const result = read(handle, refresh);
      const { db: _db, ...info } = handle;
      return { result, refresh, handle: info };
    } catch (e) {
      if (attempt > 0 || !isCorruptionError(e)) throw e;
      handle.db.close();
      discardIndexFile(handle.file);
      continue;
    } finally {
      if (handle.db.open) handle.db.close();
    }
  }
}
