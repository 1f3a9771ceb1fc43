import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseNote } from '../../../src/markdown/index.js';
import { marked } from './marks.js';

test('tags: inline #tag, #nested/tag and non-Latin tags are found with the # in their range', () => {
  const { text, ranges } = marked('«#tag» at start, «#nested/tag», «#标签», «#тег_1», «#1st», «#a-b»\nnext line «#x»');
  const tags = parseNote(text).tags;
  assert.deepEqual(tags.map((t) => t.range), ranges);
  assert.deepEqual(tags.map((t) => t.name), ['tag', 'nested/tag', '标签', 'тег_1', '1st', 'a-b', 'x']);
  assert.ok(tags.every((t) => t.source === 'inline'));
  assert.equal(tags[6]?.startLine, 2);
});

test('tags: not#tag, pure numbers, heading markers, URLs, code and links are not tags', () => {
  const text = '# Heading\n\nnot#tag #123 https://x.org/#frag [[Note#Section]] `#code` [t](#anchor) [a #b](c.md)\n\n```\n#fenced\n```\n\n%% #commented %%\n\n$#math$';
  assert.deepEqual(parseNote(text).tags, []);
});

test('tags: a tag in heading text is a tag, the closing # sequence is not', () => {
  const m = parseNote('## Title #topic ##');
  assert.deepEqual(m.tags.map((t) => t.name), ['topic']);
  assert.equal(m.headings[0]?.text, 'Title #topic');
});

test('block ids: ^id at the end of a paragraph or list item names that block', () => {
  const { text, ranges } = marked('«Para text here «^para-1»»\n\n«- item one «^item»»\n- item two\n');
  const ids = parseNote(text).blockIds;
  assert.deepEqual(ids.map((b) => b.id), ['para-1', 'item']);
  assert.deepEqual(ids.flatMap((b) => [b.blockRange, b.range]), ranges);
  assert.deepEqual(ids.map((b) => b.startLine), [1, 3]);
});

test('block ids: ^id on its own line after a table, quote or callout names that block', () => {
  const { text, ranges } = marked('«| a | b |\n|---|---|\n| 1 | 2 |»\n\n«^table-id»\n\n«> [!note] Callout\n> body»\n\n«^callout-id»\n');
  const ids = parseNote(text).blockIds;
  assert.deepEqual(ids.map((b) => b.id), ['table-id', 'callout-id']);
  assert.deepEqual(ids.flatMap((b) => [b.blockRange, b.range]), ranges);
});

test('block ids: an id on its own line continuing a paragraph, quote or list names the element (issue 13)', () => {
  const { text, ranges } = marked('«Para text\n«^para-id»»\n\n«> quoted\n«^quote-id»»\n\n«- a\n  - b\n«^list-id»»\n\nText\n\n- c\n  «- d\n    «^item-id»»\n');
  const ids = parseNote(text).blockIds;
  assert.deepEqual(ids.map((b) => b.id), ['para-id', 'quote-id', 'list-id', 'item-id']);
  assert.deepEqual(ids.flatMap((b) => [b.blockRange, b.range]), ranges);
  assert.deepEqual(ids.map((b) => [b.blockStartLine, b.blockEndLine, b.startLine]), [[1, 2, 2], [4, 5, 5], [7, 9, 9], [14, 15, 15]]);
});

test('block ids: a lone id after a blank line names the paragraph before it at the top level; inside a quote, the quote', () => {
  const { text, ranges } = marked('«Para one\ntwo»\n\n«^p2»\n\n«> [!note] T\n> body\n>\n> «^c»»\n');
  const ids = parseNote(text).blockIds;
  assert.deepEqual(ids.flatMap((b) => [b.blockRange, b.range]), ranges);
});

test('block ids: ^ inside text, in code or with other characters is not a block id', () => {
  assert.deepEqual(parseNote('a ^b c\n\nx^y\n\n```\ntext ^code\n```\n\n`^inline`\n\nbad ^id_with_underscore').blockIds, []);
});

test('callouts: a blockquote whose first line is [!type]±title, nested ones too', () => {
  const { text, ranges } = marked('«> [!warning]- Be careful *here*\n> text\n> «> [!tip] Inner»»\n\n«> [!NOTE]\n> no title»\n\n> [!bad type] not a callout\n\n> plain quote');
  const cs = parseNote(text).callouts;
  assert.deepEqual(cs.map((c) => [c.type, c.fold, c.title]), [
    ['warning', '-', 'Be careful *here*'],
    ['tip', '', 'Inner'],
    ['NOTE', '', ''],
  ]);
  assert.deepEqual(cs.map((c) => c.range), ranges);
  assert.deepEqual(cs.map((c) => [c.startLine, c.endLine]), [[1, 3], [3, 3], [5, 6]]);
});

test('protected: every protected kind is reported with its exact range', () => {
  const { text, ranges } = marked(
    '«---\na: 1\n---»\n«```js\nx\n```»\n\n    «indented»\n\nA «`code`» and «$x^2$» and «[[L]]» and «![[E.png]]» and «[m](m.md)» «%%c%%»\n\n«| t |\n|---|\n| «`c`» |»\n\n«- a\n  - b»\n\n«<div>\nhtml\n</div>»\n\n«$$\nmath\n$$»\n\n«%%\ncomment\n%%»',
  );
  const p = parseNote(text).protected;
  assert.deepEqual(p.map((x) => x.kind), [
    'frontmatter',
    'code',
    'code',
    'inline-code',
    'math',
    'link',
    'embed',
    'link',
    'comment',
    'table',
    'inline-code',
    'list',
    'html',
    'math',
    'comment',
  ]);
  assert.deepEqual(p.map((x) => x.range), ranges);
});

test('protected: $ amounts are not math, escaped dollars are not math', () => {
  const m = parseNote('It costs $5 and $10, or \\$x\\$, or $ y $.');
  assert.deepEqual(m.protected.filter((p) => p.kind === 'math'), []);
});

test('protected: only the outermost list of a nested list is reported', () => {
  const lists = parseNote('- a\n  - b\n    1. c\n- d\n\ntext\n\n1. e').protected.filter((p) => p.kind === 'list');
  assert.deepEqual(lists.map((l) => [l.startLine, l.endLine]), [[1, 4], [8, 8]]);
});

test('protected: HTML comments, inline or as blocks, are html and hold no links', () => {
  const { text, ranges } = marked('Text «<!-- [[a]] -->» here\n\n«<!--\n[[b]]\n-->»\n');
  const m = parseNote(text);
  assert.deepEqual(m.protected.map((p) => [p.kind, p.range]), ranges.map((r) => ['html', r]));
  assert.deepEqual(m.links, []);
});
