/**
 * The import graph of src/ has no cycle, between files or between folders.
 *
 * A cycle makes load order matter (a module sees another's bindings before they
 * are set), hides which part is the core, and stops a wing from being left out.
 * The graph is the one `scripts/code-shape.ts` reports (scripts/code-analysis.ts):
 * static imports, re-exports and dynamic `import()` are edges; type-only imports
 * are erased by the compiler and are not. Folders are the first level under
 * src/ (each file at src/'s root is its own node).
 */
import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { cyclePath, folderGraph, importCycles, readSourceShape } from '../../../scripts/code-analysis.js';

const SRC = path.resolve(import.meta.dirname, '../../../src');
const shape = readSourceShape(SRC);

test('the import graph is read: every source file is a node and relative imports resolve', () => {
  assert.ok(shape.files.length > 100, `expected the whole src/ tree, found ${shape.files.length} files`);
  assert.equal(shape.imports.size, shape.files.length);
  const edges = [...shape.imports.values()].reduce((n, s) => n + s.size, 0);
  assert.ok(edges > shape.files.length, `expected more import edges than files, found ${edges}`);
});

test('no cycle between files (static, re-export and dynamic imports)', () => {
  const found = importCycles(shape.imports).map((c) => cyclePath(shape.imports, c).join(' → '));
  assert.deepEqual(found, [], `file cycles:\n${found.join('\n')}`);
});

test('no cycle between folders of src/', () => {
  const folders = folderGraph(shape.imports);
  const found = importCycles(folders).map((c) => cyclePath(folders, c).join(' → '));
  assert.deepEqual(found, [], `folder cycles:\n${found.join('\n')}`);
});

test('the cycle finder sees a cycle when there is one, and names a ring through it', () => {
  const g = new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a'])], ['d', new Set(['a'])]]);
  assert.deepEqual(importCycles(g), [['a', 'b', 'c']]);
  assert.deepEqual(cyclePath(g, ['a', 'b', 'c']), ['a', 'b', 'c', 'a']);
});

test('a type-only import is not an edge; a dynamic import is', async () => {
  const fs = await import('node:fs');
  const os = await import('node:os');
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vg-graph-'));
  try {
    fs.mkdirSync(path.join(dir, 'src'));
    fs.writeFileSync(path.join(dir, 'src/a.ts'), "import type { B } from './b.js';\nimport { type C } from './c.js';\nexport const a = () => import('./d.js');\n");
    for (const n of ['b', 'c', 'd']) fs.writeFileSync(path.join(dir, `src/${n}.ts`), `export type ${n.toUpperCase()} = 1;\n`);
    const s = readSourceShape(path.join(dir, 'src'));
    assert.deepEqual([...s.imports.get('src/a.ts')!], ['src/d.ts']);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
