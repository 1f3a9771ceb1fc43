import { BUSY_TIMEOUT_MS, checkIntegrity, isBusyError, isCorruptionError, discardIndexFile, lockBusy, openIndex, type IndexHandle } from './db.js';
import { refreshIndex, type RefreshOptions, type RefreshResult } from './refresh.js';

type Env = Record<string, string | undefined>;

export interface FreshIndexOptions extends RefreshOptions {
  /** Discard the file and index from scratch (`vaultgate index --rebuild`). */
  rebuild?: boolean;
  /**
   * Run SQLite's quick_check and FTS5's integrity-check before refreshing, and
   * rebuild when either fails (`vaultgate index --check`). O(size of the file):
   * about 1.2 s for 10k notes, so not done on every read — there, corruption is
   * caught when SQLite reports it.
   */
  check?: boolean;
  /** How long to wait for another process's write lock (default {@link BUSY_TIMEOUT_MS}). */
  busyTimeoutMs?: number;
}

/** `ok`: checked and sound; `rebuilt`: the check failed and the index was rebuilt; null: not checked. */
export type IntegrityOutcome = 'ok' | 'rebuilt' | null;

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
): { result: T; refresh: RefreshResult; handle: Omit<IndexHandle, 'db'>; integrity: IntegrityOutcome } {
  let integrity: IntegrityOutcome = null;
  for (let attempt = 0; ; attempt++) {
    let handle = openIndex(root, env, { rebuild: opts.rebuild === true && attempt === 0, busyTimeoutMs: opts.busyTimeoutMs });
    if (attempt > 0) handle.created = 'corrupt';
    if (opts.check && attempt === 0) {
      integrity = checkIntegrity(handle.db) ? 'ok' : 'rebuilt';
      if (integrity === 'rebuilt') {
        handle.db.close();
        handle = openIndex(root, env, { rebuild: true, busyTimeoutMs: opts.busyTimeoutMs });
        handle.created = 'corrupt';
      }
    }
    try {
      // VAULTGATE_PARSE_WORKERS=0 turns the parse pool off (debugging, benchmarks);
      // VAULTGATE_SCAN_TRUST_DIR_MTIME=0 reads every folder on every refresh (filesystems
      // that do not keep folder mtimes: some network and FUSE mounts, see statWalk).
      const workers = env.VAULTGATE_PARSE_WORKERS;
      const refresh = refreshIndex(handle, {
        ...opts,
        ...(workers && /^\d+$/.test(workers) && opts.parseWorkers === undefined ? { parseWorkers: Number(workers) } : {}),
        ...(env.VAULTGATE_SCAN_TRUST_DIR_MTIME === '0' ? { trustDirMtime: false } : {}),
      });
      const result = read(handle, refresh);
      const { db: _db, ...info } = handle;
      return { result, refresh, handle: info, integrity };
    } catch (e) {
      // Another refresher held the write lock longer than the busy timeout: a conflict, retry later (exit 75).
      if (isBusyError(e)) throw lockBusy(handle.file, e);
      if (attempt > 0 || !isCorruptionError(e)) throw e;
      handle.db.close();
      discardIndexFile(handle.file);
      continue;
    } finally {
      if (handle.db.open) handle.db.close();
    }
  }
}
