import { VaultgateError } from '../errors.js';
import { defineOperation, READ_ONLY } from './operation.js';
import { readNoteByArg } from './note-arg.js';
import { vaultPath } from './params.js';

/**
 * The reads of one note or file: `note` (its text, or a window of it),
 * `resolve` (where a `[[link]]` goes) and `files` (the vault's file list).
 * Each refreshes the index first and never writes inside the vault.
 */

/** A note printed on a terminal stops here unless `--all`: a 5 MB note is not something to scroll past. */
const NOTE_TEXT_SHOWN = { lines: 300, chars: 30_000 };

export const noteOp = defineOperation({
  name: 'note',
  command: 'note',
  tool: 'note',
  group: 'read',
  summary: 'Print a note, or one section of it, with its SHA-256, sections and lines',
  description:
    'Read straight from disk: `text` and `sha256` are one read of the same bytes, so `sha256` is the base to propose an edit against. ' +
    'A name that is not a path is resolved as Obsidian resolves `[[name]]` (an ambiguous name is an error listing the candidates).',
  toolDescription:
    'Read a note, or one section, from disk: text, and sha256 (the base to propose an edit against). ' +
    'A long text comes as a window: continue with cursor = window.next_cursor.',
  examples: ['vaultgate note Home.md', "vaultgate note 'Rules' --heading 'The robber on a 7'", 'vaultgate note Journal/2026-11-28.md --heading ^summary --json'],
  params: [
    { ...vaultPath('path', 'vault-relative path of the note (.md optional), or its name as in [[name]]'), toolDescription: 'vault path (.md optional) or [[name]]' },
    { name: 'heading', type: 'string', placeholder: 'heading', description: 'only this section: a heading (`Setup`), nested (`Install#Linux`), or a block (`^id`)', toolDescription: 'one section: `Setup`, `Install#Linux`, `^block`' },
    { name: 'max_chars', type: 'int', min: 100, max: 100_000_000, placeholder: 'n', description: 'a window of at most N characters of the text (cut at a line end); window.next_cursor continues it', toolDescription: 'window size in characters' },
    { name: 'cursor', type: 'string', placeholder: 'cursor', nonEmpty: true, description: 'continue a long note after the previous window (its window.next_cursor; same path and heading)', toolDescription: 'window.next_cursor of the last window' },
    { name: 'all', type: 'boolean', cliOnly: true, description: `on a terminal, print the whole text (default: the first ${NOTE_TEXT_SHOWN.lines} lines)` },
  ] as const,
  output: {
    path: 'string',
    sha256: 'string',
    size: 'integer',
    sections: { array: { heading_path: { array: 'string' }, anchor: 'string|null', level: 'integer', lines: { array: 'integer' }, chars: 'integer' } },
    frontmatter: { object: { data: 'any', error: 'any' }, nullable: true },
    text: 'string',
    lines: { array: 'integer' },
    heading_path: 'array|null',
    anchor: 'string|null',
    window: { object: { from_char: 'integer', to_char: 'integer', total_chars: 'integer', next_cursor: 'string|null' }, optional: true },
    resolved_from: '?string',
  },
  annotations: READ_ONLY,
  run: async function runNote(input, ctx) {
    const { readNoteSection, windowNote } = await import('../retrieval/index.js');
    const session = ctx.session();
    const read = (path: string) => windowNote(readNoteSection(session.root, path, input.heading), { maxChars: input.max_chars, cursor: input.cursor, heading: input.heading });
    const { value, resolvedFrom } = await readNoteByArg(session, input.path, read);
    return resolvedFrom === undefined ? { ...value } : { ...value, resolved_from: resolvedFrom };
  },
  text: (r, input) => {
    // The README's first edit copies the hash from here: the text alone gives nothing to propose against.
    const where = `${r.path}${r.heading_path?.length ? ' › ' + (r.heading_path as string[]).join(' › ') : ''}, lines ${r.lines[0]}-${r.lines[1]}`;
    const base = `sha256 ${r.sha256}  ${where} (of the whole file: the --base of an edit)`;
    return endLine(noteBody(r, input)) + base;
  },
});

/** The note's text as a terminal shows it: a window with its cursor, or the first lines unless `--all`. */
function noteBody(r: { text: string; path: string; window?: { from_char: number; to_char: number; total_chars: number; next_cursor: string | null } }, input: { all?: boolean }): string {
  if (r.window) {
    const w = r.window;
    return r.text + (w.next_cursor ? `${r.text.endsWith('\n') ? '' : '\n'}… characters ${w.from_char}-${w.to_char} of ${w.total_chars}; continue with --cursor ${w.next_cursor}` : '');
  }
  if (input.all) return r.text;
  const lines = r.text.split('\n');
  let shown = lines.slice(0, NOTE_TEXT_SHOWN.lines).join('\n');
  if (shown.length > NOTE_TEXT_SHOWN.chars) shown = shown.slice(0, NOTE_TEXT_SHOWN.chars);
  return shown.length < r.text.length ? `${shown}\n… ${r.text.length - shown.length} more characters of ${r.path} (--all prints everything; --json gives text, sha256, sections)` : r.text;
}

const endLine = (s: string) => (s === '' || s.endsWith('\n') ? s : s + '\n');

export const resolveOp = defineOperation({
  name: 'resolve',
  command: 'resolve',
  tool: 'resolve_link',
  group: 'read',
  summary: 'Resolve a link exactly as Obsidian would, from a given note',
  description:
    'The folder of the note the link is written in decides ties between files of the same name (own folder first); ' +
    'without --from the link is resolved as written in a note at the vault root (`from` is then "").',
  examples: [
    "vaultgate resolve '[[Rules]]' --from Games/Catan/Strategy.md",
    "vaultgate resolve '[[Sourdough#Feeding|feed it]]' --from Home.md --json",
    "vaultgate resolve '[[Sourdough#^starter-ratio]]'",
  ],
  toolDescription: 'Resolve a link as Obsidian would when written in note `from` (default: a note at the vault root).',
  params: [
    { name: 'link', type: 'string', positional: true, description: 'the link as written: [[A#B|c]], ![[x.png|100]], [t](a%20b.md), or a bare target', toolDescription: 'as written, e.g. [[A#B|c]] or [t](a%20b.md)' },
    { name: 'from', type: 'string', placeholder: 'note', description: 'the note the link is written in (vault-relative path; default: a note at the vault root)', toolDescription: 'vault path of the note the link is in', nonEmpty: true },
  ] as const,
  output: { link: 'string', from: 'string', kind: 'string', status: 'string', target: 'string|null', candidates: 'array|null', rule: 'string', subpath: 'object|null', warnings: 'array' },
  annotations: READ_ONLY,
  run: async function runResolve(input, ctx) {
    const { resolveFromIndex } = await import('../index/index.js');
    const session = ctx.session();
    return { ...session.read((h, fresh) => resolveFromIndex(h.db, session.root, input.link, input.from, fresh.warnings)).result };
  },
  text: (r) => {
    const sub = r.subpath ? ` #${r.subpath.value} (${r.subpath.exists === null ? 'not checked' : r.subpath.exists ? 'found' : 'missing'})` : '';
    return r.status === 'resolved' || r.status === 'unindexed'
      ? `${r.status}: ${r.target}${sub}${r.candidates ? `\n  candidates: ${r.candidates.join(', ')}` : ''}`
      : `${r.status}${r.candidates ? `: ${r.candidates.join(', ')}` : ''}`;
  },
});

export const filesOp = defineOperation({
  name: 'files',
  command: 'files',
  group: 'admin',
  summary: 'List the files of the vault as Obsidian sees them (no dot-folders, no symlinks)',
  examples: ['vaultgate files', 'vaultgate files --json', 'vaultgate files Assets/map.png --hash   # the --base an attachment move needs'],
  params: [
    { name: 'path', type: 'string', positional: true, required: false, description: 'only this vault path (it must be a file of the vault)' },
    { name: 'hash', type: 'boolean', description: 'add each file\'s sha256 (what `propose --base` expects, for attachments too)' },
  ] as const,
  annotations: READ_ONLY,
  run: async function runFiles(input, ctx) {
    const { readVaultBytes, scanVault, sha256Hex, toVaultRelative } = await import('../vault/index.js');
    const root = ctx.session().root;
    const { files, warnings } = scanVault(root);
    let listed = files;
    if (input.path !== undefined) {
      const rel = toVaultRelative(root, input.path);
      const f = files.find((x) => x.path === rel);
      if (!f) {
        // readVaultBytes names the exact problem (missing, a symlink, a folder) with its typed error
        readVaultBytes(root, rel);
        throw new VaultgateError('NOT_FOUND', `${rel} is not a file of the vault`, { path: rel, hint: '`vaultgate files` lists them (dot-folders are not part of the vault).' });
      }
      listed = [f];
    }
    return {
      vault: root,
      total: listed.length,
      files: listed.map((f) => ({ path: f.path, size: f.size, ...(input.hash ? { sha256: sha256Hex(readVaultBytes(root, f.path).bytes) } : {}) })),
      warnings,
    };
  },
  text: (r) => r.files.map((f) => ('sha256' in f ? `${f.sha256}  ${f.path}` : f.path)).join('\n'),
});
