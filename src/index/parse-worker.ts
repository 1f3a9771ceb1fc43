import { workerData, type MessagePort } from 'node:worker_threads';
import { prepareNote } from './prepare-note.js';

/**
 * A parse-pool worker (parse-pool.ts): prepares its share of notes and posts each
 * result on its port as `[job index, Prepared]`, then bumps the shared counter so
 * the main thread, blocked in Atomics.wait, wakes up and collects it.
 */
interface Job {
  root: string;
  jobs: [number, string][];
  port: MessagePort;
  signal: Int32Array;
}

const { root, jobs, port, signal } = workerData as Job;
for (const [index, path] of jobs) {
  port.postMessage([index, prepareNote(root, path)]);
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
}
port.close();
