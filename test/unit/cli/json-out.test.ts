import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { escapeInner, writeJsonCompact } from '../../../src/cli/json-out.js';

/** The streamed JSON output must be byte for byte what JSON.stringify gives (issue 20 §8 streams it to bound memory). */
const out = (v: unknown) => {
  const parts: string[] = [];
  writeJsonCompact(v, (s) => parts.push(s));
  return { text: parts.join(''), parts };
};

test('writeJsonCompact writes exactly JSON.stringify(value)', () => {
  fc.assert(
    fc.property(fc.anything({ withNullPrototype: true, withDate: true, withBoxedValues: false, withMap: true, withSet: true }), (v) => {
      fc.pre(JSON.stringify(v) !== undefined);
      assert.equal(out(v).text, JSON.stringify(v));
    }),
    { numRuns: 500 },
  );
  const tricky = { a: undefined, f: () => 1, d: new Date(0), arr: [undefined, () => 1, 'x’'], nested: { toJSON: () => 'J' }, s: '\u2028"\\' };
  assert.equal(out(tricky).text, JSON.stringify(tricky));
});

test('a large document is written in pieces, never as one string', () => {
  const big = { diff: 'x'.repeat(300_000), files: Array.from({ length: 10 }, (_, i) => ({ diff: `${i}`.repeat(200_000) })) };
  const { text, parts } = out(big);
  assert.equal(text, JSON.stringify(big));
  assert.ok(parts.length > 10);
  assert.ok(Math.max(...parts.map((p) => p.length)) < 2 * 300_000 + 100);
});

test('a long string is escaped slice by slice, surrogate pairs and lone surrogates alike', () => {
  const unit = 'a"\\\n\u2028😀\ud800x\udc00é';
  for (let shift = 0; shift < 12; shift++) {
    const v = { diff: 'x'.repeat(shift) + unit.repeat(20_000), tail: 'ok' };
    assert.equal(out(v).text, JSON.stringify(v));
  }
  const pairAtEdge = 'y'.repeat(64 * 1024 - 1) + '😀' + 'z'.repeat(10);
  assert.equal(out([pairAtEdge]).text, JSON.stringify([pairAtEdge]));
});

/** Issue 20 §8: a long string's line feeds are escaped alone when nothing else needs it; the bytes are JSON.stringify's exactly. */
test('escapeInner: property — the same text as JSON.stringify without its quotes', () => {
  const unit = fc.constantFrom('a', ' ', '\n', '\r', '\t', '"', '\\', '/', '\u0000', '\u001f', '\u007f', 'é', '’', '\u2028', '\ud83c', '\udf89', '🎉', '\ufeff');
  fc.assert(
    fc.property(fc.string({ unit, maxLength: 60 }), (s) => {
      assert.equal(escapeInner(s), JSON.stringify(s).slice(1, -1));
    }),
    { numRuns: 1000 },
  );
});

/**
 * Issue 20 §8 (round 3): a long string made of long strings already written in
 * the document (a review's joined diff after each file's) writes their escaped
 * text again instead of escaping it twice. Property: the bytes are
 * JSON.stringify's, whatever the pieces hold (surrogate pairs at their edges
 * included) and however they are joined.
 */
test('writeJsonCompact: property — a string joined from long strings already written is written exactly', () => {
  const unit = fc.constantFrom('a', '\n', '"', '\\', '\u0001', 'é', '\ud83c', '\udf89', '🎉');
  const piece = fc.tuple(fc.string({ unit, maxLength: 8 }), fc.string({ unit, maxLength: 8 }), fc.integer({ min: 0, max: 3 })).map(([head, tail, n]) => head + 'x'.repeat(64 * 1024 + n * 5000) + tail);
  fc.assert(
    fc.property(fc.array(piece, { minLength: 1, maxLength: 4 }), fc.array(fc.nat(), { maxLength: 6 }), fc.string({ unit, maxLength: 4 }), (pieces, order, extra) => {
      const joined = order.length ? order.map((i) => pieces[i % pieces.length]!).join('') + extra : pieces.join('');
      const doc = { files: pieces.map((diff) => ({ diff })), diff: joined, again: extra + joined };
      assert.equal(out(doc).text, JSON.stringify(doc));
    }),
    { numRuns: 60 },
  );
});
