import os from 'node:os';
import type { Worker } from 'node:worker_threads';
import { loadWorkerThreads } from '../../lazy-require.js';

type Env = Record<string, string | undefined>;

/**
 * Threads that embed beside the calling one, each with its own copy of the local
 * model (~160 MB): the encoder runs on one core (TF.js's WebAssembly backend,
 * single-threaded in Node), so `similar --provider use-lite` used one core of
 * two. A batch of texts is cut into one contiguous share per thread, this
 * thread included, and the answers are put back in order.
 *
 * Only a batch of at least {@link MIN_TEXTS_FOR_POOL} texts starts the threads
 * (a search embeds one question: it never does), and they stay for the
 * process's life, unref'd while idle so they never keep it alive.
 * `VAULTGATE_EMBED_WORKERS=N` sets how many (default: cores − 1, at most 3; 0:
 * none). A thread that fails or exits is not used again; its share is embedded
 * here.
 */
export const MIN_TEXTS_FOR_POOL = 8;

export function embedWorkerCount(env: Env = process.env): number {
  const set = env.VAULTGATE_EMBED_WORKERS;
  if (set !== undefined && /^\d+$/.test(set)) return Math.min(Number(set), 16);
  return Math.max(0, Math.min(os.availableParallelism() - 1, 3));
}

/** The worker script, from the compiled package only (a `.ts` source under a loader cannot start one; see parse-pool.ts). */
function workerUrl(): URL | null {
  return /\.c?js$/.test(import.meta.url) ? new URL('./local-embed-worker.js', import.meta.url) : null;
}

interface Pending {
  resolve: (vectors: number[][]) => void;
  reject: (e: Error) => void;
}

class EmbedThread {
  readonly #worker: Worker;
  readonly #pending = new Map<number, Pending>();
  #next = 0;
  broken = false;

  constructor(url: URL) {
    const { Worker } = loadWorkerThreads();
    this.#worker = new Worker(url);
    this.#worker.unref();
    this.#worker.on('message', (m: { id: number; vectors?: number[][]; error?: string }) => {
      const p = this.#pending.get(m.id);
      if (!p) return;
      this.#pending.delete(m.id);
      if (this.#pending.size === 0) this.#worker.unref();
      if (m.vectors) p.resolve(m.vectors);
      else p.reject(new Error(m.error ?? 'no answer'));
    });
    const fail = (e: Error) => {
      this.broken = true;
      for (const p of this.#pending.values()) p.reject(e);
      this.#pending.clear();
    };
    this.#worker.on('error', fail);
    this.#worker.on('exit', (code) => fail(new Error(`embedding thread exited (${code})`)));
  }

  embed(texts: string[]): Promise<number[][]> {
    return new Promise((resolve, reject) => {
      const id = this.#next++;
      this.#pending.set(id, { resolve, reject });
      // Referenced while it owes an answer: an unref'd thread would let the process exit mid-batch.
      this.#worker.ref();
      this.#worker.postMessage({ id, texts });
    });
  }
}

let threads: EmbedThread[] | null = null;

function poolThreads(env: Env): EmbedThread[] {
  if (threads === null) {
    const url = workerUrl();
    const count = url === null ? 0 : embedWorkerCount(env);
    threads = [];
    for (let i = 0; i < count; i++) threads.push(new EmbedThread(url!));
  }
  return threads.filter((t) => !t.broken);
}

/**
 * Embed `texts` with `here` (this thread's model) and the pool's threads, each
 * taking one contiguous share; vectors come back in the texts' order. A share
 * whose thread fails is embedded by `here`.
 */
export async function embedShared(texts: string[], here: (texts: string[]) => Promise<ArrayLike<number>[]>, env: Env = process.env): Promise<ArrayLike<number>[]> {
  const others = texts.length >= MIN_TEXTS_FOR_POOL ? poolThreads(env) : [];
  if (others.length === 0) return here(texts);
  const size = Math.ceil(texts.length / (others.length + 1));
  const shares: string[][] = [];
  for (let i = 0; i < texts.length; i += size) shares.push(texts.slice(i, i + size));
  // This thread takes the first share; a failed thread's share falls back to it, after its own.
  const answers = await Promise.all(
    shares.map((share, i) => (i === 0 ? here(share) : others[i - 1]!.embed(share).catch(() => null))),
  );
  const out: ArrayLike<number>[] = [];
  for (let i = 0; i < shares.length; i++) out.push(...(answers[i] ?? (await here(shares[i]!))));
  return out;
}
