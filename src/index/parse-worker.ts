import { workerData, type MessagePort } from 'node:worker_threads';
import { NEXT, POSTED, TAKEN } from './parse-pool.js';
import { prepareNote } from './prepare-note.js';
import type { WalkedFile } from '../vault/index.js';

/**
 * A parse-pool worker (parse-pool.ts): claims notes from the shared counter
 * `signal[NEXT]`, prepares each and posts `[index, Prepared]` on its port, then
 * bumps `signal[POSTED]` so the main thread, blocked in Atomics.wait, wakes up and
 * collects it; the main thread counts what it took in `signal[TAKEN]`.
 */
interface Job {
  root: string;
  paths: (string | WalkedFile)[];
  port: MessagePort;
  signal: Int32Array;
}

/** Results posted but not yet taken by the main thread, across workers, before this one pauses. */
const MAX_AHEAD = 64;

const { root, paths, port, signal } = workerData as Job;
for (let index = Atomics.add(signal, NEXT, 1); index < paths.length; index = Atomics.add(signal, NEXT, 1)) {
  const prepared = prepareNote(root, paths[index]!);
  // Backpressure: a main thread busy writing must not find thousands of parsed notes queued in memory.
  for (let taken = Atomics.load(signal, TAKEN); Atomics.load(signal, POSTED) - taken >= MAX_AHEAD; taken = Atomics.load(signal, TAKEN)) {
    Atomics.wait(signal, TAKEN, taken, 100);
  }
  port.postMessage([index, prepared]);
  Atomics.add(signal, POSTED, 1);
  Atomics.notify(signal, POSTED);
}
port.close();
