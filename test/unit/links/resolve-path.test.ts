import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { buildFileIndex, linkFoldKey, resolveLinkPath } from '../../../src/links/index.js';

const idx = (paths: string[], excluded: string[] = []) =>
  buildFileIndex(paths.map((path) => ({ path, indexed: !excluded.includes(path) })));

test('the index drops dot-folder files and duplicate paths', () => {
  const index = idx(['.trash/a.md', 'a.md', 'a.md', 'x/.hidden/b.md']);
  assert.deepEqual(index.files.map((f) => f.path), ['a.md']);
});

test('each resolution says which rule decided it', () => {
  const index = idx(['a/N.md', 'bb/N.md', 'c/N.md', 'Solo.md', 'F.md']);
  assert.equal(resolveLinkPath(index, 'Solo', 'F.md').rule, 'exact');
  assert.equal(resolveLinkPath(index, 'N', 'bb/F.md').rule, 'own-folder');
  assert.equal(resolveLinkPath(index, 'N', 'F.md').rule, 'tie');
  assert.equal(resolveLinkPath(index, 'bb/N', 'F.md').rule, 'exact');
  assert.equal(resolveLinkPath(index, '', 'F.md').rule, 'self');
  assert.equal(resolveLinkPath(index, 'nope', 'F.md').rule, 'none');
  assert.equal(resolveLinkPath(idx(['x/One.md']), 'One', 'F.md').rule, 'unique');
});

test('an empty link from a note not in the index is unresolved', () => {
  assert.equal(resolveLinkPath(idx([]), '', 'Gone.md').status, 'unresolved');
});

test('non-breaking spaces and doubled slashes are normalised like normalizePath', () => {
  const index = idx(['a/My Note.md']);
  assert.equal(resolveLinkPath(index, 'a//My\u00a0Note', 'F.md').target, 'a/My Note.md');
});

test('resolution is a pure function of the file list: order does not matter', () => {
  const names = ['a/N.md', 'b/N.md', 'bb/N.md', 'a/b/N.md', 'N.md', 'ж/N.md', 'c/n.md'];
  fc.assert(
    fc.property(fc.subarray(names, { minLength: 1 }), fc.constantFrom('F.md', 'a/F.md', 'b/F.md', 'a/b/F.md'), (subset, from) => {
      const forward = resolveLinkPath(idx(subset), 'N', from);
      const backward = resolveLinkPath(idx([...subset].reverse()), 'N', from);
      assert.deepEqual(forward, backward);
      if (forward.status === 'resolved') assert.ok(subset.includes(forward.target!));
      if (forward.candidates) assert.ok(forward.candidates.length > 1);
    }),
  );
});

test('invariants: a target is one of the candidates, ambiguity has no target, and the name always matches', () => {
  const folders = ['', 'a/', 'b/', 'A/', 'a/b/', 'жж/', 'x/a/'];
  const names = ['N.md', 'n.md', 'N.png', 'M.md'];
  const file = fc.tuple(fc.constantFrom(...folders), fc.constantFrom(...names)).map(([d, n]) => d + n);
  fc.assert(
    fc.property(fc.uniqueArray(file, { maxLength: 8 }), fc.constantFrom('N', 'n.md', 'a/N', '/a/N', './N', '../N', 'N.png'), fc.constantFrom(...folders), (files, link, dir) => {
      const r = resolveLinkPath(idx(files), link, dir + 'From.md');
      if (r.status === 'ambiguous') assert.ok(r.target === null && r.candidates!.length > 1);
      if (r.target !== null) {
        assert.ok(files.includes(r.target));
        if (r.candidates) assert.ok(r.candidates.includes(r.target));
        const base = link.replace(/^.*\//, '').toLowerCase();
        assert.ok([base, base + '.md'].includes(r.target.replace(/^.*\//, '').toLowerCase()));
      }
      if (r.status === 'unresolved') assert.equal(r.candidates, null);
    }),
  );
});

test('linkFoldKey: the ASCII shortcut folds exactly as NFC, lower case, NFC does', () => {
  const full = (s: string) => s.normalize('NFC').toLowerCase().normalize('NFC');
  // ASCII alone, and ASCII next to what NFC or case folding changes (composed and decomposed accents, dotted İ, Σ, Å sign).
  const pieces = fc.constantFrom('a', 'Z', '/', ' ', '.md', '#', 'e\u0301', '\u00c9', '\u0130', '\u03a3', '\u212b', 'Ё', '漢', '\u00a0');
  fc.assert(
    fc.property(fc.oneof(fc.string({ unit: 'binary-ascii' }), fc.array(pieces).map((p) => p.join(''))), (s) => {
      assert.equal(linkFoldKey(s), full(s));
    }),
    { numRuns: 2000 },
  );
});
