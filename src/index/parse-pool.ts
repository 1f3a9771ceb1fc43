import os from 'node:os';
import { MessageChannel, Worker, receiveMessageOnPort, type MessagePort } from 'node:worker_threads';
import type { Prepared } from './prepare-note.js';

/**
 * Parse notes on worker threads while the caller writes them to SQLite, keeping
 * refresh synchronous: the main thread never returns to the event loop, it pulls
 * results with receiveMessageOnPort and sleeps in Atomics.wait on a shared counter
 * the workers bump after each post.
 *
 * Parsing (lezer + our text pipeline) is ~70% of a cold index's CPU and the
 * writes ~25%, so this is where a second core pays. If no worker answers within
 * {@link STALL_MS} (a worker failed to start, or died), the pool is abandoned and
 * the caller prepares what is left itself: a slower index, never a hung one.
 */

const MAX_WORKERS = 4;

/**
 * Workers by default: one per core beyond the first, at most {@link MAX_WORKERS},
 * and none below 4 cores. Measured on the 2-core build machine, cold index:
 * - idle: frontend-vault-ru 5.0–5.2 s with 2 workers vs 6.3–6.6 s inline; the 10k
 *   synthetic vault 9.3 s vs 12.6 s — but peak RSS 355 MB vs 248 MB;
 * - under load from other processes: 7.5–10 s vs 6.3–7.3 s (cloning the prepared
 *   rows and loading the parser per worker cost ~2 s of CPU no spare core pays back).
 * So two cores stay inline by default; `VAULTGATE_PARSE_WORKERS=2` opts in.
 */
export function defaultParseWorkers(): number {
  const cores = os.availableParallelism();
  return cores >= 4 ? Math.min(MAX_WORKERS, cores - 1) : 0;
}
const STALL_MS = 20_000;
/** Workers load the parser first; none answering by then means they could not start. */
const START_MS = 10_000;

/**
 * The worker script, from the compiled package only: a TypeScript source run under
 * a loader (tests use `--import tsx`) cannot start a worker from a `.ts` file, so
 * there the notes are prepared inline (the e2e tests exercise the pool through
 * the built binary).
 */
function workerUrl(): URL | null {
  return import.meta.url.endsWith('.js') ? new URL('./parse-worker.js', import.meta.url) : null;
}

/**
 * Prepare `paths` in parallel, calling `onResult(index, prepared)` on this thread
 * in completion order. Returns the paths that were handled; the caller prepares
 * any others itself (all of them when workers are unavailable).
 */
export function prepareInParallel(
  root: string,
  paths: string[],
  onResult: (index: number, prepared: Prepared) => void,
  workersWanted?: number,
): { done: Set<string> } {
  const done = new Set<string>();
  const url = workerUrl();
  const count = Math.min(workersWanted ?? defaultParseWorkers(), paths.length);
  if (url === null || count < 1) return { done };
  const signal = new Int32Array(new SharedArrayBuffer(8)); // [posted, taken]
  const workers: Worker[] = [];
  const ports: MessagePort[] = [];
  try {
    for (let w = 0; w < count; w++) {
      const jobs: [number, string][] = [];
      // Interleaved shares balance big and small notes across workers.
      for (let i = w; i < paths.length; i += count) jobs.push([i, paths[i]!]);
      const { port1, port2 } = new MessageChannel();
      const worker = new Worker(url, { workerData: { root, jobs, port: port2, signal }, transferList: [port2] });
      worker.unref();
      // A failing worker is noticed by the stall timer; its error event fires only
      // after this synchronous function returns and must not become an uncaught exception.
      worker.on('error', () => {});
      workers.push(worker);
      ports.push(port1);
    }
    let lastProgress = Date.now();
    while (done.size < paths.length) {
      const seen = Atomics.load(signal, 0);
      let got = false;
      for (const port of ports) {
        for (let m = receiveMessageOnPort(port); m !== undefined; m = receiveMessageOnPort(port)) {
          const [index, prepared] = m.message as [number, Prepared];
          done.add(paths[index]!);
          onResult(index, prepared);
          Atomics.add(signal, 1, 1);
          Atomics.notify(signal, 1);
          got = true;
        }
      }
      if (got) lastProgress = Date.now();
      else if (Date.now() - lastProgress > (done.size === 0 ? START_MS : STALL_MS)) break;
      else if (done.size < paths.length) Atomics.wait(signal, 0, seen, 200);
    }
  } finally {
    for (const port of ports) port.close();
    for (const worker of workers) void worker.terminate();
  }
  return { done };
}
