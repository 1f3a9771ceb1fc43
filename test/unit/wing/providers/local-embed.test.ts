/**
 * The built-in local provider's request checks and its pool's size
 * (src/wing/providers/local-embed.ts, local-embed-pool.ts), without the model: the
 * model is exercised in test/e2e/local-embed.test.ts, the pool's threads in
 * test/e2e/local-embed-pool.test.ts.
 */
import assert from 'node:assert/strict';
import os from 'node:os';
import { test } from 'node:test';
import { isVaultgateError } from '../../../../src/errors.js';
import { embedLocally, LOCAL_MODELS } from '../../../../src/wing/providers/local-embed.js';
import { embedWorkerCount } from '../../../../src/wing/providers/local-embed-pool.js';

test('embedLocally: an unknown model is PROVIDER_FAILED naming the models, before anything loads', async () => {
  await assert.rejects(
    embedLocally('use-lite', Buffer.from(JSON.stringify({ model: 'use-lite-fr', input: ['bonjour'] }))),
    (e) => isVaultgateError(e) && e.code === 'PROVIDER_FAILED' && /use-lite-fr/.test(e.message) && LOCAL_MODELS.every((m) => e.hint?.includes(m)),
  );
});

test('embedWorkerCount: VAULTGATE_EMBED_WORKERS decides; by default one thread per spare core, at most 3', () => {
  assert.equal(embedWorkerCount({ VAULTGATE_EMBED_WORKERS: '0' }), 0);
  assert.equal(embedWorkerCount({ VAULTGATE_EMBED_WORKERS: '2' }), 2);
  assert.equal(embedWorkerCount({}), Math.max(0, Math.min(os.availableParallelism() - 1, 3)));
  assert.equal(embedWorkerCount({ VAULTGATE_EMBED_WORKERS: 'many' }), embedWorkerCount({}), 'not a number: the default');
});
