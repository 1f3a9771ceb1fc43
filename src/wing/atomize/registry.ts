import fs from 'node:fs';
import { VaultgateError } from '../../errors.js';
import { basenameOf, buildFileIndex, linkFoldKey, type FileIndex } from '../../links/index.js';
import type { Chunk } from './chunk.js';
import { readProgress } from './progress.js';
import { formatTsv, joinList, parseTsv, splitList } from './tsv.js';
import { files, nowIso, saveState, sha256, writeAtomic, type Work } from './work.js';

/**
 * The registry: one row per entity, merged across chunks by name and alias
 * (Obsidian's link fold: case and Unicode normalisation), in `registry.tsv`
 * for a person to edit. Extract rebuilds it from the done chunks, unless the
 * person edited it since it was last generated: then theirs is kept and the
 * new one is written beside it (`registry.generated.tsv`).
 *
 * `note` is the note's path relative to the --into folder (`Warden.md`,
 * `Roles/Warden.md`); empty: the entity gets no note.
 */
export const REGISTRY_COLUMNS = ['name', 'kind', 'aliases', 'chunks', 'note'] as const;

export interface RegistryRow {
  /** 1-based line in registry.tsv. */
  line: number;
  name: string;
  kind: string;
  aliases: string[];
  chunks: string[];
  note: string;
}

export interface RegistryOutcome {
  rows: number;
  /** `written`: registry.tsv replaced; `kept`: it was edited by hand, the new one is registry.generated.tsv. */
  registry: 'written' | 'kept';
}

/** Characters a note's file name cannot hold (Obsidian links, portable file names). */
const UNSAFE_NAME = /[\\/:*?"<>|#^[\]\u0000-\u001f]/g;

export function noteFileName(name: string): string {
  const base = name.replace(UNSAFE_NAME, ' ').replace(/\s+/g, ' ').trim().replace(/[. ]+$/, '');
  return (base === '' ? 'entity' : base.slice(0, 120)) + '.md';
}

/** Merge the entities of every done chunk into rows (first spelling of a name wins; the most common kind). */
export function buildRegistry(work: Work, chunks: readonly Chunk[]): Omit<RegistryRow, 'line'>[] {
  interface Group {
    names: string[];
    /** Every name and alias, in the order seen: the first spelling of each wins. */
    terms: string[];
    kinds: Map<string, number>;
    aliases: string[];
    chunks: Set<string>;
    keys: Set<string>;
    merged?: Group;
  }
  const groups: Group[] = [];
  const byKey = new Map<string, Group>();
  const root = (g: Group): Group => (g.merged ? (g.merged = root(g.merged)) : g);
  for (const c of chunks) {
    const p = readProgress(work, c);
    if (p?.status !== 'done') continue;
    for (const e of p.entities ?? []) {
      const keys = [e.name, ...e.aliases].map(linkFoldKey);
      const hits = [...new Set(keys.map((k) => byKey.get(k)).filter((g): g is Group => g !== undefined).map(root))];
      let g: Group;
      if (hits.length === 0) {
        g = { names: [], terms: [], kinds: new Map(), aliases: [], chunks: new Set(), keys: new Set() };
        groups.push(g);
      } else {
        g = hits[0]!;
        for (const other of hits.slice(1)) {
          g.names.push(...other.names);
          g.terms.push(...other.terms);
          g.aliases.push(...other.aliases);
          for (const [k, n] of other.kinds) g.kinds.set(k, (g.kinds.get(k) ?? 0) + n);
          for (const x of other.chunks) g.chunks.add(x);
          for (const k of other.keys) g.keys.add(k);
          other.merged = g;
        }
      }
      g.names.push(e.name);
      g.terms.push(e.name, ...e.aliases);
      g.aliases.push(...e.aliases);
      g.kinds.set(e.kind, (g.kinds.get(e.kind) ?? 0) + 1);
      g.chunks.add(c.id);
      for (const k of keys) {
        g.keys.add(k);
        byKey.set(k, g);
      }
    }
  }
  const live = groups.filter((g) => !g.merged);
  const usedNotes = new Set<string>();
  return live.map((g) => {
    const name = g.names[0]!;
    const nameKey = linkFoldKey(name);
    const aliases: string[] = [];
    const seen = new Set([nameKey]);
    for (const a of g.terms) {
      const k = linkFoldKey(a);
      if (seen.has(k)) continue;
      seen.add(k);
      aliases.push(a);
    }
    const kind = [...g.kinds.entries()].sort((a, b) => b[1] - a[1])[0]![0];
    let note = noteFileName(name);
    for (let n = 2; usedNotes.has(linkFoldKey(note)); n++) note = noteFileName(`${name} ${n}`);
    usedNotes.add(linkFoldKey(note));
    return { name, kind, aliases, chunks: [...g.chunks].sort(), note };
  });
}

function formatRegistry(rows: readonly Omit<RegistryRow, 'line'>[]): string {
  return formatTsv(
    REGISTRY_COLUMNS,
    rows.map((r) => ({ name: r.name, kind: r.kind, aliases: joinList(r.aliases), chunks: joinList(r.chunks), note: r.note })),
  );
}

/** Rebuild the registry from the done chunks; a registry edited by hand since it was generated is kept. */
export function regenerateRegistry(work: Work, chunks: readonly Chunk[]): RegistryOutcome {
  const rows = buildRegistry(work, chunks);
  const text = formatRegistry(rows);
  const f = files(work.dir);
  let current: string | null = null;
  try {
    current = fs.readFileSync(f.registry, 'utf8');
  } catch {
    current = null;
  }
  const edited = current !== null && work.state.registry_generated_sha256 !== undefined && sha256(current) !== work.state.registry_generated_sha256;
  if (edited) {
    writeAtomic(f.registryGenerated, text);
    return { rows: rows.length, registry: 'kept' };
  }
  writeAtomic(f.registry, text);
  work.state.registry_generated_sha256 = sha256(text);
  fs.rmSync(f.registryGenerated, { force: true });
  return { rows: rows.length, registry: 'written' };
}

export interface RegistryProblem {
  row: number;
  column: string | null;
  problem: string;
}

function invalid(file: string, problems: RegistryProblem[]): VaultgateError {
  const first = problems[0]!;
  return new VaultgateError(
    'ATOMIZE_REGISTRY_INVALID',
    `${file} row ${first.row}${first.column ? ` (${first.column})` : ''}: ${first.problem}${problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? 's' : ''})` : ''}`,
    {
      details: { file, problems: problems.slice(0, 200), total: problems.length },
      hint: 'Fix each row named (details.problems), then run `vaultgate atomize tidy --work DIR`; or delete registry.tsv and run `vaultgate atomize extract` to generate it again.',
    },
  );
}

/** registry.tsv read strictly: exactly the known columns, or ATOMIZE_REGISTRY_INVALID naming the column. */
export function readRegistry(work: Work): { rows: RegistryRow[]; sha256: string } {
  const file = files(work.dir).registry;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new VaultgateError('ATOMIZE_NOT_READY', `${file} does not exist yet`, { hint: 'Run `vaultgate atomize extract --work DIR --provider NAME` first: it writes the registry.' });
  }
  const t = parseTsv(text);
  const problems: RegistryProblem[] = [];
  t.header.forEach((h) => {
    if (!(REGISTRY_COLUMNS as readonly string[]).includes(h)) problems.push({ row: 1, column: h, problem: `unknown column ${JSON.stringify(h)}; the columns are ${REGISTRY_COLUMNS.join(', ')}` });
  });
  for (const c of REGISTRY_COLUMNS) if (!t.header.includes(c)) problems.push({ row: 1, column: c, problem: `missing column ${JSON.stringify(c)}` });
  const dup = t.header.filter((h, i) => t.header.indexOf(h) !== i);
  for (const d of new Set(dup)) problems.push({ row: 1, column: d, problem: `column ${JSON.stringify(d)} appears twice` });
  if (problems.length) throw invalid(file, problems);
  const col = (n: string) => t.header.indexOf(n);
  const rows = t.rows.map((r) => {
    if (r.cells.length > t.header.length) problems.push({ row: r.line, column: null, problem: `${r.cells.length} cells for ${t.header.length} columns (a tab inside a value is written \\t)` });
    const cell = (n: string) => (r.cells[col(n)] ?? '').trim();
    // a note written as its whole vault path (`Rules/Warden.md`) is read inside --into
    const note = work.state.into && cell('note').startsWith(work.state.into + '/') ? cell('note').slice(work.state.into.length + 1) : cell('note');
    return { line: r.line, name: cell('name'), kind: cell('kind'), aliases: splitList(cell('aliases')), chunks: splitList(cell('chunks')), note };
  });
  if (problems.length) throw invalid(file, problems);
  return { rows, sha256: sha256(text) };
}

/**
 * `atomize tidy`: every problem of the registry, each naming its row — empty
 * names, a name or alias two rows share, note paths that are not usable, or
 * that clash (case and Unicode folded, as Obsidian resolves links) with each
 * other or with a file of the vault: the same path, or the same file name
 * (a bare `[[Name]]` anywhere would then stop opening the note it opens now).
 */
export function validateRegistry(rows: readonly RegistryRow[], into: string | null, vault: FileIndex | null, file: string): void {
  const problems: RegistryProblem[] = [];
  const names = new Map<string, number>();
  const notes = new Map<string, number>();
  for (const r of rows) {
    if (r.name === '') problems.push({ row: r.line, column: 'name', problem: 'the name is empty' });
    for (const [term, column] of [[r.name, 'name'], ...r.aliases.map((a) => [a, 'aliases'] as const)] as const) {
      if (term === '') continue;
      const k = linkFoldKey(term);
      const other = names.get(k);
      if (other !== undefined && other !== r.line) problems.push({ row: r.line, column, problem: `${JSON.stringify(term)} is also a name or alias of row ${other}` });
      else if (other === r.line && column === 'aliases') problems.push({ row: r.line, column, problem: `${JSON.stringify(term)} is listed twice in the row` });
      else names.set(k, r.line);
    }
    if (r.note === '') continue;
    const bad = noteProblem(r.note);
    if (bad) {
      problems.push({ row: r.line, column: 'note', problem: bad });
      continue;
    }
    const finalPath = into ? `${into}/${r.note}` : r.note;
    const k = linkFoldKey(finalPath);
    const other = notes.get(k);
    if (other !== undefined) problems.push({ row: r.line, column: 'note', problem: `${finalPath} is also the note of row ${other} (case and Unicode folded)` });
    notes.set(k, r.line);
    const nameKey = linkFoldKey(basenameOf(finalPath));
    const others = new Set([...rows].filter((x) => x !== r && x.note !== '' && linkFoldKey(basenameOf(x.note)) === nameKey).map((x) => x.line));
    if (others.size > 0 && [...others].some((l) => l < r.line)) problems.push({ row: r.line, column: 'note', problem: `the file name ${basenameOf(finalPath)} is also used by row ${[...others][0]}: a link by name would be ambiguous` });
    if (vault) {
      const same = vault.byKey.get(k);
      if (same?.length) problems.push({ row: r.line, column: 'note', problem: `${finalPath} clashes with the vault's ${same[0]!.path} (the same path, case and Unicode folded)` });
      else {
        const named = vault.byName.get(nameKey);
        if (named?.length) problems.push({ row: r.line, column: 'note', problem: `${finalPath} has the file name of the vault's ${named[0]!.path}: links by that name would no longer resolve as they do` });
      }
    }
  }
  if (problems.length) throw invalid(file, problems.sort((a, b) => a.row - b.row));
}

function noteProblem(note: string): string | null {
  if (!/\.md$/i.test(note)) return `${JSON.stringify(note)} does not end in .md`;
  if (note.startsWith('/') || note.includes('\\') || note.split('/').some((s) => s === '' || s === '.' || s === '..' || s.startsWith('.'))) return `${JSON.stringify(note)} is not a path inside the --into folder`;
  if (/[#^[\]|]/.test(note)) return `${JSON.stringify(note)} holds # ^ [ ] or a vertical bar: no link can name it`;
  return null;
}

export interface TidyResult {
  rows: number;
  notes: number;
  into: string | null;
  vault_checked: boolean;
}

/** `atomize tidy --work DIR`: validate the registry against itself and the vault. */
export function atomizeTidy(work: Work, vault: FileIndex | null): TidyResult {
  const { rows, sha256: sha } = readRegistry(work);
  validateRegistry(rows, work.state.into, vault, files(work.dir).registry);
  work.state.tidy = { registry_sha256: sha, rows: rows.length, at: nowIso() };
  saveState(work);
  return { rows: rows.length, notes: rows.filter((r) => r.note !== '').length, into: work.state.into, vault_checked: vault !== null };
}

export { buildFileIndex };
