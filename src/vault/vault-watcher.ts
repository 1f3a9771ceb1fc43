import fs from 'node:fs';
import path from 'node:path';
import type { FSWatcher } from 'chokidar';
import { collectGarbage } from '../collect-garbage.js';
import { listVaultDirs } from './list-dirs.js';

/**
 * What a reader learns from the watcher before a read: either which vault
 * paths may have changed since the last read, or that it must walk the whole
 * vault because the watcher cannot vouch for anything (and why).
 */
export type WatchDelta = { walk: string } | { walk: null; paths: ReadonlySet<string> };

/** The watcher as a refresher sees it (tests substitute their own). */
export interface ChangeFeed {
  /** Paths changed since the last call (vault-relative, `/`-separated, as spelled on disk), or a reason to walk. */
  take(): WatchDelta;
  /** The caller met a change the watch may not cover (a folder appeared or went): rebuild the watch; reads walk until it is live again. */
  restart(reason: string): void;
  /** Resolves once every file event queued before the call has been taken in (see {@link VaultWatcher.settle}). */
  settle(): Promise<void>;
  status(): WatchStatus;
  close(): Promise<void>;
}

export interface WatchStatus {
  /** `live`: deltas can be trusted; otherwise every read walks. */
  state: 'starting' | 'live' | 'backoff' | 'closed';
  /** Why the watch is not live, or why it was last rebuilt. */
  reason: string | null;
  restarts: number;
  /** File events seen since start (all folders). */
  events: number;
  /** Folders under watch when it last became live. */
  folders: number;
  last_error: string | null;
}

export interface VaultWatcherOptions {
  /**
   * More events than this in one batch and the watch is rebuilt and the next
   * read walks. Linux drops events silently when its inotify queue overflows
   * (libuv does not report IN_Q_OVERFLOW); libuv reads the whole queue in one
   * go, so an overflow shows as a batch of about the queue's length, which
   * only happens when the event loop was blocked through a burst of changes.
   * Default: half the kernel's queue length.
   */
  burstLimit?: number;
}

/** More changed paths than this between two reads: the read walks (as cheap as re-statting them all, and bounded memory). */
const MAX_PENDING_PATHS = 5000;

/**
 * While a watch starts, a full collection this often. chokidar lists every
 * folder and lstats every entry, files included, before it can ignore them, and
 * V8 lets that garbage pile up: 100k notes in 916 folders, the watch alone
 * peaked at 380 MB RSS with 7 MB live once ready; collecting every 100 ms kept
 * the peak at 240 MB (the scan took 3.1 s vs 3.6 s, within this machine's
 * noise). A small vault is ready before the first one.
 */
const START_COLLECT_MS = 200;

/** Rebuilds in a row within this window back off (an unwatchable folder, a process creating folders in a loop). */
const RESTART_WINDOW_MS = 30_000;
const RESTARTS_BEFORE_BACKOFF = 5;
const MAX_BACKOFF_MS = 60_000;

/**
 * A chokidar watch of the vault's folders, used only as a trigger: it says which
 * paths *may* have changed, and the reader re-stats exactly those (correctness
 * comes from the stat, never from the event's kind). ../shared/dependencies.md
 * §13 vetted chokidar 5.0.0 for this.
 *
 * Only folders are watched (files are `ignored`): a folder's inotify watch
 * reports every create, write, attribute change, delete and rename of the files
 * in it, so 100k notes need a few thousand watches, not 100k. The events used
 * are chokidar's `raw` ones (the folder and the entry name, delivered
 * synchronously from fs.watch), not its processed ones (delayed by stats,
 * throttles and atomic-write timers).
 *
 * When the watch may have missed something it says "walk" instead of a delta:
 * - until chokidar is ready and every folder a fresh listing finds is under
 *   watch (chokidar reads a folder before it watches it, so a folder created in
 *   between would escape; the check catches it and the watch is rebuilt);
 * - once more, right after it became live (the baseline walk);
 * - after a batch of events above {@link VaultWatcherOptions.burstLimit}, an
 *   error, an event without a name, or a folder that came or went (seen by
 *   chokidar or by the reader's stat): the watch is rebuilt from scratch rather
 *   than trusting chokidar to follow a folder rename or deletion, which its own
 *   bookkeeping gets wrong in corner cases (a folder deleted and re-created
 *   between two of its reads keeps a watch on the deleted one);
 * - when more than 5000 paths changed between two reads.
 */
export class VaultWatcher implements ChangeFeed {
  readonly root: string;
  readonly #burstLimit: number;
  #instance: FSWatcher | null = null;
  /** Incremented on every (re)start, so callbacks of a closed instance are ignored. */
  #generation = 0;
  #state: WatchStatus['state'] = 'starting';
  #reason: string | null = 'the watch is starting';
  #pending = new Set<string>();
  /** More than MAX_PENDING_PATHS paths changed since the last take. */
  #overfull = false;
  /** Events in the batch being delivered (reset after it, on the next turn of the event loop). */
  #batch = 0;
  #events = 0;
  #baselineDue = true;
  #restarts = 0;
  #recentRestarts: number[] = [];
  #folders = 0;
  #lastError: string | null = null;
  #backoff: NodeJS.Timeout | null = null;

  constructor(root: string, opts: VaultWatcherOptions = {}) {
    this.root = fs.realpathSync(root);
    this.#burstLimit = opts.burstLimit ?? defaultBurstLimit();
    this.#start();
  }

  take(): WatchDelta {
    const paths = this.#pending;
    const overfull = this.#overfull;
    this.#pending = new Set();
    this.#overfull = false;
    if (this.#state !== 'live') return { walk: this.#reason ?? this.#state };
    if (this.#baselineDue) {
      this.#baselineDue = false;
      return { walk: 'the watch just became live' };
    }
    if (overfull) return { walk: `more than ${MAX_PENDING_PATHS} paths changed since the last read` };
    return { walk: null, paths };
  }

  restart(reason: string): void {
    if (this.#state === 'closed') return;
    this.#stop();
    this.#reason = reason;
    this.#restarts++;
    const now = Date.now();
    this.#recentRestarts = this.#recentRestarts.filter((t) => now - t < RESTART_WINDOW_MS);
    this.#recentRestarts.push(now);
    const over = this.#recentRestarts.length - RESTARTS_BEFORE_BACKOFF;
    if (over <= 0) {
      this.#start();
      return;
    }
    this.#state = 'backoff';
    this.#backoff = setTimeout(() => {
      this.#backoff = null;
      this.#start();
    }, Math.min(MAX_BACKOFF_MS, 1000 * 2 ** (over - 1)));
    this.#backoff.unref();
  }

  /**
   * Resolves once every file event the kernel queued before this call has gone
   * through {@link take}'s bookkeeping. A request arrives after the changes its
   * sender made (a write completes, then the request is sent), so their events
   * are already queued; two turns of the event loop let libuv read them (the
   * first may run before this turn's poll for I/O, the second runs after the next).
   * Long-lived faces await it before every operation (runOperation does).
   */
  async settle(): Promise<void> {
    if (this.#state !== 'live') return;
    await new Promise((r) => setImmediate(r));
    await new Promise((r) => setImmediate(r));
  }

  status(): WatchStatus {
    return {
      state: this.#state,
      reason: this.#reason,
      restarts: this.#restarts,
      events: this.#events,
      folders: this.#folders,
      last_error: this.#lastError,
    };
  }

  async close(): Promise<void> {
    this.#stop();
    this.#state = 'closed';
    this.#reason = 'closed';
  }

  #stop(): void {
    this.#generation++;
    if (this.#backoff) clearTimeout(this.#backoff);
    this.#backoff = null;
    const old = this.#instance;
    this.#instance = null;
    // chokidar's close is synchronous for fs.watch handles; its promise only waits for pollers.
    void old?.close();
  }

  #start(): void {
    const generation = ++this.#generation;
    this.#state = 'starting';
    this.#baselineDue = true;
    const current = () => generation === this.#generation;
    import('chokidar')
      .then(({ watch }) => {
        if (!current()) return;
        const root = this.root;
        const instance = watch(root, {
          ignoreInitial: true,
          followSymlinks: false,
          // Only raw events are used: no unlink delay, no awaiting of writes.
          atomic: false,
          // An unreadable folder is not entered by the stat walk either; making it readable is a folder event.
          ignorePermissionErrors: true,
          ignored: (p: string, stats?: fs.Stats) => {
            const rel = path.relative(root, p);
            if (rel !== '' && rel.split(path.sep).some((c) => c.startsWith('.'))) return true;
            // Watch folders only; a folder's watch reports what happens to the files in it.
            return stats !== undefined && !stats.isDirectory();
          },
        });
        this.#instance = instance;
        const sweep = setInterval(() => (current() && this.#state === 'starting' ? collectGarbage() : clearInterval(sweep)), START_COLLECT_MS);
        sweep.unref();
        // fs.watch may give a null name; chokidar passes it through.
        instance.on('raw', (_event: string, name: string | null, details: unknown) => {
          if (current()) this.#onRaw(name, (details as { watchedPath?: string } | undefined)?.watchedPath);
        });
        // A folder came or went: chokidar follows it, but is not trusted to (see the class comment).
        for (const event of ['addDir', 'unlinkDir'] as const) {
          instance.on(event, (p: string) => {
            if (current() && this.#state === 'live') this.restart(`folder ${JSON.stringify(path.relative(root, p))} ${event === 'addDir' ? 'appeared' : 'went away'}`);
          });
        }
        instance.on('error', (e: unknown) => {
          if (!current()) return;
          this.#lastError = (e as Error)?.message ?? String(e);
          this.restart(`watch error: ${this.#lastError}`);
        });
        instance.on('ready', () => {
          clearInterval(sweep);
          if (current()) this.#onReady(instance);
        });
      })
      .catch((e: unknown) => {
        if (!current()) return;
        this.#lastError = (e as Error)?.message ?? String(e);
        this.restart(`the watch could not start: ${this.#lastError}`);
      });
  }

  #onRaw(name: string | null, watchedPath: string | undefined): void {
    this.#events++;
    if (this.#batch++ === 0) setImmediate(() => (this.#batch = 0));
    if (this.#state !== 'live') return;
    if (this.#batch > this.#burstLimit) {
      this.restart(`${this.#batch} file events in one batch (more than ${this.#burstLimit}: the kernel's event queue may have overflowed)`);
      return;
    }
    if (!name || !watchedPath) {
      this.restart('a file event without a name');
      return;
    }
    const rel = path.relative(this.root, path.join(watchedPath, name));
    if (rel === '' || rel === '..' || rel.startsWith(`..${path.sep}`) || path.isAbsolute(rel)) return;
    const parts = rel.split(path.sep);
    if (parts.some((c) => c.startsWith('.'))) return;
    if (this.#pending.size >= MAX_PENDING_PATHS) this.#overfull = true;
    else this.#pending.add(parts.join('/'));
  }

  /**
   * chokidar is ready: every folder it found is under watch. A folder created
   * while it was reading the tree may have escaped (it reads a folder before it
   * watches it), so list the folders afresh and rebuild if any is unwatched.
   */
  #onReady(instance: FSWatcher): void {
    const watched = new Set(Object.keys(instance.getWatched()));
    const folders = listVaultDirs(this.root);
    const missing = folders.find((d) => !watched.has(d));
    if (missing !== undefined) {
      this.restart(`folder ${JSON.stringify(path.relative(this.root, missing))} escaped the watch while it was set up`);
      return;
    }
    this.#folders = folders.length;
    this.#state = 'live';
    this.#reason = null;
    this.#baselineDue = true;
  }
}

/** Half of /proc/sys/fs/inotify/max_queued_events (16384 by default), else 2000. */
function defaultBurstLimit(): number {
  try {
    const queued = Number(fs.readFileSync('/proc/sys/fs/inotify/max_queued_events', 'utf8').trim());
    if (Number.isFinite(queued) && queued > 0) return Math.max(1, Math.min(8192, Math.floor(queued / 2)));
  } catch {
    // not Linux, or /proc not mounted
  }
  return 2000;
}
