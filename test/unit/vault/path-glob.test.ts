import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compilePathGlob } from '../../../src/vault/index.js';

const glob = (g: string) => compilePathGlob(g, 'test', 'SCENARIO_INVALID');

test('path glob: * stays inside a folder name, ** spans folders, ? is one character', () => {
  const cases: [string, string, boolean][] = [
    ['Books/**', 'Books/a.md', true],
    ['Books/**', 'Books/x/y/z.md', true],
    ['Books/**', 'Books', false],
    ['Books/**', 'Bookshelf/a.md', false],
    ['Books/**', 'books/a.md', false], // case-sensitive: a glob grants writes, the stricter reading wins
    ['Journal/*.md', 'Journal/2026-11-28.md', true],
    ['Journal/*.md', 'Journal/2026/11-28.md', false],
    ['Journal/*.md', 'Journal/notes.txt', false],
    ['**/Index.md', 'Index.md', true],
    ['**/Index.md', 'a/b/Index.md', true],
    ['**/Index.md', 'a/b/MyIndex.md', false],
    ['Books/**/*.md', 'Books/a.md', true],
    ['Books/**/*.md', 'Books/x/a.md', true],
    ['Books/**/*.md', 'Books/x/a.png', false],
    ['Day-??.md', 'Day-01.md', true],
    ['Day-??.md', 'Day-1.md', false],
    ['a.b/(x)+$.md', 'a.b/(x)+$.md', true], // regex characters are literal
    ['a.b/(x)+$.md', 'aXb/(x)+$.md', false],
    ['**', 'anything/at/all.md', true],
    ['Café/**', 'Cafe\u0301/menu.md', true], // NFC on both sides
  ];
  for (const [g, p, want] of cases) assert.equal(glob(g).test(p), want, `${g} ~ ${p}`);
});

test('path glob: braces, classes, absolute paths, .. and partial ** are refused with the code asked for', () => {
  for (const g of ['', '/Books/**', 'Books/../x', 'Books//x', 'Books/', '{Books,Quotes}/**', 'Books/[ab]*.md', 'Books/a**', 'a\\b']) {
    assert.throws(() => glob(g), (e: any) => e.code === 'SCENARIO_INVALID' && e.message.startsWith('test: glob'), g);
  }
  assert.throws(() => compilePathGlob('/x', 'config.yaml: areas[0].glob', 'CONFIG_INVALID'), (e: any) => e.code === 'CONFIG_INVALID');
});

test('path glob: case-insensitive when asked (the vault config’s areas protect folders: on macOS imported/ is Imported/)', () => {
  const area = (g: string) => compilePathGlob(g, 'test', 'CONFIG_INVALID', { caseInsensitive: true });
  assert.equal(glob('Imported/**').test('imported/a.md'), false);
  assert.equal(area('Imported/**').test('imported/a.md'), true);
  assert.equal(area('Заметки/**').test('ЗАМЕТКИ/x.md'), true);
  assert.equal(area('Imported/**').test('Importedx/a.md'), false);
});
