import assert from 'node:assert/strict';
import { test } from 'node:test';
import { columnOf, computeLineStarts, lineOf, linesOf } from '../../../src/markdown/index.js';

test('markdown lines: line starts follow every \\n, and a CRLF ends one line', () => {
  assert.deepEqual(computeLineStarts('a\nbc\r\nd'), [0, 2, 6]);
  assert.deepEqual(computeLineStarts(''), [0]);
  assert.deepEqual(computeLineStarts('x\n'), [0, 2]);
});

test('markdown lines: lineOf finds the 1-based line of every offset by binary search', () => {
  const text = 'one\ntwo\r\n\nfour';
  const starts = computeLineStarts(text);
  const expected = [...text].map((_, i) => text.slice(0, i).split('\n').length);
  for (let i = 0; i < text.length; i++) assert.equal(lineOf(starts, i), expected[i], `offset ${i}`);
  assert.equal(lineOf(starts, text.length), 4);
  assert.equal(columnOf(starts, text.indexOf('four') + 2), 3);
});

test('markdown lines: a range ending right after a newline does not claim the next line', () => {
  const starts = computeLineStarts('ab\ncd\n');
  assert.deepEqual(linesOf(starts, { start: 0, end: 3 }), { startLine: 1, endLine: 1 });
  assert.deepEqual(linesOf(starts, { start: 0, end: 4 }), { startLine: 1, endLine: 2 });
  assert.deepEqual(linesOf(starts, { start: 3, end: 3 }), { startLine: 2, endLine: 2 });
});
