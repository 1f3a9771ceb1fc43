/**
 * The shape of src/, read with the TypeScript compiler API (no type checking,
 * one parse per file): its functions (name, lines, parameters), its runtime
 * import graph, and the cycles in that graph at file and folder level.
 * Shared by `scripts/code-shape.ts` (the report) and the fast-lane test that
 * fails on any import cycle (test/unit/import-graph.test.ts), so both see the
 * same graph.
 *
 * An edge is every import that runs code: static imports, re-exports and
 * dynamic `import()` (a lazy edge is still an edge: it hides which part is the
 * core). `import type …`, `export type … from` and imports whose every named
 * specifier is `type X` are erased by tsc and are left out. A file importing
 * itself is not an edge.
 */
import fs from 'node:fs';
import path from 'node:path';
import ts from 'typescript';

export interface FunctionShape {
  /** `src/…` relative path, forward slashes. */
  file: string;
  line: number;
  name: string;
  lines: number;
  params: number;
}

export interface SourceShape {
  /** Every .ts/.tsx file under the root, relative, sorted. */
  files: string[];
  functions: FunctionShape[];
  /** file → the files it imports at run time (same relative form as `files`). */
  imports: Map<string, Set<string>>;
  /** file → every file it imports, type-only imports included (what it knows of, not only what it runs). */
  typeImports: Map<string, Set<string>>;
  /** How many `export * from` lines. */
  exportStars: number;
}

function listSources(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...listSources(p));
    else if (/\.tsx?$/.test(e.name) && !e.name.endsWith('.d.ts')) out.push(p);
  }
  return out;
}

const posix = (p: string) => p.split(path.sep).join('/');

/** The file an import specifier names, or undefined for a package or a missing file. */
function resolveSpecifier(fromFile: string, spec: string, known: Set<string>): string | undefined {
  if (!spec.startsWith('.')) return undefined;
  const base = path.resolve(path.dirname(fromFile), spec);
  const candidates = [base, base.replace(/\.js$/, '.ts'), base.replace(/\.js$/, '.tsx'), `${base}.ts`, path.join(base, 'index.ts')];
  return candidates.find((c) => known.has(c));
}

function isTypeOnlyImport(node: ts.ImportDeclaration): boolean {
  const clause = node.importClause;
  if (!clause) return false; // side-effect import: runs
  if (clause.isTypeOnly) return true;
  if (clause.name) return false;
  const bindings = clause.namedBindings;
  if (!bindings || ts.isNamespaceImport(bindings)) return false;
  return bindings.elements.length > 0 && bindings.elements.every((e) => e.isTypeOnly);
}

function isTypeOnlyExport(node: ts.ExportDeclaration): boolean {
  if (node.isTypeOnly) return true;
  const clause = node.exportClause;
  if (!clause || ts.isNamespaceExport(clause)) return false;
  return clause.elements.length > 0 && clause.elements.every((e) => e.isTypeOnly);
}

function functionName(node: ts.Node): string {
  const named = (node as { name?: ts.Node }).name;
  if (named && (ts.isIdentifier(named) || ts.isStringLiteral(named) || ts.isPrivateIdentifier(named))) return named.text;
  const parent = node.parent;
  if (ts.isVariableDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isPropertyAssignment(parent) && (ts.isIdentifier(parent.name) || ts.isStringLiteral(parent.name))) return parent.name.text;
  if (ts.isPropertyDeclaration(parent) && ts.isIdentifier(parent.name)) return parent.name.text;
  if (ts.isConstructorDeclaration(node)) return 'constructor';
  return '(anonymous)';
}

/** Reads every source file under `root` (e.g. …/src) once. */
export function readSourceShape(root: string): SourceShape {
  const absRoot = path.resolve(root);
  const base = path.dirname(absRoot);
  const abs = listSources(absRoot).sort();
  const known = new Set(abs);
  const rel = (p: string) => posix(path.relative(base, p));
  const functions: FunctionShape[] = [];
  const imports = new Map<string, Set<string>>();
  const typeImports = new Map<string, Set<string>>();
  let exportStars = 0;
  for (const file of abs) {
    const text = fs.readFileSync(file, 'utf8');
    const sf = ts.createSourceFile(file, text, ts.ScriptTarget.ES2022, true, file.endsWith('.tsx') ? ts.ScriptKind.TSX : ts.ScriptKind.TS);
    const deps = new Set<string>();
    const known_ = new Set<string>();
    imports.set(rel(file), deps);
    typeImports.set(rel(file), known_);
    const addDep = (spec: ts.Expression | undefined, typeOnly = false) => {
      if (!spec || !ts.isStringLiteralLike(spec)) return;
      const target = resolveSpecifier(file, spec.text, known);
      if (!target || target === file) return;
      known_.add(rel(target));
      if (!typeOnly) deps.add(rel(target));
    };
    const visit = (node: ts.Node): void => {
      if (ts.isImportDeclaration(node)) {
        addDep(node.moduleSpecifier, isTypeOnlyImport(node));
      } else if (ts.isExportDeclaration(node)) {
        if (node.moduleSpecifier && !node.exportClause && !node.isTypeOnly) exportStars++;
        if (node.moduleSpecifier) addDep(node.moduleSpecifier, isTypeOnlyExport(node));
      } else if (ts.isCallExpression(node) && node.expression.kind === ts.SyntaxKind.ImportKeyword) {
        addDep(node.arguments[0]);
      } else if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
        const fn = node as ts.FunctionLikeDeclaration;
        const start = sf.getLineAndCharacterOfPosition(fn.getStart(sf)).line + 1;
        const end = sf.getLineAndCharacterOfPosition(fn.getEnd()).line + 1;
        const params = fn.parameters.filter((p) => !(ts.isIdentifier(p.name) && p.name.text === 'this')).length;
        functions.push({ file: rel(file), line: start, name: functionName(fn), lines: end - start + 1, params });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { files: abs.map(rel), functions, imports, typeImports, exportStars };
}

/**
 * The folder a file belongs to at the top floor: `src/index/query.ts` →
 * `src/index`. A file directly in src/ is its own node (`src/errors.ts`):
 * root files are shared leaves, not one folder. A part of the optional wing is
 * a folder of its own: `src/wing/similar/lsa.ts` → `src/wing/similar`.
 */
export function topFolder(file: string): string {
  const parts = file.split('/');
  if (parts[1] === 'wing' && parts.length > 3) return parts.slice(0, 3).join('/');
  return parts.length > 2 ? parts.slice(0, 2).join('/') : file;
}

/** The folder graph: an edge A → B when some file in A imports some file in B (A ≠ B). */
export function folderGraph(imports: Map<string, Set<string>>): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  for (const [from, tos] of imports) {
    const a = topFolder(from);
    if (!out.has(a)) out.set(a, new Set());
    for (const to of tos) {
      const b = topFolder(to);
      if (a !== b) out.get(a)!.add(b);
    }
  }
  return out;
}

/**
 * The strongly connected components with more than one node, or one node
 * importing itself (Tarjan). Each is a set of nodes that import one another
 * in a ring; sorted for a stable report.
 */
export function importCycles(graph: Map<string, Set<string>>): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const strongConnect = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        strongConnect(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.has(v)) out.push(component.sort());
    }
  };
  for (const v of [...graph.keys()].sort()) if (!index.has(v)) strongConnect(v);
  return out.sort((a, b) => a[0]!.localeCompare(b[0]!));
}

/** One ring through a cycle's nodes, for a readable message: a → b → … → a. */
export function cyclePath(graph: Map<string, Set<string>>, component: string[]): string[] {
  const members = new Set(component);
  const start = component[0]!;
  // Breadth-first from start back to start, inside the component.
  const prev = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const v = queue.shift()!;
    for (const w of graph.get(v) ?? []) {
      if (!members.has(w)) continue;
      if (w === start) {
        const ring = [v];
        let u = v;
        while (u !== start) ring.unshift((u = prev.get(u)!));
        return [...ring, start];
      }
      if (!prev.has(w)) {
        prev.set(w, v);
        queue.push(w);
      }
    }
  }
  return component;
}

/** Every module door under src/: `src/<m>/index.ts`, `src/wing/<m>/index.ts`, `src/inbox/<face>/index.ts`. */
export function moduleDoors(src: string): string[] {
  const out: string[] = [];
  const visit = (dir: string, depth: number): void => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
      if (!e.isDirectory()) continue;
      const p = path.join(dir, e.name);
      if (fs.existsSync(path.join(p, 'index.ts'))) out.push(path.join(p, 'index.ts'));
      else if (depth === 0) visit(p, 1);
    }
  };
  visit(src, 0);
  return out.sort();
}

/** A door's exported names, read from its source: values as they are, types as `type X`. */
export function doorNames(file: string): { names: string[]; exportStar: boolean } {
  const sf = ts.createSourceFile(file, fs.readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, false, ts.ScriptKind.TS);
  const names: string[] = [];
  let exportStar = false;
  const exported = (n: ts.Node): boolean => ts.canHaveModifiers(n) && (ts.getModifiers(n) ?? []).some((m) => m.kind === ts.SyntaxKind.ExportKeyword);
  for (const st of sf.statements) {
    if (ts.isExportDeclaration(st)) {
      if (!st.exportClause) { exportStar = true; continue; }
      if (ts.isNamespaceExport(st.exportClause)) { names.push(st.exportClause.name.text); continue; }
      for (const el of st.exportClause.elements) names.push(st.isTypeOnly || el.isTypeOnly ? `type ${el.name.text}` : el.name.text);
    } else if (exported(st)) {
      if (ts.isInterfaceDeclaration(st) || ts.isTypeAliasDeclaration(st)) names.push(`type ${st.name.text}`);
      else if (ts.isVariableStatement(st)) for (const d of st.declarationList.declarations) names.push((d.name as ts.Identifier).text);
      else if ((ts.isFunctionDeclaration(st) || ts.isClassDeclaration(st) || ts.isEnumDeclaration(st)) && st.name) names.push(st.name.text);
    }
  }
  return { names: names.sort(), exportStar };
}
