import os from 'node:os';
import type { MessagePort, Worker } from 'node:worker_threads';
import { loadWorkerThreads } from '../lazy-require.js';
import { prepareNote, type Prepared } from './prepare-note.js';

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
 * Workers by default: one per core beyond the first, at most {@link MAX_WORKERS},
 * and none below 4 cores. Measured on the 2-core build machine, cold index of the
 * 10k synthetic vault, one worker vs none:
 * - idle: 6.8–7.2 s vs 9.9–11.8 s wall;
 * - with another process keeping one core busy: 14.0 s vs 9.9 s wall (12.8 s vs
 *   8.9 s CPU: each thread compiles and warms up the parser on its own, and every
 *   result is cloned across);
 * - peak RSS 330 MB vs 230 MB (a second V8 heap full of parse garbage).
 * So two cores stay inline by default; `VAULTGATE_PARSE_WORKERS=1` opts in.
 */
export function defaultParseWorkers(): number {
  const cores = os.availableParallelism();
  return cores >= 4 ? Math.min(MAX_WORKERS, cores - 1) : 0;
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
 * Prepare the notes at `paths` and call `write(index, prepared)` for each, in
 * index order, using `workers` threads besides this one (0: all on this thread).
 */
export function prepareInOrder(root: string, paths: string[], write: (index: number, prepared: Prepared) => void, workers: number): void {
  const url = workerUrl();
  const count = Math.min(workers, paths.length);
  let next = 0;
  const ready = new Map<number, Prepared>();
  if (url !== null && count >= 1) {
    const { MessageChannel, Worker, receiveMessageOnPort } = loadWorkerThreads();
    const signal = new Int32Array(new SharedArrayBuffer(12));
    const threads: Worker[] = [];
    const ports: MessagePort[] = [];
    try {
      for (let w = 0; w < count; w++) {
        const { port1, port2 } = new MessageChannel();
        const worker = new Worker(url, { workerData: { root, paths, port: port2, signal }, transferList: [port2] });
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
