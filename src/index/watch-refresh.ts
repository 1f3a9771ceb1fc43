import fs from 'node:fs';
import {
  compareScanWarnings,
  scanVault,
  statVaultPath,
  vaultConfigPath,
  VaultWatcher,
  watchUnsoundReason,
  type ChangeFeed,
  type ScanResult,
  type ScanWarning,
  type VaultFile,
  type WatchStatus,
} from '../vault/index.js';
import type { IndexHandle } from './db.js';
import type { FreshIndexOptions } from './fresh-index.js';
import { refreshIndex, type RefreshOptions, type RefreshResult } from './refresh.js';

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
 * the paths the watcher says may have changed, and skips the stat walk when it
 * saw nothing. The answer is the one a full walk would give, because:
 *
 * - it keeps the last stat walk's result (files in path order, warnings) and
 *   patches it with a fresh `lstat` of each reported path, which is exactly the
 *   record the walk would make for it; the patched scan goes through
 *   refreshIndex like a walked one (same digest, same diff, same warnings);
 * - it walks instead whenever the watcher cannot vouch for the delta (not live
 *   yet, just rebuilt, a burst, an error), when a reported path is or was a
 *   folder (a folder rename moves files no event names), when a name is not NFC
 *   on disk (two spellings of one path), when the index file was reopened or
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
  /** The vault as of the last refresh: scanVault's result, patched. Describes #handle's index when #digest matches. */
  #scan: ScanResult | null = null;
  #handle: IndexHandle | null = null;
  #digest: string | null = null;
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
    const patch = this.#restat(changedPaths?.length ? new Set([...delta.paths, ...changedPaths.map((p) => this.#diskPathOf(p))]) : delta.paths);
    if (typeof patch === 'string') return this.#walk(handle, opts, patch);
    const stored = handle.db.prepare(`SELECT value FROM meta WHERE key = 'scan_digest'`).pluck().get();
    if (patch.files.size === 0 && !patch.warnings && stored === this.#digest) return this.#unchanged(handle, started);
    this.#counts.patches++;
    return this.#refreshWith(handle, () => {
      this.#apply(patch);
      return refreshIndex(handle, { ...opts, scan: this.#scan!, changed: { since: this.#digest!, files: patch.files } });
    });
  }

  /** Whether the walk interval has passed (the daemon then refreshes while idle, so no read pays for it). */
  walkDue(): boolean {
    return this.#scan === null || performance.now() - this.#lastWalkAt >= this.walkIntervalMs;
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

  /** A vault path as spelled on disk (as the watcher reports paths): the kept scan knows the spelling of an indexed one. */
  #diskPathOf(p: string): string {
    const files = this.#scan!.files;
    const i = fileIndex(files, p);
    return i < files.length && files[i]!.path === p ? files[i]!.diskPath : p;
  }

  /** Reasons to walk that the watcher cannot know about. */
  #mustWalk(handle: IndexHandle): string | null {
    if (!this.#scan || !this.#digest) return 'first read';
    if (handle !== this.#handle) return 'the index was reopened';
    if (performance.now() - this.#lastWalkAt >= this.walkIntervalMs) return 'walk interval';
    if (configKey(this.root) !== this.#configKey) return 'the vault config changed';
    if (!fs.statSync(this.root, { throwIfNoEntry: false })?.isDirectory()) return 'the vault folder is gone';
    return null;
  }

  #walk(handle: IndexHandle, opts: RefreshOptions, why: string): RefreshResult {
    this.#lastWalkReason = why;
    this.#counts.walks++;
    return this.#refreshWith(handle, () => {
      // Read the config's stamp before walking: an edit during the walk is seen by the next read.
      this.#configKey = configKey(this.root);
      this.#lastWalkAt = performance.now();
      this.#scan = scanVault(this.root);
      return refreshIndex(handle, { ...opts, scan: this.#scan });
    });
  }

  /**
   * Run a refresh and remember what the index now describes. If it fails (the
   * write lock stayed busy, a corrupt page), the kept scan may be ahead of the
   * index: forget it, so the next read walks.
   */
  #refreshWith(handle: IndexHandle, run: () => RefreshResult): RefreshResult {
    let result: RefreshResult;
    try {
      result = run();
    } catch (e) {
      this.#scan = null;
      this.#digest = null;
      throw e;
    }
    this.#handle = handle;
    this.#digest = (handle.db.prepare(`SELECT value FROM meta WHERE key = 'scan_digest'`).pluck().get() as string | undefined) ?? null;
    this.#last = result;
    return result;
  }

  #unchanged(handle: IndexHandle, started: number): RefreshResult {
    this.#counts.unchanged++;
    const last = this.#last!;
    const notes = Number(handle.db.prepare(`SELECT value FROM meta WHERE key = 'notes'`).pluck().get() ?? 0);
    return {
      refreshed: false,
      files: last.files,
      notes,
      added: 0,
      changed: 0,
      deleted: 0,
      renamed: 0,
      touched: 0,
      relinked: 0,
      took_ms: Math.round(performance.now() - started),
      warnings: last.warnings,
    };
  }

  /**
   * Stat each reported path. Returns the new record of each path whose file
   * entry changed (null: no longer a file), the warning of each path that now
   * has one (null: none), or a reason to walk.
   */
  #restat(paths: ReadonlySet<string>): Patch | string {
    const scan = this.#scan!;
    const files = new Map<string, VaultFile | null>();
    const warnings = new Map<string, ScanWarning | null>();
    for (const disk of [...paths].sort()) {
      const nfc = disk.normalize('NFC');
      if (nfc !== disk) return `${JSON.stringify(disk)} is not NFC on disk`;
      const state = statVaultPath(this.root, disk);
      if (state.kind === 'unknown') return `cannot stat ${disk}: ${state.message}`;
      // A folder came, went or was renamed (or a file took a folder's name): the files under it moved without events of their own.
      if (state.kind === 'folder' || holdsPathsUnder(scan, nfc)) {
        const why = `folder ${JSON.stringify(disk)} ${state.kind === 'folder' ? 'changed' : 'went away'}`;
        this.#feed?.restart(why);
        return why;
      }
      const i = fileIndex(scan.files, nfc);
      const known = i < scan.files.length && scan.files[i]!.path === nfc ? scan.files[i]! : null;
      // Another spelling of the same path already stands for it: only a walk orders them as the walk does.
      if (known && known.diskPath !== disk) return `${JSON.stringify(disk)} has another spelling on disk`;
      const next = state.kind === 'file' ? state.file : null;
      if (!sameFile(known, next)) files.set(nfc, next);
      const w = warningIndex(scan.warnings, nfc);
      const hadWarning = w < scan.warnings.length && scan.warnings[w]!.path === nfc;
      if (state.kind === 'skipped' || hadWarning) warnings.set(nfc, state.kind === 'skipped' ? state.warning : null);
    }
    return { files, warnings: warnings.size > 0 ? warnings : null };
  }

  /** Patch the kept scan in place: it stays sorted as scanVault sorts. */
  #apply(patch: Patch): void {
    const scan = this.#scan!;
    for (const [p, file] of patch.files) {
      const i = fileIndex(scan.files, p);
      const present = i < scan.files.length && scan.files[i]!.path === p;
      if (file && present) scan.files[i] = file;
      else if (file) scan.files.splice(i, 0, file);
      else if (present) scan.files.splice(i, 1);
    }
    for (const [p, warning] of patch.warnings ?? []) {
      const i = warningIndex(scan.warnings, p);
      const present = i < scan.warnings.length && scan.warnings[i]!.path === p;
      if (warning && present) scan.warnings[i] = warning;
      else if (warning) scan.warnings.splice(i, 0, warning);
      else if (present) scan.warnings.splice(i, 1);
    }
  }
}

interface Patch {
  files: Map<string, VaultFile | null>;
  warnings: Map<string, ScanWarning | null> | null;
}

function sameFile(a: VaultFile | null, b: VaultFile | null): boolean {
  if (!a || !b) return a === b;
  return a.size === b.size && a.mtimeMs === b.mtimeMs && a.diskPath === b.diskPath;
}

/** First index whose path is >= p (the files are in code-unit order, as scanVault sorts them). */
function fileIndex(files: readonly VaultFile[], p: string): number {
  let lo = 0;
  let hi = files.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (files[mid]!.path < p) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

function warningIndex(warnings: readonly ScanWarning[], p: string): number {
  let lo = 0;
  let hi = warnings.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (compareScanWarnings(warnings[mid]!, { path: p, code: '' as ScanWarning['code'], message: '' }) < 0) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Whether the scan holds a file or a warning under `p/`: then `p` was a folder. */
function holdsPathsUnder(scan: ScanResult, p: string): boolean {
  const prefix = `${p}/`;
  const f = fileIndex(scan.files, prefix);
  if (f < scan.files.length && scan.files[f]!.path.startsWith(prefix)) return true;
  const w = warningIndex(scan.warnings, prefix);
  // An unreadable folder is a warning on the folder itself.
  return (w < scan.warnings.length && scan.warnings[w]!.path.startsWith(prefix)) || scan.warnings.some((x) => x.path === p && x.code === 'UNREADABLE');
}

/** The vault config's stamp: an edit (exclusions) changes what every path is, so it walks. */
function configKey(root: string): string {
  const st = fs.statSync(vaultConfigPath(root), { throwIfNoEntry: false });
  return st ? `${st.ino}:${st.size}:${st.mtimeMs}` : 'absent';
}
