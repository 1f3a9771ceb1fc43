import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { encodeMarkdownPath, linkPathCandidates, matchHeadingPath, retargetLinkHeading, retargetLinkPath } from '../../../src/links/index.js';
import { parseLinkSyntax, parseNote } from '../../../src/markdown/index.js';

const link = (raw: string) => {
  const l = parseNote(raw).links[0];
  assert.ok(l, `${raw} is a link`);
  return l;
};
const retarget = (raw: string, path: string) => retargetLinkPath(link(raw), path);

test('retargetLinkPath: only the path part changes — display, subpath, embed size, escapes, padding and Markdown style stay as written', () => {
  assert.equal(retarget('[[Old]]', 'New'), '[[New]]');
  assert.equal(retarget('[[Old|shown]]', 'Dir/New'), '[[Dir/New|shown]]');
  assert.equal(retarget('[[ Old#Head|x ]]', 'New'), '[[ New#Head|x ]]');
  assert.equal(retarget('[[Old#A#B]]', 'New'), '[[New#A#B]]');
  assert.equal(retarget('[[Old#^blk]]', 'New'), '[[New#^blk]]');
  assert.equal(retarget('![[img.png|alt|100]]', 'a/img 2.png'), '![[a/img 2.png|alt|100]]');
  assert.equal(retarget('| [[Old\\|shown]] |', 'New'), '[[New\\|shown]]', 'a table cell keeps its escaped bar');
  assert.equal(retarget('[t](Old.md)', 'My New.md'), '[t](My%20New.md)');
  assert.equal(retarget('[t](<Old.md#H x> "title")', 'My New.md'), '[t](<My New.md#H x> "title")');
  assert.equal(retarget('[t \\[x\\]](Old.md#H%20x)', 'New.md'), '[t \\[x\\]](New.md#H%20x)', 'escaped brackets in the label');
  assert.equal(retarget('![alt|100](img/a.png)', 'b (1).png'), '![alt|100](b%20%281%29.png)');
  assert.equal(retarget('[t](%D0%A1%D1%82%D0%B0%D1%80%D0%B0%D1%8F.md)', 'Новая.md'), '[t](%D0%9D%D0%BE%D0%B2%D0%B0%D1%8F.md)', 'non-ASCII stays percent-encoded when it was');
  assert.equal(retarget('[t](Old.md)', 'Новая 1.md'), '[t](Новая%201.md)', '…and raw when it was not');
  assert.equal(retarget('[t](<Old.md>)', '100% new.md'), '[t](<100%25 new.md>)', 'a literal % survives decoding');
  assert.equal(retarget('[t](Old.md)', 'note: draft.md'), '[t](note%3A%20draft.md)', 'a colon is encoded, so the name never reads as a URI scheme');
  assert.equal(parseLinkSyntax('[t](note%3A%20draft.md)').path, 'note: draft.md');
  assert.equal(retarget('[t](<Old.md>)', 'note: draft.md'), '[t](<note%3A draft.md>)');
  assert.equal(parseLinkSyntax('[t](<note%3A draft.md>)').path, 'note: draft.md');
});

test('retargetLinkPath: a path the syntax cannot carry is refused (null), never written half-way', () => {
  assert.equal(retarget('[[Old]]', 'a|b'), null);
  assert.equal(retarget('[[Old]]', 'No #1'), null);
  assert.equal(retarget('[t](Old.md)', 'No #1.md'), null);
  assert.equal(retarget('[t](<Old.md>)', 'a>b.md'), null);
  const fm = parseNote('---\nup: "[[Old]]"\n---\n').links[0]!;
  assert.equal(fm.kind, 'frontmatter');
  assert.equal(retargetLinkPath(fm, 'New'), '[[New]]');
  assert.equal(retargetLinkPath(fm, 'Say "hi"'), null, 'a quote would end the YAML string');
});

test('retargetLinkHeading: the matched heading segments change, empty segments and everything else stay', () => {
  const h = (raw: string, pos: number[], text: string) => retargetLinkHeading(link(raw), pos, text);
  assert.equal(h('[[N#Old|x]]', [0], 'New'), '[[N#New|x]]');
  assert.equal(h('[[N##Old#Child]]', [0], 'New'), '[[N##New#Child]]');
  assert.equal(h('[[N#Top#Old]]', [1], 'New one'), '[[N#Top#New one]]');
  assert.equal(h('[[#Old]]', [0], 'New'), '[[#New]]');
  assert.equal(h('[t](N.md#Old%20one)', [0], 'New one'), '[t](N.md#New%20one)');
  assert.equal(h('[t](<N.md#Old one>)', [0], 'New one'), '[t](<N.md#New one>)');
  assert.equal(h('[[N]]', [0], 'New'), null, 'no subpath');
});

test('matchHeadingPath: the heading each segment matches, nested inside the previous one', () => {
  const note = parseNote('# A\n## B\n### C\n## D\n### C\n');
  assert.deepEqual(matchHeadingPath(note, ['A', 'B', 'C']), [0, 1, 2]);
  assert.deepEqual(matchHeadingPath(note, ['D', 'C']), [3, 4]);
  assert.deepEqual(matchHeadingPath(note, ['C']), [2], 'the first in document order');
  assert.equal(matchHeadingPath(note, ['B', 'D']), null, 'D is not inside B');
});

test('linkPathCandidates: the format’s preferred form first, then every other form; encodeMarkdownPath round-trips', () => {
  assert.deepEqual(linkPathCandidates('a/b/N.md', 'x/Y.md', { newLinkFormat: 'shortest', useMarkdownLinks: false }).slice(0, 3), ['N', 'b/N', 'a/b/N']);
  assert.equal(linkPathCandidates('a/b/N.md', 'x/Y.md', { newLinkFormat: 'relative', useMarkdownLinks: false })[0], '../a/b/N');
  assert.equal(linkPathCandidates('a/b/N.md', 'x/Y.md', { newLinkFormat: 'absolute', useMarkdownLinks: false })[0], 'a/b/N');
  assert.equal(linkPathCandidates('a/img.png', 'a/Y.md', { newLinkFormat: 'relative', useMarkdownLinks: false })[0], './img.png');
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 30 }), fc.boolean(), (p, nonAscii) => {
      // A vault path never starts with `/` (a leading `//` would be a network URL, not a path).
      fc.pre(p.trim() === p && p !== '' && !p.startsWith('/') && !p.includes('#') && !/[\r\n]/.test(p));
      const parsed = parseLinkSyntax(`[t](${encodeMarkdownPath(p, nonAscii)})`);
      assert.equal(parsed.path, p.normalize('NFC') === p ? p : parsed.path);
    }),
    { numRuns: 300 },
  );
});
