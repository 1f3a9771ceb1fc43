/**
 * `node --import tsx scripts/code-shape.ts [dir]` (default `src`): the shape a
 * newcomer meets (issue 25). Prints files per folder, functions over 80 lines,
 * functions with more than 3 parameters, file- and folder-level runtime import
 * cycles, and the number of `export *` lines. Reads the code with the
 * TypeScript compiler API (scripts/code-analysis.ts, which the import-cycle
 * test shares).
 */
import {
  cyclePath,
  folderGraph,
  importCycles,
  readSourceShape,
  topFolder,
} from './code-analysis.js';

const LONG_FUNCTION = 80;
const MANY_PARAMS = 3;

const root = process.argv[2] ?? 'src';
const shape = readSourceShape(root);

const perFolder = new Map<string, number>();
for (const f of shape.files) {
  const folder = topFolder(f).endsWith('.ts') || topFolder(f).endsWith('.tsx') ? `${root} (root)` : topFolder(f);
  perFolder.set(folder, (perFolder.get(folder) ?? 0) + 1);
}
console.log(`## files per folder (${shape.files.length} files)`);
for (const [folder, n] of [...perFolder].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))) console.log(`${String(n).padStart(4)}  ${folder}`);

const long = shape.functions.filter((f) => f.lines > LONG_FUNCTION).sort((a, b) => b.lines - a.lines);
console.log(`\n## functions over ${LONG_FUNCTION} lines: ${long.length}`);
for (const f of long) console.log(`${String(f.lines).padStart(4)}  ${f.name}  ${f.file}:${f.line}`);

const many = shape.functions.filter((f) => f.params > MANY_PARAMS).sort((a, b) => b.params - a.params || a.file.localeCompare(b.file));
console.log(`\n## functions with more than ${MANY_PARAMS} parameters: ${many.length}`);
for (const f of many) console.log(`${String(f.params).padStart(4)}  ${f.name}  ${f.file}:${f.line}`);

const fileCycles = importCycles(shape.imports);
console.log(`\n## file-level import cycles: ${fileCycles.length}`);
for (const c of fileCycles) console.log(`  (${c.length} files) ${cyclePath(shape.imports, c).join(' → ')}`);

const folders = folderGraph(shape.imports);
const folderCycles = importCycles(folders);
console.log(`\n## folder-level import cycles: ${folderCycles.length}`);
for (const c of folderCycles) console.log(`  (${c.length} folders) ${c.join(', ')}\n    e.g. ${cyclePath(folders, c).join(' → ')}`);

console.log(`\n## export * lines: ${shape.exportStars}`);
