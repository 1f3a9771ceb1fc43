import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { buildFileIndex, resolveLinkPath } from '../../../src/links/index.js';

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
