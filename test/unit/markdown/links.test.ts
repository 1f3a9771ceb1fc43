import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseNote, type Link } from '../../../src/markdown/index.js';
import { marked } from './marks.js';

const brief = (l: Link) => ({ kind: l.kind, path: l.path, subpath: l.subpath, display: l.display, size: l.size, inComment: l.inComment });

test('links: wikilinks give path, subpath after the first # and display text, with exact ranges', () => {
  const { text, ranges } = marked('See «[[Note]]», «[[Note#Head|shown]]», «[[#Local]]», «[[Folder/N.md#^blk]]» and «[[N##H]]».');
  const links = parseNote(text).links;
  assert.deepEqual(links.map((l) => l.range), ranges);
  assert.deepEqual(links.map((l) => [l.raw, l.path, l.subpath, l.display]), [
    ['[[Note]]', 'Note', null, null],
    ['[[Note#Head|shown]]', 'Note', 'Head', 'shown'],
    ['[[#Local]]', '', 'Local', null],
    ['[[Folder/N.md#^blk]]', 'Folder/N.md', '^blk', null],
    ['[[N##H]]', 'N', '#H', null],
  ]);
});

test('links: \\| separates the display text in prose and in tables, and the path keeps no backslash', () => {
  const { text, ranges } = marked('Prose «[[path/to\\|text]]».\n\n| a | b |\n|---|---|\n| «[[x\\|y]]» | «![[img.png\\|100]]» |\n');
  const m = parseNote(text);
  assert.deepEqual(m.links.map((l) => l.range), ranges);
  assert.deepEqual(m.links.map(brief), [
    { kind: 'wikilink', path: 'path/to', subpath: null, display: 'text', size: null, inComment: false },
    { kind: 'wikilink', path: 'x', subpath: null, display: 'y', size: null, inComment: false },
    { kind: 'embed', path: 'img.png', subpath: null, display: null, size: '100', inComment: false },
  ]);
  assert.equal(m.protected.filter((p) => p.kind === 'table').length, 1);
});

test('links: embeds carry a size (100 or 100x145) instead of display text', () => {
  const { text, ranges } = marked('«![[x.png|100]]» «![[y.png|100x145]]» «![[Note#Sec|caption]]» «![[z.png|alt|300]]» «![[Meetings.base#Person]]»');
  const links = parseNote(text).links;
  assert.deepEqual(links.map((l) => l.range), ranges);
  assert.deepEqual(links.map((l) => [l.kind, l.path, l.subpath, l.display, l.size]), [
    ['embed', 'x.png', null, null, '100'],
    ['embed', 'y.png', null, null, '100x145'],
    ['embed', 'Note', 'Sec', 'caption', null],
    ['embed', 'z.png', null, 'alt', '300'],
    ['embed', 'Meetings.base', 'Person', null, null],
  ]);
});

test('links: Markdown links are percent-decoded or read from <…>, and external URLs are not vault links', () => {
  const { text, ranges } = marked('«[t](a%20b.md)» «[u](<a b.md#H>)» «[v](#Local)» «![img](pic%201.png)» [w](https://x.org/a.md) [m](mailto:a@b.c) [o](obsidian://open?vault=x) <https://auto.link> [bad](100%.md)');
  const m = parseNote(text);
  assert.deepEqual(
    m.links.map((l) => [l.kind, l.raw, l.path, l.subpath, l.display]),
    [
      ['markdown', '[t](a%20b.md)', 'a b.md', null, 't'],
      ['markdown', '[u](<a b.md#H>)', 'a b.md', 'H', 'u'],
      ['markdown', '[v](#Local)', '', 'Local', 'v'],
      ['embed', '![img](pic%201.png)', 'pic 1.png', null, 'img'],
      ['markdown', '[bad](100%.md)', '100%.md', null, 'bad'],
    ],
  );
  assert.deepEqual(m.links.slice(0, 4).map((l) => l.range), ranges);
  // External links are still protected: a planner must not cut into them.
  assert.equal(m.protected.filter((p) => p.kind === 'link').length, 8);
});

test('links: nothing in fenced, plugin, indented or inline code is a link', () => {
  const text = '```\n[[fenced]]\n```\n\n```statblock\nname: [[Monster]]\n```\n\n~~~\n[t](tilde.md)\n~~~\n\n    [[indented]]\n\nText `[[inline]]` and ``[[double `tick`]]`` then [[real]]';
  assert.deepEqual(parseNote(text).links.map((l) => l.path), ['real']);
});

test('links: links in %%comments%% are recorded with inComment, inline and across lines', () => {
  const { text, ranges } = marked('Text %%hidden «[[A]]»%% shown «[[B]]»\n\n%%\nblock «![[C.png|50]]»\nand «[d](D%20x.md)»\n%%\n\nafter «[[E]]»');
  const m = parseNote(text);
  assert.deepEqual(m.links.map((l) => l.range), ranges);
  assert.deepEqual(m.links.map((l) => [l.path, l.inComment]), [
    ['A', true],
    ['B', false],
    ['C.png', true],
    ['D x.md', true],
    ['E', false],
  ]);
  assert.equal(m.links[2]?.size, '50');
  assert.deepEqual(m.protected.filter((p) => p.kind === 'comment').map((p) => [p.startLine, p.endLine]), [[1, 1], [3, 6]]);
});

test('links: an unclosed %% block hides headings to the end but its links still count as comments', () => {
  const m = parseNote('# Before\n\n%%\n[[Hidden]]\n# Not a heading');
  assert.deepEqual(m.headings.map((h) => h.text), ['Before']);
  assert.deepEqual(m.links.map((l) => [l.path, l.inComment]), [['Hidden', true]]);
});

test('links: headings, list items, quotes and callouts hold links; math and HTML blocks do not', () => {
  const text = '# H [[InHeading]]\n\n- item [[InList]]\n  - [ ] task [[InTask]]\n\n> [!note] Title [[InCallout]]\n> quote [[InQuote]]\n\n$$\n[[InMath]]\n$$\n\nInline $[[m]]$ math\n\n<div>\n[[InHtml]]\n</div>\n';
  assert.deepEqual(parseNote(text).links.map((l) => l.path), ['InHeading', 'InList', 'InTask', 'InCallout', 'InQuote']);
});

test('links: [[https://…]] is a note link, empty [[]] is not a link, and link lines follow the text', () => {
  const m = parseNote('a\n[[https://example.com]]\n[[]] [[ ]]\n[[x]]');
  assert.deepEqual(m.links.map((l) => [l.path, l.subpath, l.startLine, l.endLine]), [
    ['https://example.com', null, 2, 2],
    ['x', null, 4, 4],
  ]);
});

test('links: Russian and Chinese text and file names keep exact UTF-16 ranges', () => {
  const { text, ranges } = marked('# Заметки 笔记\n\nСм. «[[Папка/Заметка#Раздел|текст]]» 和 «[[中文笔记]]» 🙂 «![[图片.png|200]]»');
  const m = parseNote(text);
  assert.deepEqual(m.links.map((l) => l.range), ranges);
  assert.deepEqual(m.links.map((l) => [l.path, l.subpath, l.display, l.size]), [
    ['Папка/Заметка', 'Раздел', 'текст', null],
    ['中文笔记', null, null, null],
    ['图片.png', null, null, '200'],
  ]);
  assert.equal(m.headings[0]?.text, 'Заметки 笔记');
});

test('links: a %% line right under a paragraph opens a comment, unless it closes one opened in that paragraph', () => {
  const m = parseNote('Some text [[A]]\n%%\nsecret [[B]]\n\n# Hidden\n%%\nafter [[C]]\n\ntext %%\nhidden [[D]]\n%% tail [[E]]\n\n# Shown');
  assert.deepEqual(m.links.map((l) => [l.path, l.inComment]), [
    ['A', false],
    ['B', true],
    ['C', false],
    ['D', true],
    ['E', false],
  ]);
  assert.deepEqual(m.headings.map((h) => h.text), ['Shown']);
});
