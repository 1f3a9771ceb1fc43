import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseSubpath, resolveSubpath, type AnchorSource } from '../../../src/links/index.js';
import type { Heading } from '../../../src/markdown/types.js';

function heading(level: Heading['level'], text: string, line: number): Heading {
  return { level, text, style: 'atx', startLine: line, endLine: line, range: { start: 0, end: 0 }, textRange: { start: 0, end: 0 } };
}

const note: AnchorSource = {
  headings: [heading(1, 'A', 1), heading(2, 'B', 3), heading(1, 'C', 5), heading(2, 'B', 7), heading(2, 'Tail ^t-1', 9)],
  blockIds: [],
  lineStarts: new Array(10).fill(0),
};

test('parseSubpath: heading segments, block ids, empty segments and nothing at all', () => {
  assert.deepEqual(parseSubpath('A#B'), { kind: 'heading', segments: ['A', 'B'], value: 'A#B' });
  assert.deepEqual(parseSubpath('#A##B#'), { kind: 'heading', segments: ['A', 'B'], value: 'A#B' });
  assert.deepEqual(parseSubpath('^id'), { kind: 'block', segments: ['id'], value: 'id' });
  assert.deepEqual(parseSubpath('#^id'), { kind: 'block', segments: ['id'], value: 'id' });
  assert.equal(parseSubpath('##'), null);
  assert.equal(parseSubpath(null), null);
});

test('a nested path takes the B inside C, not the earlier B inside A', () => {
  assert.deepEqual(resolveSubpath(note, 'C#B')?.lines, [7, 8]);
  assert.deepEqual(resolveSubpath(note, 'B')?.lines, [3, 4]);
});

test('without the text length, a section runs to the last line counted', () => {
  assert.deepEqual(resolveSubpath(note, 'Tail ^t-1')?.lines, [9, 10]);
});

test('a heading ending in ^id is a block target', () => {
  assert.deepEqual(resolveSubpath(note, '^T-1'), { kind: 'block', value: 'T-1', exists: true, lines: [9, 9] });
});
