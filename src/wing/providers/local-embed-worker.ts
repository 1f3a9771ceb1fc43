import { parentPort } from 'node:worker_threads';
import { loadModel } from './local-embed.js';

/**
 * A thread of the local embedding pool (local-embed-pool.ts): loads its own copy
 * of the model once (as the calling thread does, `loadModel`), then embeds every
 * list of texts it is sent and answers `{id, vectors}` or `{id, error}` (a
 * failure as its message; the caller embeds that share itself).
 */
interface Request {
  id: number;
  texts: string[];
}

parentPort!.on('message', ({ id, texts }: Request) => {
  void (async () => {
    try {
      const vectors = await (await loadModel('use-lite')).embed(texts);
      parentPort!.postMessage({ id, vectors: vectors.map((v) => Array.from(v)) });
    } catch (e) {
      parentPort!.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
    }
  })();
});
