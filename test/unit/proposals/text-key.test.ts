import assert from 'node:assert/strict';
import { test } from 'node:test';
import { textKey } from '../../../src/proposals/text-key.js';

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
