/**
 * Adversarial nesting (issue 7 defect 4): quotes and lists nested thousands deep
 * made lezer's work grow with depth^3 (a 4 MB note of 2,000 list levels: 27 s).
 * These tests count work, never time: the characters lezer's line and inline
 * scanners look at must stay within a small multiple of the note's length, and
 * the syntax tree must stop nesting at MAX_CONTAINER_DEPTH (deeper content is
 * one plain paragraph, lezer-guards.ts), with every link still found.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { Tree } from '@lezer/common';
import { loadLezerMarkdown } from '../../../src/lazy-require.js';
import { parseNote } from '../../../src/markdown/index.js';
import { MAX_CONTAINER_DEPTH } from '../../../src/markdown/lezer-guards.js';
import { parseBodyTree } from '../../../src/markdown/parse-note.js';
import { nestedList, nestedMix, nestedQuote } from '../../../bench/lib/nested-notes.js';

/**
 * Characters lezer's scanners visit while `run` parses: every column count and
 * column search of the block parser (where nesting cost depth^3) and every
 * character lookup of the inline parser (where a run of spaces cost n^2).
 */
function scannedChars<T>(run: () => T): { result: T; scanned: number } {
  const { Line, InlineContext } = loadLezerMarkdown();
  const line = Line.prototype as unknown as Record<string, (...a: number[]) => number>;
  const inline = InlineContext.prototype as unknown as Record<string, (...a: number[]) => number>;
  const saved = { countIndent: line.countIndent!, findColumn: line.findColumn!, char: inline.char! };
  let scanned = 0;
  line.countIndent = function (this: unknown, to: number, from = 0, indent = 0) {
    scanned += Math.max(0, to - from);
    return saved.countIndent.call(this, to, from, indent);
  };
  line.findColumn = function (this: unknown, goal: number) {
    scanned += goal;
    return saved.findColumn.call(this, goal);
  };
  inline.char = function (this: unknown, pos: number) {
    scanned++;
    return saved.char.call(this, pos);
  };
  try {
    return { result: run(), scanned };
  } finally {
    Object.assign(line, { countIndent: saved.countIndent, findColumn: saved.findColumn });
    inline.char = saved.char;
  }
}

function treeDepth(tree: Tree): number {
  let depth = 0;
  let max = 0;
  tree.iterate({
    enter: () => {
      max = Math.max(max, ++depth);
    },
    leave: () => {
      depth--;
    },
  });
  return max;
}

for (const [name, make, prefix] of [
  ['a list', nestedList, 'L'],
  ['a quote', nestedQuote, 'Q'],
  ['a list/quote mix', nestedMix, 'M'],
] as const) {
  test(`nesting: ${name} 2,000 levels deep is parsed with work linear in its length, every link found`, () => {
    const text = make(2000);
    const { result: m, scanned } = scannedChars(() => parseNote(text));
    assert.ok(scanned <= 8 * text.length, `lezer scanned ${scanned} characters for a ${text.length}-character note`);
    assert.deepEqual(m.links.map((l) => l.path), Array.from({ length: 2000 }, (_, d) => `${prefix}${d}`));
    for (const l of m.links) assert.equal(text.slice(l.range.start, l.range.end), l.raw);
    // Containers stop at the bound (Document + containers + Paragraph + inline nodes).
    assert.ok(treeDepth(parseBodyTree(text)) <= MAX_CONTAINER_DEPTH + 3, 'tree nesting bounded');
  });
}

test('nesting: past the bound, the rest of the container is one plain paragraph (markers are text, ids and tags still count)', () => {
  const levels = MAX_CONTAINER_DEPTH; // quotes: one context each, so the last levels are past the bound
  let text = '';
  for (let d = 0; d < levels + 3; d++) text += `${'> '.repeat(d + 1)}q${d} #t${d}\n`;
  text = text.slice(0, -1) + ' ^deep-id\n';
  const m = parseNote(text);
  const paragraphs: { from: number; to: number }[] = [];
  parseBodyTree(text).iterate({
    enter: (n) => {
      if (n.name === 'Paragraph') paragraphs.push({ from: n.from, to: n.to });
    },
  });
  const last = paragraphs[paragraphs.length - 1]!;
  // With the document and 63 quotes open, the 64th `>` (on 0-based line 63) and all after it are text.
  const start = m.lineStarts[MAX_CONTAINER_DEPTH - 1]! + 2 * (MAX_CONTAINER_DEPTH - 1);
  assert.equal(text.slice(start, start + 2), '> ');
  assert.deepEqual(last, { from: start, to: text.length - 1 });
  assert.equal(paragraphs.length, MAX_CONTAINER_DEPTH, 'one paragraph per nested line, then one for the rest');
  assert.equal(m.tags.length, levels + 3);
  assert.deepEqual(m.blockIds.map((b) => b.id), ['deep-id']);
});

test('spaces: a run of 20,000 spaces in a paragraph is scanned linearly; a hard break is still a hard break', () => {
  const text = `a${' '.repeat(20_000)}b [[After]]\nline with a break  \nnext`;
  const { result: m, scanned } = scannedChars(() => parseNote(text));
  assert.ok(scanned <= 8 * text.length, `lezer scanned ${scanned} characters for a ${text.length}-character note`);
  assert.deepEqual(m.links.map((l) => l.path), ['After']);
  const names: string[] = [];
  parseBodyTree(text).iterate({ enter: (n) => void names.push(n.name) });
  assert.equal(names.filter((n) => n === 'HardBreak').length, 1);
});
