/**
 * The local embedding pool (src/wing/providers/local-embed-pool.ts): threads with
 * their own copy of the model embed shares of a batch beside the calling
 * thread. Run from the compiled package (a `.ts` source under a loader cannot
 * start the worker), with the real model: the calling thread embeds only its
 * share, and the vectors are those of one thread embedding everything, in order.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { loadUseLite } from '../../src/lazy-require.js';
import { cosine, USE_LITE_MISSING, useLiteInstalled } from '../helpers/use-lite.js';

const POOL = new URL('../../dist/wing/providers/local-embed-pool.js', import.meta.url);
const skip = !useLiteInstalled
  ? USE_LITE_MISSING
  : !fs.existsSync(fileURLToPath(POOL))
    ? 'skipped: dist/ is not built (run `npm run build`)'
    : false;

const cos = cosine;

test('local embed pool: shares go to threads and come back in order, as one thread would embed them', { skip }, async () => {
  const { embedShared, MIN_TEXTS_FOR_POOL } = (await import(POOL.href)) as typeof import('../../src/wing/providers/local-embed-pool.js');
  const { lib, weights } = loadUseLite();
  const model = await lib.initModel(weights.modelSource);
  const texts = Array.from({ length: 12 }, (_, i) =>
    i % 2 ? `the robber moves when a seven is rolled, turn ${i}` : `let the dough prove for ${i} hours before baking the loaf`,
  );
  assert.ok(texts.length >= MIN_TEXTS_FOR_POOL);
  const alone = await model.embed(texts);

  const seen: string[][] = [];
  const here = (share: string[]) => {
    seen.push(share);
    return model.embed(share);
  };
  const pooled = await embedShared(texts, here, { VAULTGATE_EMBED_WORKERS: '1' });
  assert.equal(pooled.length, texts.length);
  assert.deepEqual(seen, [texts.slice(0, 6)], 'this thread embeds only its share; the thread embeds the rest');
  pooled.forEach((v, i) => assert.ok(cos(v, alone[i]!) > 0.9999, `text ${i}: ${cos(v, alone[i]!)}`));

  // Below the threshold (a search's one question), and with the pool turned off, everything stays here.
  seen.length = 0;
  await embedShared(texts.slice(0, MIN_TEXTS_FOR_POOL - 1), here, { VAULTGATE_EMBED_WORKERS: '1' });
  assert.deepEqual(seen, [texts.slice(0, MIN_TEXTS_FOR_POOL - 1)]);
});
