import fs from 'node:fs';
import {
  fileStamp,
  statVaultPath,
  vaultConfigPath,
  VaultWatcher,
  watchUnsoundReason,
  type ChangeFeed,
  type ScanTree,
  type ScanWarning,
  type StatWalk,
  type VaultFile,
  type WatchStatus,
} from '../vault/index.js';
import type { IndexHandle } from './db.js';
import { refreshIndex, unchangedResult, type RefreshOptions, type RefreshResult } from './refresh.js';
import { FORGOTTEN_PREFIX, type FreshIndexOptions } from './fresh-index.js';

/** How a long-lived session learns what changed before a read. */
export type Freshness = 'walk' | 'watch';

/**
 * Walk the whole vault at least this often even when the watcher saw nothing:
 * a bound on what an undetected miss can cost (a change on a network
 * filesystem, a kernel that dropped events without telling).
 */
export const DEFAULT_WALK_INTERVAL_MS = 10 * 60_000;

export interface WatchRefreshOptions {
  /** See {@link DEFAULT_WALK_INTERVAL_MS}; 0 walks before every read. */
  walkIntervalMs?: number;
  /** Passed to the watcher (tests lower it to simulate an overflow). */
  burstLimit?: number;
  /** A change feed to use instead of a {@link VaultWatcher} (tests). */
  feed?: ChangeFeed;
}

export interface WatchRefreshStatus {
  /** `watch`: reads refresh only what the watcher reports; `walk`: every read walks (`reason` says why). */
  mode: Freshness;
  reason: string | null;
  watcher: WatchStatus | null;
  walk_interval_ms: number;
  /** Reads that walked the vault, that re-statted only the changed paths, that found nothing to do. */
  walks: number;
  patches: number;
  unchanged: number;
  last_walk_reason: string | null;
  last_walk_at: string | null;
}

/**
 * Refresh for a long-lived session with a file watcher: a read refreshes only
 * the paths the watcher says may have changed (refreshIndex's `paths`: their
 * rows compared with a fresh lstat of each, no walk), and does nothing at all
 * when it saw nothing. The answer is the one a walk would give, because:
 *
 * - a fresh lstat of a reported path is exactly the record the walk would make
 *   for it (statVaultPath), and a path nobody reported did not change (the
 *   watcher's job, with the walks below wherever it cannot vouch for that);
 * - it walks instead (a normal refreshIndex) whenever the watcher cannot vouch
 *   for its report (not live yet, just rebuilt, a burst, an error), when a
 *   reported path is or was a folder (a folder rename moves files no event
 *   names), a symbolic link or a special file (the walk's warnings change), when
 *   a name is not NFC on disk or the vault has such names (two spellings of one
 *   path), when the index file was reopened, another process refreshed it, or
 *   the vault config changed, and at least every `walkIntervalMs`;
 * - on a filesystem where a watcher cannot see every change (network, FUSE:
 *   {@link watchUnsoundReason}) it never watches and walks before every read.
 *
 * Reads must be preceded by `await settle()` so that events queued before the
 * request are taken in (VaultSession.settle, runOperation).
 */
export class WatchRefresh {
  readonly root: string;
  readonly walkIntervalMs: number;
  readonly #feed: ChangeFeed | null;
  readonly #unsound: string | null;
  /** What the last walk saw: its folder tree (which names are folders, links, special files) and its warnings. */
  #tree: ScanTree | null = null;
  #warnings: ScanWarning[] = [];
  /** Whether the last walk saw a name not in NFC on disk (then a non-ASCII path may collide with it: walk). */
  #nonNfc = false;
  /** The index's scan_digest after our last refresh, on #handle. */
  #since: string | null = null;
  #handle: IndexHandle | null = null;
  #last: RefreshResult | null = null;
  #configKey = '';
  #lastWalkAt = 0;
  #counts = { walks: 0, patches: 0, unchanged: 0 };
  #lastWalkReason: string | null = null;

  constructor(root: string, opts: WatchRefreshOptions = {}) {
    this.root = root;
    this.walkIntervalMs = opts.walkIntervalMs ?? DEFAULT_WALK_INTERVAL_MS;
    this.#unsound = opts.feed ? null : watchUnsoundReason(root);
    this.#feed = opts.feed ?? (this.#unsound ? null : new VaultWatcher(root, { burstLimit: opts.burstLimit }));
  }

  /** Bring the index up to date with the vault (the refreshIndex of a watched session). */
  refresh(handle: IndexHandle, options: RefreshOptions & Pick<FreshIndexOptions, 'changedPaths'> = {}): RefreshResult {
    const started = performance.now();
    const { changedPaths, ...opts } = options;
    const delta = this.#feed ? this.#feed.take() : { walk: this.#unsound ?? 'no watcher' };
    if (delta.walk !== null) return this.#walk(handle, opts, delta.walk);
    const why = this.#mustWalk(handle);
    if (why !== null) return this.#walk(handle, opts, why);
    const files = this.#restat(changedPaths?.length ? new Set([...delta.paths, ...changedPaths]) : delta.paths);
    if (typeof files === 'string') return this.#walk(handle, opts, files);
    const stored = handle.db.prepare(`SELECT value FROM meta WHERE key = 'scan_digest'`).pluck().get();
    if (files.size === 0 && stored === this.#since) return this.#unchanged(handle, started);
    let walked = false;
    const result = this.#refreshWith(handle, () =>
      refreshIndex(handle, {
        ...opts,
        paths: { since: this.#since!, files, warnings: this.#warnings },
        // Another process refreshed the index in between, or a read found a note's
        // bytes differ from the index (IndexSession forgot its stat): refreshIndex walked instead.
        onWalk: (walk) => {
          walked = true;
          this.#sawWalk(walk, typeof stored === 'string' && stored.startsWith(FORGOTTEN_PREFIX) ? "a note's bytes differed from the index" : 'another process refreshed the index');
        },
      }),
    );
    if (!walked) this.#counts.patches++;
    return result;
  }

  /** Whether the walk interval has passed (the daemon then refreshes while idle, so no read pays for it). */
  walkDue(): boolean {
    return this.#tree === null || performance.now() - this.#lastWalkAt >= this.walkIntervalMs;
  }

  settle(): Promise<void> {
    return this.#feed?.settle() ?? Promise.resolve();
  }

  status(): WatchRefreshStatus {
    return {
      mode: this.#feed ? 'watch' : 'walk',
      reason: this.#unsound,
      watcher: this.#feed?.status() ?? null,
      walk_interval_ms: this.walkIntervalMs,
      walks: this.#counts.walks,
      patches: this.#counts.patches,
      unchanged: this.#counts.unchanged,
      last_walk_reason: this.#lastWalkReason,
      last_walk_at: this.#lastWalkAt ? new Date(performance.timeOrigin + this.#lastWalkAt).toISOString() : null,
    };
  }

  close(): Promise<void> {
    return this.#feed?.close() ?? Promise.resolve();
  }

  /** Reasons to walk that the watcher cannot know about. */
  #mustWalk(handle: IndexHandle): string | null {
    if (!this.#tree || this.#since === null) return 'first read';
    if (handle !== this.#handle) return 'the index was reopened';
    if (performance.now() - this.#lastWalkAt >= this.walkIntervalMs) return 'walk interval';
    if (configKey(this.root) !== this.#configKey) return 'the vault config changed';
    if (!fs.statSync(this.root, { throwIfNoEntry: false })?.isDirectory()) return 'the vault folder is gone';
    return null;
  }

  #walk(handle: IndexHandle, opts: RefreshOptions, why: string): RefreshResult {
    // Read the config's stamp before walking: an edit during the walk is seen by the next read.
    const key = configKey(this.root);
    return this.#refreshWith(handle, () =>
      refreshIndex(handle, {
        ...opts,
        onWalk: (walk) => {
          this.#configKey = key;
          this.#sawWalk(walk, why);
        },
      }),
    );
  }

  #sawWalk(walk: StatWalk, why: string): void {
    this.#lastWalkAt = performance.now();
    this.#lastWalkReason = why;
    this.#counts.walks++;
    this.#tree = walk.tree;
    this.#warnings = walk.warnings;
    this.#nonNfc = hasNonNfcName(walk.tree);
  }

  /**
   * Run a refresh and remember the state it left the index in. If it fails (the
   * write lock stayed busy, a corrupt page), forget it: the next read walks.
   */
  #refreshWith(handle: IndexHandle, run: () => RefreshResult): RefreshResult {
    let result: RefreshResult;
    try {
      result = run();
    } catch (e) {
      this.#since = null;
      throw e;
    }
    this.#handle = handle;
    this.#since = (handle.db.prepare(`SELECT value FROM meta WHERE key = 'scan_digest'`).pluck().get() as string | undefined) ?? null;
    this.#last = result;
    return result;
  }

  #unchanged(handle: IndexHandle, started: number): RefreshResult {
    this.#counts.unchanged++;
    const last = this.#last!;
    const meta = Object.fromEntries(handle.db.prepare(`SELECT key, value FROM meta WHERE key IN ('files', 'notes')`).raw().all() as [string, string][]);
    return unchangedResult(Number(meta.files ?? last.files), Number(meta.notes ?? last.notes), last.warnings, Math.round(performance.now() - started));
  }

  /**
   * Stat each reported path (as spelled on disk) against the last walk's folder
   * tree: the new record of each (null: not a regular file now), or a reason
   * to walk.
   */
  #restat(paths: ReadonlySet<string>): Map<string, VaultFile | null> | string {
    const tree = this.#tree!;
    const files = new Map<string, VaultFile | null>();
    for (const disk of [...paths].sort()) {
      const nfc = disk.normalize('NFC');
      if (nfc !== disk) return `${JSON.stringify(disk)} is not NFC on disk`;
      if (this.#nonNfc && NON_ASCII.test(disk)) return 'the vault has names not in NFC on disk';
      const slash = disk.lastIndexOf('/');
      const folder = tree.dirs[slash < 0 ? '' : disk.slice(0, slash)];
      const name = disk.slice(slash + 1);
      // A path in a folder the last walk did not read (a new one): the folder's own event walks too.
      if (!folder) return `${JSON.stringify(disk)} is in a folder the last walk did not see`;
      if (folder.o.some((o) => o[0] === name)) return `${JSON.stringify(disk)} was a link or a special file`;
      const state = statVaultPath(this.root, disk);
      if (state.kind === 'folder' || folder.d.includes(name)) {
        // A folder came, went or was renamed (or a file took its name): the files under it moved without events of their own.
        const why = `folder ${JSON.stringify(disk)} ${state.kind === 'folder' ? 'changed' : 'went away'}`;
        this.#feed?.restart(why);
        return why;
      }
      if (state.kind === 'unknown') return `cannot stat ${disk}: ${state.message}`;
      if (state.kind === 'skipped') return `${JSON.stringify(disk)} is now a link or a special file`;
      files.set(nfc, state.kind === 'file' ? state.file : null);
    }
    return files;
  }
}

const NON_ASCII = /[^\x00-\x7f]/;

function hasNonNfcName(tree: ScanTree): boolean {
  for (const [rel, rec] of Object.entries(tree.dirs)) {
    if (NON_ASCII.test(rel) && rel.normalize('NFC') !== rel) return true;
    for (const list of [rec.f, rec.d]) for (const name of list) if (NON_ASCII.test(name) && name.normalize('NFC') !== name) return true;
    for (const [name] of rec.o) if (NON_ASCII.test(name) && name.normalize('NFC') !== name) return true;
  }
  return false;
}

/** The vault config's stamp: an edit (exclusions) changes what every path is, so it walks. */
function configKey(root: string): string {
  return fileStamp(vaultConfigPath(root)) ?? 'absent';
}
