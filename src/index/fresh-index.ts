import crypto from 'node:crypto';
import { BUSY_TIMEOUT_MS, checkIntegrity, isBusyError, isCorruptionError, discardIndexFile, lockBusy, openIndex, putMeta, type Db, type IndexHandle } from './db.js';
import { offerReadPool, ReadPool, type ReadPoolStatus } from './read-pool.js';
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
  /**
   * Vault paths whose bytes the caller found differ from what the index holds
   * (context's hash check of its evidence). Their stored stats are forgotten
   * before the refresh, so it re-reads and re-hashes them even where the stat
   * cannot tell the change apart (an mtime put back on a filesystem without a
   * trustworthy ctime or inode): the note is re-indexed, and the caller goes on.
   * A watched refresh also re-stats them before the watcher's events arrive.
   */
  changedPaths?: readonly string[];
}

/** `ok`: checked and sound; `rebuilt`: the check failed and the index was rebuilt; null: not checked. */
export type IntegrityOutcome = 'ok' | 'rebuilt' | null;

export interface FreshRead<T> {
  result: T;
  refresh: RefreshResult;
  handle: Omit<IndexHandle, 'db'>;
  integrity: IntegrityOutcome;
}

/** Anything that can run a read on a fresh index of one vault: a one-shot process or a long-lived session. */
export interface IndexReader {
  readonly root: string;
  read<T>(read: (handle: IndexHandle, refresh: RefreshResult) => T, opts?: FreshIndexOptions): FreshRead<T>;
}

/** How an {@link IndexSession} brings the index up to date before a read: {@link refreshIndex} (a stat walk) unless told otherwise. */
export type Refresher = (handle: IndexHandle, opts: RefreshOptions) => RefreshResult;

/**
 * The index of one vault held open across reads (a long-lived server: MCP,
 * `serve`, `daemon`). Every read still refreshes first, so "refresh before every
 * read" holds; what a session saves is opening SQLite and preparing statements,
 * and, with a watching refresher (WatchRefresh), the stat walk itself.
 *
 * The index is a cache: when SQLite reports corruption anywhere on the way (a
 * damaged page is only found when it is read), the file is discarded and the
 * read runs once more on a fresh index. A second failure is a real error.
 */
export class IndexSession implements IndexReader {
  #handle: IndexHandle | null = null;
  #pool: ReadPool | null = null;

  /**
   * @param parallelReads give the open index a pool of reader threads
   *   (read-pool.ts): a big query's FTS work is split across the cores.
   *   VAULTGATE_READ_WORKERS=N sets the pool's size (0: none).
   */
  constructor(
    readonly root: string,
    private readonly env: Env,
    private readonly refresher: Refresher = refreshIndex,
    private readonly parallelReads = false,
  ) {}

  read<T>(read: (handle: IndexHandle, refresh: RefreshResult) => T, opts: FreshIndexOptions = {}): FreshRead<T> {
    let integrity: IntegrityOutcome = null;
    for (let attempt = 0; ; attempt++) {
      const rebuild = opts.rebuild === true && attempt === 0;
      if (rebuild) this.close();
      let handle = this.#open(rebuild, opts.busyTimeoutMs);
      if (attempt > 0) handle.created = 'corrupt';
      if (opts.check && attempt === 0) {
        // A file too damaged to open (its schema pages unreadable) was already recreated by openIndex: rebuilt too.
        integrity = handle.created === 'corrupt' || !checkIntegrity(handle.db) ? 'rebuilt' : 'ok';
        if (integrity === 'rebuilt') {
          this.close();
          handle = this.#open(true, opts.busyTimeoutMs);
          handle.created = 'corrupt';
        }
      }
      try {
        if (opts.changedPaths?.length) forgetStats(handle.db, opts.changedPaths);
        const refresh = this.refresher(handle, withWorkerSetting(this.env, opts));
        const result = read(handle, refresh);
        const { db: _db, ...info } = handle;
        // `created` describes this open, not later reads of the same handle.
        handle.created = null;
        return { result, refresh, handle: info, integrity };
      } catch (e) {
        // Another refresher held the write lock longer than the busy timeout: a conflict, retry later (exit 75).
        if (isBusyError(e)) throw lockBusy(handle.file, e);
        if (attempt > 0 || !isCorruptionError(e)) throw e;
        this.close();
        discardIndexFile(handle.file);
      }
    }
  }

  /** The reader threads' work so far; null until a query over a big enough index started them (or with none to start). */
  readPool(): ReadPoolStatus | null {
    return this.#pool?.status() ?? null;
  }

  close(): void {
    this.#pool?.close();
    this.#pool = null;
    if (this.#handle?.db.open) this.#handle.db.close();
    this.#handle = null;
  }

  #open(rebuild: boolean, busyTimeoutMs: number | undefined): IndexHandle {
    if (!this.#handle || !this.#handle.db.open) {
      this.#pool?.close();
      this.#pool = null;
      this.#handle = openIndex(this.root, this.env, { rebuild, busyTimeoutMs });
      if (this.parallelReads) {
        const file = this.#handle.file;
        offerReadPool(this.#handle.db, () => (this.#pool = ReadPool.open(file, threadCount(this.env.VAULTGATE_READ_WORKERS))));
      }
    }
    return this.#handle;
  }
}

/**
 * Make the next refresh re-read `paths`: their stored mtime becomes one no file
 * has (so the unchanged-file test fails and the bytes are hashed again: a real
 * change is re-indexed, the same bytes only get their stat back), and the
 * walk's digest one no walk produces (so the fast path, which skips comparing
 * rows when the walk hashes as before, does not skip them).
 */
/** The start of the `scan_digest` a {@link forgetStats} leaves (a watched session names it as the reason it walked). */
export const FORGOTTEN_PREFIX = 'forgotten:';

function forgetStats(db: Db, paths: readonly string[]): void {
  db.transaction(() => {
    const forget = db.prepare('UPDATE files SET mtime_ms = -1 WHERE path = ?');
    let forgotten = 0;
    for (const p of paths) forgotten += forget.run(p).changes;
    if (forgotten > 0) putMeta(db, 'scan_digest', `${FORGOTTEN_PREFIX}${crypto.randomUUID()}`);
  }).immediate();
}

/** A thread count from the environment (VAULTGATE_PARSE_WORKERS, VAULTGATE_READ_WORKERS); undefined unless a whole number. */
function threadCount(value: string | undefined): number | undefined {
  return value && /^\d+$/.test(value) ? Number(value) : undefined;
}

/**
 * VAULTGATE_PARSE_WORKERS=N sets the parse pool's size (0 turns it off: debugging,
 * benchmarks); VAULTGATE_SCAN_TRUST_DIR_MTIME=0 reads every folder on every refresh
 * (filesystems that do not keep folder mtimes: some network and FUSE mounts, see
 * statWalk in src/vault/scan.ts).
 */
function withWorkerSetting(env: Env, opts: FreshIndexOptions): RefreshOptions {
  const workers = threadCount(env.VAULTGATE_PARSE_WORKERS);
  return {
    ...opts,
    ...(workers !== undefined && opts.parseWorkers === undefined ? { parseWorkers: workers } : {}),
    ...(env.VAULTGATE_SCAN_TRUST_DIR_MTIME === '0' ? { trustDirMtime: false } : {}),
  };
}

/**
 * Open the vault's index, bring it up to date, run `read` on it, close it: what a
 * one-shot process does. Every read command goes through an {@link IndexReader},
 * so "refresh before every read" holds.
 */
export function withFreshIndex<T>(
  root: string,
  env: Env,
  read: (handle: IndexHandle, refresh: RefreshResult) => T,
  opts: FreshIndexOptions = {},
): FreshRead<T> {
  const session = new IndexSession(root, env);
  try {
    return session.read(read, opts);
  } finally {
    session.close();
  }
}

/** An {@link IndexReader} that opens and closes the index for each read (one-shot processes). */
export function oneShotReader(root: string, env: Env): IndexReader {
  return { root, read: (read, opts) => withFreshIndex(root, env, read, opts) };
}
