import { createRequire } from 'node:module';
import { workerData, type MessagePort } from 'node:worker_threads';
import type DatabaseConstructor from 'better-sqlite3';
import { BUSY_TIMEOUT_MS, CACHE_KIB, type Db } from './db.js';
import { answerShard, type ShardQuery } from './read-pool.js';

/**
 * A read-pool worker (read-pool.ts): its own read-only connection to the index
 * file; claims each shard job posted on its port (unless the caller took it
 * back), answers it with the stamp of the index's content it read, then bumps
 * the shared counter so the waiting thread wakes.
 * A failure is answered too (the shard is then answered by the caller).
 */
interface Setup {
  file: string;
  port: MessagePort;
  signal: Int32Array;
  /** This worker's claim slot in `signal`: the number of the job posted to it, until someone claims it. */
  slot: number;
}

const { file, port, signal, slot } = workerData as Setup;
const Database = createRequire(import.meta.url)('better-sqlite3') as typeof DatabaseConstructor;
// Opened now, so the first query does not pay for it; a failure is retried at the first job.
let db: Db | null = null;
try {
  db = openReadOnly();
} catch {
  db = null;
}

port.on('message', (job: { job: number; queries: ShardQuery[] }) => {
  // Claimed already: the caller answered it itself (it was not started in time), or it is an old job.
  if (Atomics.compareExchange(signal, slot, job.job, -job.job) !== job.job) return;
  try {
    db ??= openReadOnly();
    const { stamp, answers } = answerShard(db, job.queries);
    port.postMessage({ job: job.job, stamp, answers });
  } catch (e) {
    port.postMessage({ job: job.job, error: e instanceof Error ? e.message : String(e) });
  }
  Atomics.add(signal, 0, 1);
  Atomics.notify(signal, 0);
});

function openReadOnly(): Db {
  const conn = new Database(file, { readonly: true, fileMustExist: true, timeout: BUSY_TIMEOUT_MS });
  conn.pragma(`cache_size = -${CACHE_KIB}`);
  return conn;
}
