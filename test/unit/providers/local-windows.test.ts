/**
 * The windows of `use-lite-en-windows` (src/providers/local-embed.ts): the
 * encoder reads a text's first 128 tokens, so a longer section is embedded as
 * the mean of its windows. Pure parts only here (no model); the model itself
 * is exercised in test/e2e/local-embed.test.ts; the pool of threads in
 * test/e2e/local-embed-pool.test.ts (here only its size).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isVaultgateError } from '../../../src/errors.js';
import os from 'node:os';
import { embedLocally, LOCAL_MODELS, MAX_WINDOWS, textWindows, WINDOW_CHARS } from '../../../src/providers/local-embed.js';
import { embedWorkerCount } from '../../../src/providers/local-embed-pool.js';

test('textWindows: a short text is one window, trimmed', () => {
  assert.deepEqual(textWindows('  how long does dough rest?  '), ['how long does dough rest?']);
  assert.deepEqual(textWindows(''), []);
  assert.deepEqual(textWindows('   \n  '), []);
});

test('textWindows: cuts at white space, never inside a word, and covers the text in order', () => {
  const words = Array.from({ length: 400 }, (_, i) => `word${i}`);
  const text = words.join(' ');
  const w = textWindows(text, 100, 1000);
  assert.ok(w.length > 1);
  for (const piece of w) {
    assert.ok(piece.length <= 100, piece);
    for (const token of piece.split(' ')) assert.match(token, /^word\d+$/, `a word was split: ${token}`);
  }
  assert.equal(w.join(' '), text, 'nothing lost, nothing repeated');
});

test('textWindows: at most `max` windows; the rest of the text is left out', () => {
  const text = 'a '.repeat(5000);
  const w = textWindows(text, WINDOW_CHARS, MAX_WINDOWS);
  assert.equal(w.length, MAX_WINDOWS);
  assert.ok(w.every((x) => x.length <= WINDOW_CHARS));
});

test('textWindows: a run without spaces is cut at the window size', () => {
  const w = textWindows('x'.repeat(250), 100, 10);
  assert.deepEqual(
    w.map((x) => x.length),
    [100, 100, 50],
  );
});

test('embedLocally: an unknown model is PROVIDER_FAILED naming the models, before anything loads', async () => {
  await assert.rejects(
    embedLocally('use-lite', Buffer.from(JSON.stringify({ model: 'use-lite-fr', input: ['bonjour'] }))),
    (e) => isVaultgateError(e) && e.code === 'PROVIDER_FAILED' && /use-lite-fr/.test(e.message) && Object.keys(LOCAL_MODELS).every((m) => e.hint?.includes(m)),
  );
});

test('embedWorkerCount: VAULTGATE_EMBED_WORKERS decides; by default one thread per spare core, at most 3', () => {
  assert.equal(embedWorkerCount({ VAULTGATE_EMBED_WORKERS: '0' }), 0);
  assert.equal(embedWorkerCount({ VAULTGATE_EMBED_WORKERS: '2' }), 2);
  assert.equal(embedWorkerCount({}), Math.max(0, Math.min(os.availableParallelism() - 1, 3)));
  assert.equal(embedWorkerCount({ VAULTGATE_EMBED_WORKERS: 'many' }), embedWorkerCount({}), 'not a number: the default');
});
