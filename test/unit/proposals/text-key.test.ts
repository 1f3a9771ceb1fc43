import assert from 'node:assert/strict';
import { test } from 'node:test';
import crypto from 'node:crypto';
import { textKey, textKeyOfHash, textMemo } from '../../../src/proposals/text-key.js';

/**
 * Issue 20 §8 (a sibling found on the way): the parse memo was a Map keyed by
 * whole note texts. V8 hashes a string longer than 16,383 characters by its
 * length alone, so many long texts of one length sharing a long prefix (one
 * template, a length-keeping edit) were compared whole against each other on
 * every lookup: 2,000 keys of 200 KB took over 5 minutes. The key of a long text
 * is now short and distinct; a short text keeps its own text, and no short text
 * can take a long text's key.
 */
test('textKey: a long text is keyed by a short digest; texts of one length and prefix get distinct keys', () => {
  const prefix = 'a'.repeat(200_000 - 6);
  const keys = Array.from({ length: 200 }, (_, i) => textKey(prefix + String(i).padStart(6, '0')));
  assert.equal(new Set(keys).size, keys.length);
  for (const k of keys) assert.ok(k.length < 100, `a key of ${k.length} characters`);
  assert.equal(textKey(prefix + '000001'), keys[1], 'the same text, the same key');
});

test('textKey: short texts keep their text, and cannot collide with a long text’s key', () => {
  assert.equal(textKey('# Note\n'), 't# Note\n');
  const long = 'b'.repeat(20_000);
  const k = textKey(long);
  assert.notEqual(textKey(k), k, 'a short text that spells a long key is a different key');
  assert.notEqual(textKey(k.slice(1)), k);
});

/**
 * Issue 20 §8: the memo remembered long texts' keys in buckets by length only,
 * eight a bucket, so a bulk rewrite of 60 notes of ~200 KB (a few lengths for
 * 120 texts) hashed each text again on every check that asked for its parse.
 * Each text is hashed once now, however many share its length.
 */
test('textMemo: 120 long texts of one length are each hashed once across repeated lookups', (t) => {
  const texts = Array.from({ length: 120 }, (_, i) => {
    const words = Array.from({ length: 70_000 }, (_, k) => ((k * 7919 + i * 104729) % 9973).toString(36));
    return words.join(' ').slice(0, 200_000);
  });
  assert.equal(new Set(texts.map((x) => x.length)).size, 1);
  const hashes = t.mock.method(crypto, 'createHash');
  const memo = new Map<string, number>();
  let made = 0;
  const get = textMemo(memo, () => ++made);
  for (let round = 0; round < 4; round++) for (const x of texts) get(x);
  assert.equal(made, 120);
  assert.equal(hashes.mock.callCount(), 120);
});

/**
 * Issue 20 §8: the proposal store checks every text against its SHA-256 when it
 * keeps or reads it; review's parse memo starts with those keys and hashes no
 * long text again (a 12 MB proposal was hashed once more per command for them).
 */
test('textMemo: texts seeded with their keys are not hashed; the keys are textKey’s own', (t) => {
  const texts = ['\ufeff' + 'é’🎉 '.repeat(3000), 'x'.repeat(5000), '# short\n'];
  const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
  const seed = texts.map((x) => [x, textKeyOfHash(x, sha(x))] as const);
  for (const [x, k] of seed) assert.equal(k, textKey(x));
  const hashes = t.mock.method(crypto, 'createHash');
  const memo = new Map<string, string>();
  const get = textMemo(memo, (x) => x.slice(0, 3), seed);
  for (const x of texts) get(x);
  assert.equal(hashes.mock.callCount(), 0);
  assert.deepEqual([...memo.keys()].sort(), seed.map(([, k]) => k).sort());
});
