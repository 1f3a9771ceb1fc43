import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseNote } from '../../../src/markdown/index.js';
import { marked } from './marks.js';

test('headings: ATX headings keep formatting and links in their text, without markers or closing #s', () => {
  const { text, ranges } = marked('«# «Title»»\n\n«## «**Bold** and [[Other|x]]» ##»\n\n«###### «`code` *em*»»\n');
  const hs = parseNote(text).headings;
  assert.deepEqual(hs.map((h) => [h.level, h.style, h.text]), [
    [1, 'atx', 'Title'],
    [2, 'atx', '**Bold** and [[Other|x]]'],
    [6, 'atx', '`code` *em*'],
  ]);
  assert.deepEqual(hs.flatMap((h) => [h.range, h.textRange]), ranges);
  assert.deepEqual(hs.map((h) => [h.startLine, h.endLine]), [[1, 1], [3, 3], [5, 5]]);
});

test('headings: setext headings span both lines and have levels 1 and 2', () => {
  const { text, ranges } = marked('«Main title\n===»\n\n«Second\n---»\n');
  const hs = parseNote(text).headings;
  assert.deepEqual(hs.map((h) => [h.level, h.style, h.text, h.startLine, h.endLine]), [
    [1, 'setext', 'Main title', 1, 2],
    [2, 'setext', 'Second', 4, 5],
  ]);
  assert.deepEqual(hs.map((h) => h.range), ranges);
});

test('headings: # lines in code, comments, quotes and lists are not note headings', () => {
  const text = '```\n# code\n```\n\n%%\n# hidden\n%%\n\n> # quoted\n\n- # listed\n\n#notaheading\n\n# Real';
  assert.deepEqual(parseNote(text).headings.map((h) => h.text), ['Real']);
});

test('headings: an empty ATX heading has empty text', () => {
  const h = parseNote('#\n\ntext').headings[0];
  assert.equal(h?.text, '');
  assert.equal(h?.level, 1);
});

test('sections: the preamble before the first heading is a section with heading null and an empty path', () => {
  const { text, ranges } = marked('---\na: 1\n---\n«Intro [[x]]\n\n»«# A\nbody\n»«## B\n»«### C\n»«## D\n»«# E»');
  const m = parseNote(text);
  assert.deepEqual(m.sections.map((s) => s.range), ranges);
  assert.deepEqual(m.sections.map((s) => [s.index, s.heading?.text ?? null, s.headingPath]), [
    [0, null, []],
    [1, 'A', ['A']],
    [2, 'B', ['A', 'B']],
    [3, 'C', ['A', 'B', 'C']],
    [4, 'D', ['A', 'D']],
    [5, 'E', ['E']],
  ]);
  assert.deepEqual(m.sections.map((s) => [s.startLine, s.endLine]), [[4, 5], [6, 7], [8, 8], [9, 9], [10, 10], [11, 11]]);
});

test('sections: whitespace before the first heading makes no preamble section', () => {
  const m = parseNote('---\na: 1\n---\n\n\n# Title\ntext\n');
  assert.deepEqual(m.sections.map((s) => s.heading?.text), ['Title']);
  assert.equal(m.sections[0]?.range.end, m.length);
});

test('sections: a skipped level nests under the nearest shallower heading', () => {
  const m = parseNote('## Two\n#### Four\n### Three\n# One\n### Three again');
  assert.deepEqual(m.sections.map((s) => s.headingPath), [
    ['Two'],
    ['Two', 'Four'],
    ['Two', 'Three'],
    ['One'],
    ['One', 'Three again'],
  ]);
});

test('sections: a note without headings is one preamble section; an empty note has none', () => {
  assert.deepEqual(parseNote('just text').sections.map((s) => [s.heading, s.range]), [[null, { start: 0, end: 9 }]]);
  const empty = parseNote('');
  assert.deepEqual([empty.sections, empty.headings, empty.links, empty.lineStarts, empty.length], [[], [], [], [0], 0]);
});
