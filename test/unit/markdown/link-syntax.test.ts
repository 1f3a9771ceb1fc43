import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VaultgateError } from '../../../src/errors.js';
import { parseLinkSyntax } from '../../../src/markdown/index.js';

test('link syntax: wikilinks, embeds, Markdown links and bare targets read as in a note', () => {
  const cases: [string, ReturnType<typeof parseLinkSyntax>][] = [
    ['[[A#B|c]]', { kind: 'wikilink', path: 'A', subpath: 'B', display: 'c', size: null }],
    ['![[x.png|100]]', { kind: 'embed', path: 'x.png', subpath: null, display: null, size: '100' }],
    ['![[x.png|100x145]]', { kind: 'embed', path: 'x.png', subpath: null, display: null, size: '100x145' }],
    ['[t](a%20b.md)', { kind: 'markdown', path: 'a b.md', subpath: null, display: 't', size: null }],
    ['[t](<a b.md#H>)', { kind: 'markdown', path: 'a b.md', subpath: 'H', display: 't', size: null }],
    ['![alt](pic.png)', { kind: 'embed', path: 'pic.png', subpath: null, display: 'alt', size: null }],
    ['![alt|100x50](pic.png)', { kind: 'embed', path: 'pic.png', subpath: null, display: 'alt', size: '100x50' }],
    ['[[N##H]]', { kind: 'wikilink', path: 'N', subpath: '#H', display: null, size: null }],
    ['[[x\\|y]]', { kind: 'wikilink', path: 'x', subpath: null, display: 'y', size: null }],
    ['A#B', { kind: 'wikilink', path: 'A', subpath: 'B', display: null, size: null }],
    ['Folder/Note', { kind: 'wikilink', path: 'Folder/Note', subpath: null, display: null, size: null }],
    ['#Heading', { kind: 'wikilink', path: '', subpath: 'Heading', display: null, size: null }],
    ['Note#^block-1', { kind: 'wikilink', path: 'Note', subpath: '^block-1', display: null, size: null }],
    ['  [[Заметка]]  ', { kind: 'wikilink', path: 'Заметка', subpath: null, display: null, size: null }],
  ];
  for (const [raw, expected] of cases) assert.deepEqual(parseLinkSyntax(raw), expected, raw);
});

function codeOf(raw: string): string {
  try {
    parseLinkSyntax(raw);
  } catch (e) {
    assert.ok(e instanceof VaultgateError);
    assert.ok(e.hint, 'every link error has a hint');
    return e.code;
  }
  return 'NO ERROR';
}

test('link syntax: an empty or blank link is LINK_EMPTY', () => {
  for (const raw of ['', '   ', '\n', '[[]]', '[[  ]]', '![[]]', '[t]()']) assert.equal(codeOf(raw), 'LINK_EMPTY', JSON.stringify(raw));
});

test('link syntax: unclosed or mixed-up links and external URLs are LINK_INVALID', () => {
  for (const raw of ['[[a', '[[a]', 'a]]', '[[a]] [[b]]', '[t](x', '[t](https://example.org)', '[t](mailto:a@b.c)', '[[a\nb]]']) {
    assert.equal(codeOf(raw), 'LINK_INVALID', JSON.stringify(raw));
  }
});
