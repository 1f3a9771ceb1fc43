import { parentPort } from 'node:worker_threads';
import { loadUseLite } from '../lazy-require.js';

/**
 * A thread of the local embedding pool (local-embed-pool.ts): loads its own copy
 * of the model once, then embeds every list of texts it is sent and answers
 * `{id, vectors}` or `{id, error}` (a TF.js failure as its message; the caller
 * embeds that share itself).
 */
interface Request {
  id: number;
  texts: string[];
}

let model: Promise<{ embed(texts: string[]): Promise<ArrayLike<number>[]> }> | null = null;

parentPort!.on('message', ({ id, texts }: Request) => {
  void (async () => {
    try {
      if (model === null) {
        const { lib, weights } = loadUseLite();
        model = lib.initModel(weights.modelSource);
      }
      const vectors = await (await model).embed(texts);
      parentPort!.postMessage({ id, vectors: vectors.map((v) => Array.from(v)) });
    } catch (e) {
      model = null;
      parentPort!.postMessage({ id, error: e instanceof Error ? e.message : String(e) });
    }
  })();
});
