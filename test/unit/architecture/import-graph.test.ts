/**
 * The import graph of src/ has no cycle, between files or between folders.
 *
 * A cycle makes load order matter (a module sees another's bindings before they
 * are set), hides which part is the core, and stops a wing from being left out.
 * Every edge that runs code counts: static imports and re-exports, and dynamic
 * `import()` (a lazy edge is still an edge). Type-only imports are erased by
 * the compiler and do not count. Folders are the first level under src/ (each
 * file at src/'s root is its own node).
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';

const SRC = path.resolve(import.meta.dirname, '../../../src');

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) return sourceFiles(p);
    return /\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts') ? [p] : [];
  });
}

/** The runtime imports of one file: module specifiers that are not type-only. */
function runtimeImports(file: string): string[] {
  const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, file.endsWith('x') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
  const out: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const named = clause?.namedBindings && ts.isNamedImports(clause.namedBindings) ? clause.namedBindings.elements : null;
      const onlyTypes = clause !== undefined && (clause.isTypeOnly || (!clause.name && named !== null && named.length > 0 && named.every((e) => e.isTypeOnly)));
      if (!onlyTypes) out.push(node.moduleSpecifier.text);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      const named = node.exportClause && ts.isNamedExports(node.exportClause) ? node.exportClause.elements : null;
      const onlyTypes = node.isTypeOnly || (named !== null && named.length > 0 && named.every((e) => e.isTypeOnly));
      if (!onlyTypes) out.push(node.moduleSpecifier.text);
    } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
      const arg = node.arguments[0];
      if (arg && ts.isStringLiteralLike(arg)) out.push(arg.text);
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

function resolveLocal(from: string, spec: string, known: Set<string>): string | null {
  if (!spec.startsWith('.')) return null;
  const base = path.resolve(path.dirname(from), spec);
  for (const c of [base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), base, `${base}.ts`, path.join(base, 'index.ts')]) {
    if (known.has(c)) return c;
  }
  return null;
}

/** Strongly connected components with more than one node (Tarjan), each sorted. */
function cycles(graph: Map<string, Set<string>>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const connect = (v: string): void => {
    index.set(v, next);
    low.set(v, next);
    next++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        connect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.has(v)) found.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) connect(v);
  return found;
}

function folderOf(file: string): string {
  const rel = path.relative(SRC, file).split(path.sep);
  return rel.length > 1 ? rel[0]! : rel[0]!.replace(/\.tsx?$/, '.ts');
}

const files = sourceFiles(SRC);
const known = new Set(files);
const fileGraph = new Map<string, Set<string>>();
for (const f of files) {
  const deps = new Set<string>();
  for (const spec of runtimeImports(f)) {
    const target = resolveLocal(f, spec, known);
    if (target && target !== f) deps.add(target);
  }
  fileGraph.set(f, deps);
}

test('the import graph is read: every source file is a node and relative imports resolve', () => {
  assert.ok(files.length > 100, `expected the whole src/ tree, found ${files.length} files`);
  const edges = [...fileGraph.values()].reduce((n, s) => n + s.size, 0);
  assert.ok(edges > files.length, `expected more import edges than files, found ${edges}`);
});

test('no cycle between files (static, re-export and dynamic imports)', () => {
  const found = cycles(fileGraph).map((c) => c.map((f) => path.relative(SRC, f)));
  assert.deepEqual(found, [], `file cycles:\n${found.map((c) => c.join(' → ')).join('\n')}`);
});

test('no cycle between folders of src/', () => {
  const folders = new Map<string, Set<string>>();
  for (const [f, deps] of fileGraph) {
    const from = folderOf(f);
    const set = folders.get(from) ?? new Set<string>();
    for (const d of deps) if (folderOf(d) !== from) set.add(folderOf(d));
    folders.set(from, set);
  }
  const found = cycles(folders);
  assert.deepEqual(found, [], `folder cycles:\n${found.map((c) => c.join(' ⇄ ')).join('\n')}`);
});

test('the cycle finder sees a cycle when there is one', () => {
  const g = new Map([['a', new Set(['b'])], ['b', new Set(['c'])], ['c', new Set(['a'])], ['d', new Set(['a'])]]);
  assert.deepEqual(cycles(g), [['a', 'b', 'c']]);
});
