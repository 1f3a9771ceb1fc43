import { workerData, type MessagePort } from 'node:worker_threads';
import { prepareNote } from './prepare-note.js';

/**
 * A parse-pool worker (parse-pool.ts): prepares its share of notes and posts each
 * result on its port as `[job index, Prepared]`, then bumps the shared counter
 * `signal[0]` (posted) so the main thread, blocked in Atomics.wait, wakes up and
 * collects it; the main thread counts what it took in `signal[1]`.
 */
interface Job {
  root: string;
  jobs: [number, string][];
  port: MessagePort;
  signal: Int32Array;
}

/** Results posted but not yet taken by the main thread, across workers, before this one pauses. */
const MAX_AHEAD = 64;

const { root, jobs, port, signal } = workerData as Job;
for (const [index, path] of jobs) {
  const prepared = prepareNote(root, path);
  // Backpressure: a main thread busy writing must not find thousands of parsed notes queued in memory.
  for (let taken = Atomics.load(signal, 1); Atomics.load(signal, 0) - taken >= MAX_AHEAD; taken = Atomics.load(signal, 1)) {
    Atomics.wait(signal, 1, taken, 100);
  }
  port.postMessage([index, prepared]);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}
port.close();
