import os from 'node:os';
import type { MessagePort, Worker } from 'node:worker_threads';
import { loadWorkerThreads } from '../lazy-require.js';
import { prepareNote, type Prepared } from './prepare-note.js';
import type { WalkedFile } from '../vault/index.js';

/**
 * Prepare (read, hash, parse) a batch of notes on worker threads and on this
 * thread together, handing the results to the caller in input order. Refresh
 * stays synchronous: this thread never returns to the event loop, it pulls
 * results with receiveMessageOnPort and sleeps in Atomics.wait on a shared
 * counter the workers bump after each post.
 *
 * Work is shared, not split up front: every thread claims the next note from a
 * shared counter, and this thread claims one whenever it has nothing to write.
 * So no core idles while another has work (this thread writes SQLite ~40% of the
 * time), and a worker slowed by other processes just claims fewer notes.
 * Results are written in input order, so the rows (and their ids) are the same
 * with any number of workers; a note finished early waits in a bounded buffer.
 *
 * If a claimed note does not arrive within {@link STALL_MS} while this thread
 * waits for it (a worker failed to start, or died), the pool is abandoned and
 * the rest is prepared here: a slower index, never a hung one.
 */

const MAX_WORKERS = 4;

/**
 * How many workers prepare a batch: a fixed number (0: all on this thread), or
 * `'spare'`: start on this thread and add workers only while the machine has a
 * core nobody uses ({@link SpareCoreProbe}).
 */
export type PoolSize = number | 'spare';

/**
 * Workers by default: one per core beyond the first, at most {@link MAX_WORKERS},
 * from 4 cores on; below that, only when a core is spare right now. Measured on
 * the 2-core build machine, cold index of the 10k synthetic vault, one worker vs none:
 * - idle: 6.8–7.2 s vs 9.9–11.8 s wall;
 * - with another process keeping one core busy: 14.0 s vs 9.9 s wall (12.8 s vs
 *   8.9 s CPU: each thread compiles and warms up the parser on its own, and every
 *   result is cloned across);
 * - peak RSS 330 MB vs 230 MB (a second V8 heap full of parse garbage).
 * So two cores must not start a worker blindly: `'spare'` looks first
 * ({@link SpareCoreProbe}). Measured the same way with it (nice 5, the machine
 * shared, load ~2 of which ~1 ours), default vs `VAULTGATE_PARSE_WORKERS=0`:
 * - idle: 8.9–10.1 s vs 11.9–13.1 s wall (14.2–16.6 s vs 13.0–14.3 s CPU; peak
 *   RSS 226–228 MB vs 216–219 MB);
 * - another process spinning on a core (`node -e 'for(;;){}'`): no worker starts,
 *   12.6–13.2 s vs 12.5–13.0 s wall (a forced worker: 15.1 s).
 * `VAULTGATE_PARSE_WORKERS=N` overrides either way.
 */
export function defaultParseWorkers(): PoolSize {
  const cores = os.availableParallelism();
  return cores >= 4 ? Math.min(MAX_WORKERS, cores - 1) : 'spare';
}

/** How long this thread prepares alone before it first asks whether a core is spare, and then how often again. */
const PROBE_FIRST_MS = 250;
const PROBE_AGAIN_MS = 1000;
/** Idle share of a core, over the last probe's window, that counts as a spare core. */
const SPARE_CORE = 0.7;
/** Notes left below which a worker is not worth starting (it compiles and warms up the parser first). */
const MIN_NOTES_FOR_WORKER = 200;
/** Memory the machine must have available to start a worker (its heap grows to ~100 MB). */
const MIN_FREE_BYTES = 512 * 1024 * 1024;
/**
 * Above this many notes a batch stays on this thread even with a core spare: the
 * peak memory of a big build is the budget that binds (the bench's < 300 MB for 100k
 * notes). Cold index of the 100k synthetic vault with one worker: 364 MB peak RSS
 * (2:04 wall, 152 s CPU) vs 254 MB on this thread alone (2:12 wall, 126 s CPU).
 */
const MAX_NOTES_FOR_SPARE_WORKER = 20_000;

/**
 * Whether the machine has a core nobody else uses right now: the idle time of
 * all cores (os.cpus) between two samples, plus what this process itself used
 * beyond the one core its main thread takes, in cores. On an idle 2-core
 * machine that is ~1.0 and with another process spinning ~0. This process's
 * own helper threads count as ours, not as someone else's: in a cold index's
 * first seconds V8's compiler and GC threads keep 0.3–0.6 of the second core
 * busy, and an idle-time-only probe read that as a busy machine and started
 * the worker ~2 s late (probes of 0.32–0.44, 0.66–0.68, 0.86 cores spare
 * at 0.25, 1.25 and 2.25 s on an idle machine, three runs). Counting them as
 * ours, the worker starts at the first probe: cold index of the 10k synthetic
 * vault 7.2–7.3 s wall instead of 7.5–7.7 s; with `node -e 'for(;;){}'`
 * spinning, still no worker.
 * A sample, not the load average: a 1-minute average still
 * counts a build that ended 30 s ago, and not yet one that started 5 s ago.
 * Where os.cpus() does not describe the cores this process may use (a cgroup
 * CPU limit), nothing is ever spare: no worker, as before. A worker once started
 * stays: a process that takes the spare core later makes the build as slow as a
 * forced worker under load (above), which the probe does not undo.
 */
export class SpareCoreProbe {
  #last: CpuSample;
  #due: number;
  readonly #usable = os.cpus().length === os.availableParallelism();

  constructor(now = Date.now()) {
    this.#last = cpuSample();
    this.#due = now + PROBE_FIRST_MS;
  }

  /** Workers to start now (0: not now, ask again later). */
  workers(notesLeft: number, now = Date.now()): number {
    if (now < this.#due) return 0;
    this.#due = now + PROBE_AGAIN_MS;
    const sample = cpuSample();
    const spare = spareCores(this.#last, sample, sample.cores);
    this.#last = sample;
    if (!this.#usable || notesLeft < MIN_NOTES_FOR_WORKER || os.freemem() < MIN_FREE_BYTES) return 0;
    return Math.min(MAX_WORKERS, os.availableParallelism() - 1, Math.floor(spare + (1 - SPARE_CORE)));
  }
}

/** The machine's idle and total core time and this process's own CPU time, all in ms. */
export interface CpuSample {
  idle: number;
  total: number;
  own: number;
}

function cpuSample(): CpuSample & { cores: number } {
  const cpus = os.cpus();
  let idle = 0;
  let total = 0;
  for (const { times: t } of cpus) {
    idle += t.idle;
    total += t.user + t.nice + t.sys + t.idle + t.irq;
  }
  const { user, system } = process.cpuUsage();
  return { idle, total, own: (user + system) / 1000, cores: cpus.length };
}

/**
 * Cores nobody else used between two {@link CpuSample}s: the idle ones, plus
 * what this process used beyond its main thread's one core (0 when no time
 * passed). The machine's counters tick in 10 ms steps, this process's in µs, so
 * the sum is clamped to the machine's cores.
 */
export function spareCores(a: CpuSample, b: CpuSample, cores: number): number {
  const total = b.total - a.total;
  if (total <= 0) return 0;
  const window = total / cores;
  const idle = ((b.idle - a.idle) / total) * cores;
  const ownBeyondMain = Math.max(0, (b.own - a.own) / window - 1);
  return Math.min(cores - 1, idle + ownBeyondMain);
}

const STALL_MS = 20_000;
/** Results prepared ahead of the next one to write (by this thread, while a worker is on a big note). */
const MAX_READY = 256;

/** Shared counters: results posted by workers, results taken by this thread, next note to claim. */
export const POSTED = 0;
export const TAKEN = 1;
export const NEXT = 2;

/**
 * The worker script, from the compiled package only: a TypeScript source run under
 * a loader (tests use `--import tsx`) cannot start a worker from a `.ts` file, so
 * there the notes are prepared inline (the e2e tests exercise the pool through
 * the built binary).
 */
function workerUrl(): URL | null {
  return /\.c?js$/.test(import.meta.url) ? new URL('./parse-worker.js', import.meta.url) : null;
}

/**
 * A worker's young generation, in MB (V8's default is 16–32): the worker's heap
 * is mostly short-lived parse garbage, and a smaller nursery is emptied sooner.
 * Cold index of the 10k synthetic vault with one worker: peak RSS 255 MB vs
 * 288–315 MB with the default, wall time the same (7.6 s vs 7.6–8.2 s).
 */
const WORKER_YOUNG_MB = 8;

/**
 * Prepare the notes at `paths` (vault paths, or files as the stat walk found
 * them: readNoteText) and call `write(index, prepared)` for each, in
 * index order, using `workers` threads besides this one (0: all on this thread;
 * `'spare'`: as many as a {@link SpareCoreProbe} finds cores for, once it does).
 */
export function prepareInOrder(
  root: string,
  paths: readonly (string | WalkedFile)[],
  write: (index: number, prepared: Prepared) => void,
  workers: PoolSize,
  probe?: Pick<SpareCoreProbe, 'workers'>,
): void {
  const url = workerUrl();
  let next = 0;
  let count = typeof workers === 'number' ? workers : 0;
  if (workers === 'spare' && url !== null && paths.length <= MAX_NOTES_FOR_SPARE_WORKER) {
    // Alone first; workers join once the probe finds a core spare (the same rows either way).
    probe ??= new SpareCoreProbe();
    while (next < paths.length && (count = probe.workers(paths.length - next)) === 0) {
      write(next, prepareNote(root, paths[next]!));
      next++;
    }
  }
  count = Math.min(count, paths.length - next);
  const ready = new Map<number, Prepared>();
  if (url !== null && count >= 1) {
    const { MessageChannel, Worker, receiveMessageOnPort } = loadWorkerThreads();
    const signal = new Int32Array(new SharedArrayBuffer(12));
    // Workers claim from where this thread got to alone.
    Atomics.store(signal, NEXT, next);
    const threads: Worker[] = [];
    const ports: MessagePort[] = [];
    try {
      for (let w = 0; w < count; w++) {
        const { port1, port2 } = new MessageChannel();
        const worker = new Worker(url, {
          workerData: { root, paths, port: port2, signal },
          transferList: [port2],
          resourceLimits: { maxYoungGenerationSizeMb: WORKER_YOUNG_MB },
        });
        worker.unref();
        // A failing worker is noticed by the stall timer; its error event fires only
        // after this synchronous function returns and must not become an uncaught exception.
        worker.on('error', () => {});
        threads.push(worker);
        ports.push(port1);
      }
      let lastProgress = Date.now();
      while (next < paths.length) {
        const seen = Atomics.load(signal, POSTED);
        for (const port of ports) {
          for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) {
            const [index, prepared] = m.message as [number, Prepared];
            ready.set(index, prepared);
            Atomics.add(signal, TAKEN, 1);
            Atomics.notify(signal, TAKEN);
            lastProgress = Date.now();
          }
        }
        for (let p = ready.get(next); p !== undefined; p = ready.get(next)) {
          ready.delete(next);
          write(next++, p);
        }
        if (next >= paths.length) break;
        if (ready.size < MAX_READY) {
          const mine = Atomics.add(signal, NEXT, 1);
          if (mine < paths.length) {
            ready.set(mine, prepareNote(root, paths[mine]!));
            lastProgress = Date.now();
            continue;
          }
        }
        // Everything is claimed (or enough is buffered): the next note is a worker's.
        if (Date.now() - lastProgress > STALL_MS) break;
        Atomics.wait(signal, POSTED, seen, 200);
      }
    } finally {
      for (const port of ports) port.close();
      for (const worker of threads) void worker.terminate();
    }
  }
  // No workers, or a stalled pool: the rest is prepared here.
  for (; next < paths.length; next++) write(next, ready.get(next) ?? prepareNote(root, paths[next]!));
}
