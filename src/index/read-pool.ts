import fs from 'node:fs';
import os from 'node:os';
import type { MessagePort, Worker } from 'node:worker_threads';
import { loadWorkerThreads } from '../lazy-require.js';
import { storedMeta, type Db } from './db.js';
import { SECTION_BITS } from './schema.js';

/**
 * Intra-query parallelism for a long-lived session (the daemon, the MCP server,
 * `serve`): the FTS queries of one ranking split by rowid range across threads,
 * each with its own read-only connection to the index file.
 *
 * Why: FTS5 scores every row that matches (bm25 reads each row's sizes and
 * position lists) and cannot prune, so four common words at 100k notes cost
 * ~90 ms of bm25 over ~124k sections on one core. A section's rowid holds its
 * note's id (schema.ts), so cutting the rowid space at note boundaries gives
 * shards whose answers merge exactly: the best k of the whole is among the best
 * k of each shard (FTS5's bm25 takes its idf and average lengths from the whole
 * table, not the range, so a row scores the same in any shard), counts of
 * distinct notes add up, sets of notes unite.
 *
 * The calling thread stays synchronous, as every read is: it posts a shard to
 * each worker, answers the first shard itself, then sleeps in Atomics.wait until
 * the workers' answers are on their ports (parse-pool.ts does the same).
 *
 * Never wrong, never hung:
 * - every shard answers with a stamp of the index's content (meta `refreshed_at`,
 *   `sections`, `scan_digest`, read in the same read transaction as its
 *   queries); a shard whose stamp differs from this thread's (another process
 *   refreshed the index between the two) is answered again here;
 * - a shard whose worker has not started when this thread is done with its own
 *   is taken back, and one started but not answered within {@link PATIENCE}
 *   of this thread's own time is answered here too (its late answer is
 *   dropped): a worker starved of CPU by other processes never makes a query
 *   wait for a core;
 * - a worker that fails, exits, or misses {@link PATIENCE}.dropAfter jobs in a
 *   row is replaced by this thread for the rest of the pool's life.
 */

/** A rowid range, inclusive, made of whole notes. */
export type Shard = readonly [lo: number, hi: number];

/** One statement of a shard's work: `rows` gives every row as an array, `value` the first column of the first row, `column` the first column of every row. */
export interface ShardQuery {
  sql: string;
  params: unknown[];
  kind: 'rows' | 'value' | 'column';
}

/** Answers of one shard, in the order of its queries. */
export type ShardAnswers = unknown[];

/** Builds a shard's queries; `shard` null means the whole table (no range condition). */
export type ShardWork = (shard: Shard | null) => ShardQuery[];

/** When a query is sharded, and how (the defaults: {@link DEFAULT_SHARD_PARAMS}; tests pass others to {@link offerReadPool}). */
export interface ShardParams {
  readonly minSections: number;
  readonly takeBack: boolean;
  readonly spareCore: boolean | null;
}

export const DEFAULT_SHARD_PARAMS: ShardParams = Object.freeze({
  /**
   * Below this many sections a query is a few ms on one thread, and the round
   * trip to a worker and each shard's fixed cost eat the gain: FTS5 reads every
   * term's whole doclist whatever the rowid range, and counts each phrase's rows
   * for its idf once per cursor. Measured on the 10k synthetic vault (51.5k
   * sections), idle, in-process, median of 21, one thread vs sharded in two: one
   * common word 5.0–5.1 vs 6.3–6.6 ms, four 15.3–16.5 vs 13.9–14.2 ms; at 100k
   * notes (523k sections) four common words 137–143 vs 101–104 ms.
   */
  minSections: 60_000,
  /**
   * Whether the calling thread takes back the shards whose workers have not
   * started when it is done with its own, and answers those they are slow to
   * answer (see {@link ReadPool.run}). Off only in tests that need every worker to answer.
   */
  takeBack: true,
  /**
   * Shard only while a core is spare right now ({@link coreSpareNow}); true or
   * false decide instead. With every core busy, a second thread only adds each
   * shard's fixed cost and a wait for the slowest: measured at 100k notes, four
   * common words, with other processes keeping load at 2.5–3.5 on 2 cores:
   * 158–251 ms sharded vs 155–185 ms on one thread. Tests decide.
   */
  spareCore: null,
});

/**
 * Whether a core is spare at this instant for a worker: Linux's count of
 * runnable threads (the fourth field of /proc/loadavg), less this process's own
 * (its V8 helpers and a worker still finishing count there too), leaves a core
 * beside this thread's. An instant, not the 1-minute average, which still
 * counts a build that ended 30 s ago and not yet one that started 5 s ago
 * (parse-pool.ts samples CPU time over a window for the same reason; a query is
 * too short for a window). Elsewhere, the load average.
 *
 * This process's threads are counted just before the system's count is read
 * and, when that says no, again just after; the larger count is ours. Counted
 * only after, a thread of ours runnable when the count was taken and asleep a
 * moment later passed for another process's: a process querying 100k notes in the peer bench declined
 * 7 of its 23 looks so (1- and 4-word searches), every one with no other process runnable when
 * looked at (the query then takes ~125 ms on one thread instead of ~85 sharded).
 */
export function coreSpareNow(cores = os.availableParallelism(), loadavg: () => string | null = readLoadavg, ownRunnable = runnableThreadsOfThisProcess): boolean {
  const before = ownRunnable();
  const runnable = /\s(\d+)\/\d+\s/.exec(loadavg() ?? '');
  if (!runnable) return (os.loadavg()[0] ?? 0) < cores - 0.5;
  const running = Number(runnable[1]);
  if (running - before <= cores - 2) return true;
  return running - Math.max(before, ownRunnable()) <= cores - 2;
}

/**
 * {@link coreSpareNow}, looked at again up to {@link SPARE_LOOKS} times 0.3 ms
 * apart while it says no: a thread that is runnable for an instant (the CLI
 * process that just sent this request, on its way to wait for the answer) is not
 * a busy core; one still runnable a millisecond later is.
 */
function spareAfterLooks(): boolean {
  for (let i = 1; ; i++) {
    if (coreSpareNow()) return true;
    if (i === SPARE_LOOKS) return false;
    Atomics.wait(PAUSE, 0, 0, 0.3);
  }
}
const SPARE_LOOKS = 4;
const PAUSE = new Int32Array(new SharedArrayBuffer(4));

/** This process's threads in state R (running or runnable), from /proc/self/task; this thread is one of them. */
function runnableThreadsOfThisProcess(): number {
  let ids: string[];
  try {
    ids = fs.readdirSync('/proc/self/task');
  } catch {
    return 1;
  }
  let count = 0;
  for (const id of ids) {
    let stat: string;
    try {
      stat = fs.readFileSync(`/proc/self/task/${id}/stat`, 'utf8');
    } catch {
      continue; // a thread that ended since the listing
    }
    // "pid (comm) S ...": the state follows the last ')' (a thread's name may hold one).
    if (stat.charAt(stat.lastIndexOf(')') + 2) === 'R') count++;
  }
  return Math.max(1, count);
}

function readLoadavg(): string | null {
  try {
    return fs.readFileSync('/proc/loadavg', 'utf8');
  } catch {
    return null;
  }
}

const MAX_WORKERS = 3;
/**
 * How long a started shard is waited for: its worker does the same work as
 * this thread did for its own shard, so `factor` times that (at least `minMs`)
 * means it is not running; a worker that misses `dropAfter` jobs in a row is
 * dropped.
 */
const PATIENCE = { factor: 2, minMs: 5, dropAfter: 5 };
/** The longest any wait lasts (tests that turn taking back off). */
const STALL_MS = 10_000;

/** Shared counter: answers posted by workers (each bumps it and notifies). */
const POSTED = 0;

/** The stamp of the index's content a shard was answered from. */
const STAMP_SQL = `SELECT group_concat(key || '=' || value, '|') FROM (SELECT key, value FROM meta WHERE key IN ('refreshed_at', 'sections', 'scan_digest') ORDER BY key)`;

/** Run one shard's queries in one read transaction, with the stamp of what they read. */
export function answerShard(db: Db, queries: ShardQuery[]): { stamp: string | null; answers: ShardAnswers } {
  return db.transaction(() => {
    const stamp = db.prepare(STAMP_SQL).pluck().get() as string | null;
    return { stamp, answers: queries.map((q) => runQuery(db, q)) };
  })();
}

function runQuery(db: Db, q: ShardQuery): unknown {
  const st = db.prepare(q.sql);
  if (q.kind === 'rows') return st.raw().all(...q.params);
  if (q.kind === 'column') return st.pluck().all(...q.params);
  return st.pluck().get(...q.params);
}

/** Worker threads by default: one per core beyond the first, at most {@link MAX_WORKERS}. */
export function defaultReadWorkers(): number {
  return Math.min(MAX_WORKERS, os.availableParallelism() - 1);
}

interface Thread {
  worker: Worker;
  port: MessagePort;
  /** Its claim slot in the shared array. */
  slot: number;
  /** Jobs in a row it did not answer in time. */
  misses: number;
}

/** The worker script, from the compiled package only (see parse-pool.ts: a `.ts` source cannot start one). */
function workerUrl(): URL | null {
  return /\.c?js$/.test(import.meta.url) ? new URL('./read-worker.js', import.meta.url) : null;
}

/**
 * What a pool did (`daemon status`): the threads still answering; sharded runs;
 * and their workers' shards answered by the worker, taken back before it
 * started, or answered here because it was late.
 */
export interface ReadPoolStatus {
  workers: number;
  runs: number;
  answered: number;
  taken_back: number;
  late: number;
}

export class ReadPool {
  readonly #stats: Omit<ReadPoolStatus, 'workers'> = { runs: 0, answered: 0, taken_back: 0, late: 0 };
  #threads: Thread[];
  #signal: Int32Array;
  #job = 0;
  #shards: { key: string; shards: Shard[] } | null = null;

  private constructor(threads: Thread[], signal: Int32Array) {
    this.#threads = threads;
    this.#signal = signal;
  }

  /**
   * A pool of `workers` threads reading `file`; null when there is no worker
   * script or no worker to start. `url`: the worker script (tests running the
   * TypeScript sources pass the compiled one).
   */
  static open(file: string, workers = defaultReadWorkers(), url = workerUrl()): ReadPool | null {
    if (url === null || workers < 1) return null;
    const { MessageChannel, Worker } = loadWorkerThreads();
    // [POSTED, then one claim slot per worker]
    const signal = new Int32Array(new SharedArrayBuffer(4 * (1 + workers)));
    const threads: Thread[] = [];
    for (let i = 0; i < workers; i++) {
      const { port1, port2 } = new MessageChannel();
      const slot = 1 + i;
      const worker = new Worker(url, { workerData: { file, port: port2, signal, slot }, transferList: [port2] });
      // A worker never keeps the process alive; one that fails to start or dies is dropped.
      worker.unref();
      const thread: Thread = { worker, port: port1, slot, misses: 0 };
      threads.push(thread);
      worker.on('error', () => pool.#drop(thread));
      worker.on('exit', () => pool.#drop(thread));
    }
    const pool = new ReadPool(threads, signal);
    return pool;
  }

  /** Threads still answering. */
  get workers(): number {
    return this.#threads.length;
  }

  /** What `daemon status` shows of it. */
  status(): ReadPoolStatus {
    return { workers: this.#threads.length, ...this.#stats };
  }

  /**
   * The shards of the index for this many threads (this one and the workers):
   * the note id space cut into equal runs. Notes are numbered in the order
   * they were first indexed, so the runs hold about as many notes; a vault
   * that lost most of one run's notes shards unevenly, which is slower, never
   * wrong. (Cutting at section quantiles took an OFFSET scan of the sections
   * table: 63 ms warm, 390 ms cold at 100k notes.) Null when no worker is left.
   */
  shards(db: Db): Shard[] | null {
    if (this.#threads.length === 0) return null;
    const maxNote = (db.prepare('SELECT max(id) FROM files').pluck().get() as number | null) ?? 0;
    const key = `${maxNote}|${this.#threads.length}`;
    if (this.#shards?.key !== key) this.#shards = { key, shards: cutShards(maxNote, this.#threads.length + 1) };
    return this.#shards.shards;
  }

  /**
   * Run `work` on every shard: the first here, each other one on a worker,
   * unless this thread gets to it first. Answers in shard order. Throws what
   * answering a shard here throws (a corrupt index, a busy lock); a worker's
   * failure only moves its shard here.
   *
   * A shard is claimed before it is answered, by compare-and-swap on its
   * worker's slot (the job number: unclaimed; its negation: the worker's): once
   * this thread has answered its own shard, it takes back every shard whose
   * worker has not started. So a worker starved of CPU by other processes costs
   * little more than answering on one thread (each extra shard re-counts its
   * terms' rows for their idf), never a wait for a core.
   */
  run(db: Db, shards: Shard[], work: ShardWork, takeBack = DEFAULT_SHARD_PARAMS.takeBack): ShardAnswers[] {
    const { receiveMessageOnPort } = loadWorkerThreads();
    const job = ++this.#job;
    this.#stats.runs++;
    const posted = shards.map((shard, i) => {
      const thread = i === 0 ? undefined : this.#threads[i - 1];
      if (!thread) return null;
      Atomics.store(this.#signal, thread.slot, job);
      thread.port.postMessage({ job, queries: work(shard) });
      return thread;
    });
    const started = performance.now();
    const here = answerShard(db, work(shards[0]!));
    const answers: ShardAnswers[] = [here.answers];
    const waitUntil = performance.now() + Math.max(PATIENCE.minMs, PATIENCE.factor * (performance.now() - started));
    for (let i = 1; i < shards.length; i++) {
      const thread = posted[i];
      let reply: { job: number; stamp?: string | null; answers?: ShardAnswers; error?: string } | undefined;
      const takenBack = !thread || (takeBack && Atomics.compareExchange(this.#signal, thread.slot, job, 0) === job);
      while (!takenBack && this.#threads.includes(thread)) {
        const seen = Atomics.load(this.#signal, POSTED);
        const message = receiveMessageOnPort(thread.port);
        if (message) {
          thread.misses = 0;
          if ((message.message as { job: number }).job === job) {
            reply = message.message;
            break;
          }
          continue; // a late answer to an earlier job
        }
        const left = waitUntil - performance.now();
        // Not answered in time; or, in tests that wait for every worker, not at all (a worker that never started: its error event cannot run while this thread waits).
        if ((left <= 0 && takeBack) || left <= -STALL_MS) {
          if (++thread.misses >= PATIENCE.dropAfter || left <= -STALL_MS) this.#drop(thread);
          break;
        }
        Atomics.wait(this.#signal, POSTED, seen, Math.max(1, left));
      }
      if (reply?.error !== undefined && thread) this.#drop(thread);
      if (takenBack) this.#stats.taken_back++;
      else if (reply?.answers) this.#stats.answered++;
      else this.#stats.late++;
      // Taken back, not answered in time, a failure, or an answer from another state of the index: answered here.
      answers.push(reply?.answers && reply.stamp === here.stamp ? reply.answers : answerShard(db, work(shards[i]!)).answers);
    }
    return answers;
  }

  #drop(thread: Thread): void {
    if (!this.#threads.includes(thread)) return;
    this.#threads = this.#threads.filter((t) => t !== thread);
    this.#shards = null;
    thread.port.close();
    void thread.worker.terminate();
  }

  close(): void {
    for (const t of this.#threads) {
      t.port.close();
      void t.worker.terminate();
    }
    this.#threads = [];
  }
}

/** Cut the note id space `0..maxNote` into `count` runs of whole notes (see {@link ReadPool.shards}). */
function cutShards(maxNote: number, count: number): Shard[] {
  const shards: Shard[] = [];
  let lo = 0;
  for (let i = 1; i < count; i++) {
    // A cut falls between two notes: a note is never split.
    const cut = Math.floor((maxNote * i) / count) * 2 ** SECTION_BITS;
    if (cut <= lo) continue;
    shards.push([lo, cut - 1]);
    lo = cut;
  }
  shards.push([lo, Number.MAX_SAFE_INTEGER]);
  return shards;
}

/**
 * The pools of long-lived sessions, by connection: retrieval/rank.ts finds one here. A
 * pool is started on the first query that gains from it, so a session over a
 * small vault never starts a thread.
 */
const pools = new WeakMap<
  Db,
  { start: () => ReadPool | null; pool?: ReadPool | null; spare: () => boolean; params: ShardParams; memo: { stamp: string | null; rows: Map<string, number> } }
>();

/**
 * How long one look at the runnable threads answers for: the rounds of one
 * query follow each other within milliseconds, and a worker that has just
 * posted its answer may still count as runnable when the next round asks.
 */
const SPARE_LOOK_MS = 50;

/** Let queries on `db` use the pool `start` makes (called once, on first need), sharding as `params` say. */
export function offerReadPool(db: Db, start: () => ReadPool | null, params: ShardParams = DEFAULT_SHARD_PARAMS): void {
  let look = { at: -Infinity, spare: false };
  const spare = () => {
    const now = performance.now();
    if (now - look.at > SPARE_LOOK_MS) look = { at: now, spare: spareAfterLooks() };
    return look.spare;
  };
  pools.set(db, { start, spare, params, memo: { stamp: null, rows: new Map() } });
}

/**
 * A long-lived session's memory of how many rows of FTS table `fts` each query
 * term matches (the idf of coverage: ~2 ms per common word at 100k notes, for
 * every shard), valid for one state of the index: it is dropped when the stamp
 * of the index's content (meta `refreshed_at`, `sections`, `scan_digest`)
 * changes. Null for a one-shot process (no pool offered), which asks once anyway.
 */
export function termRowMemo(db: Db, fts: string): { get(expr: string): number | undefined; set(expr: string, rows: number): void } | null {
  const offer = pools.get(db);
  if (!offer) return null;
  const stamp = db.prepare(STAMP_SQL).pluck().get() as string | null;
  if (offer.memo.stamp !== stamp) offer.memo = { stamp, rows: new Map() };
  const rows = offer.memo.rows;
  return { get: (expr) => rows.get(`${fts}\0${expr}`), set: (expr, n) => void (rows.size < 10_000 && rows.set(`${fts}\0${expr}`, n)) };
}

/**
 * Run `work` over the whole index: sharded across the connection's read pool
 * when it has one and the index is big enough ({@link ShardParams}),
 * else as one shard on this thread. Answers per shard.
 */
export function runSharded(db: Db, work: ShardWork): ShardAnswers[] {
  const offer = pools.get(db);
  if (offer) {
    const sections = Number(storedMeta(db, 'sections') ?? 0);
    const p = offer.params;
    if (sections >= p.minSections && (p.spareCore ?? offer.spare())) {
      if (offer.pool === undefined) offer.pool = offer.start();
      const shards = offer.pool?.shards(db) ?? null;
      if (offer.pool && shards !== null) return offer.pool.run(db, shards, work, p.takeBack);
    }
  }
  return [answerShard(db, work(null)).answers];
}

/**
 * {@link runSharded} with the queries in named groups: each group's answers come
 * back per query, each as the list of its shards' answers.
 */
export function runShardedGroups<K extends string>(db: Db, work: (shard: Shard | null) => Record<K, ShardQuery[]>): Record<K, unknown[][]> {
  let layout: [K, number][] | null = null;
  const answers = runSharded(db, (shard) => {
    const groups = work(shard);
    layout ??= (Object.keys(groups) as K[]).map((key) => [key, groups[key].length]);
    return layout.flatMap(([key]) => groups[key]);
  });
  const out = {} as Record<K, unknown[][]>;
  let at = 0;
  // Assigned in the callback above, which TypeScript's flow analysis does not see.
  for (const [key, n] of (layout as [K, number][] | null) ?? []) {
    out[key] = Array.from({ length: n }, (_, i) => answers.map((shardAnswers) => shardAnswers[at + i]));
    at += n;
  }
  return out;
}

/** The sum of per-shard counts. */
export function sumOf(counts: unknown[]): number {
  return (counts as number[]).reduce((a, b) => a + b, 0);
}

/** The best `k` of per-shard `[rowid, score]` lists, each best first: score descending, then rowid, as the SQL orders them. */
export function mergeTop(answers: unknown[], k: number): [number, number][] {
  const lists = answers as [number, number][][];
  if (lists.length === 1) return lists[0]!;
  return lists
    .flat()
    .sort((a, b) => b[1] - a[1] || a[0] - b[0])
    .slice(0, k);
}

/**
 * The condition that keeps FTS table `table`'s rows in a shard, with its
 * parameters (none for the whole table). `rowids`: whether the table's rowids
 * are section ids (sections_fts, anchors_fts) or note ids (notes_fts); a shard
 * holds whole notes, so both cover the same notes.
 */
export function shardCondition(table: string, shard: Shard | null, rowids: 'sections' | 'notes' = 'sections'): { sql: string; params: number[] } {
  if (shard === null) return { sql: '', params: [] };
  const [lo, hi] = rowids === 'sections' ? shard : shard.map((id) => Math.floor(id / 2 ** SECTION_BITS));
  return { sql: ` AND ${table}.rowid BETWEEN ? AND ?`, params: [lo!, hi!] };
}
