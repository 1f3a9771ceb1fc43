import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compilePathGlob } from '../../../src/vault/index.js';
import { isVaultgateError } from '../../../src/errors.js';

const g = (glob: string, caseInsensitive = false) => compilePathGlob(glob, 'test', 'CONFIG_INVALID', { caseInsensitive });

test('glob: * stays inside a segment, ? is one character, ** is any number of segments', () => {
  const rows: Array<[string, string, boolean]> = [
    ['Books/*', 'Books/a.md', true],
    ['Books/*', 'Books/x/a.md', false],
    ['Books/**', 'Books/a.md', true],
    ['Books/**', 'Books/x/y/a.md', true],
    ['Books/**', 'Books', false],
    ['Books/**', 'Booksy/a.md', false],
    ['**/Index.md', 'Index.md', true],
    ['**/Index.md', 'a/b/Index.md', true],
    ['**/Index.md', 'a/b/MyIndex.md', false],
    ['a/**/b.md', 'a/b.md', true],
    ['a/**/b.md', 'a/x/y/b.md', true],
    ['*.md', 'a.md', true],
    ['*.md', 'd/a.md', false],
    ['n?te.md', 'note.md', true],
    ['n?te.md', 'n/te.md', false],
    ['a.b(c)+.md', 'a.b(c)+.md', true],
    ['a.b(c)+.md', 'aXb(c)+.md', false],
    ['Café/*', 'Cafe\u0301/x.md', true],
  ];
  for (const [glob, path, want] of rows) assert.equal(g(glob).test(path), want, `${glob} ~ ${path}`);
});

test('glob: case-insensitive when asked (areas), case-sensitive otherwise', () => {
  assert.equal(g('Imported/**').test('imported/a.md'), false);
  assert.equal(g('Imported/**', true).test('imported/a.md'), true);
  assert.equal(g('Заметки/**', true).test('ЗАМЕТКИ/x.md'), true);
});

test('glob: braces, classes, empty segments, absolute globs and partial ** are refused with the caller’s code', () => {
  for (const bad of ['', 'a/{b,c}', 'a/[bc]', 'a//b', 'a/', '/a', 'a\\b', 'a/**b', '../a', 'a/./b']) {
    try {
      g(bad);
      assert.fail(`accepted ${JSON.stringify(bad)}`);
    } catch (e) {
      assert.ok(isVaultgateError(e) && e.code === 'CONFIG_INVALID', String(e));
    }
  }
});
