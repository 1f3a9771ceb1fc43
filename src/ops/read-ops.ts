import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { CONTEXT_BOUNDS, DEFAULT_BUDGET_CHARS, DEFAULT_CONTEXT_LIMIT, DEFAULT_MAX_LINKED, type ScenarioSlot } from '../context/types.js';
import { consentGate } from './consent-gate.js';
import { defineOperation, READ_ONLY, type OpContext } from './operation.js';

/**
 * The read operations: index, search, note, context, and the link verbs. Each
 * refreshes the index first (through the session) and never writes inside the
 * vault. Core modules are imported on first use so `--help` stays fast.
 */

/** One hit of `search` (docs/json.md): the fields agents cite. */
const SEARCH_HIT = {
  path: 'string',
  heading_path: { array: 'string' },
  anchor: 'string|null',
  lines: { array: 'integer' },
  part: 'array|null',
  sha256: 'string',
  score: 'number',
  match: 'string',
  snippet: 'string',
} as const;
const INDEX_STATE = { notes: 'integer', refreshed: 'boolean', took_ms: 'number' } as const;

/**
 * `--consent` of search and context: asks the person on their terminal before
 * the query goes to a dense-fusion provider off this machine (src/dense). CLI
 * only: consent is the person's, so an MCP client (an agent) cannot give it;
 * over MCP such a search stays lexical and says so in `dense`.
 */
const DENSE_CONSENT = {
  name: 'consent',
  type: 'boolean',
  cliOnly: true,
  description: 'with search.embeddings configured for a provider off this machine: show where the query would go and ask you on this terminal',
} as const;

/**
 * The dense side of a search or context (src/dense), or null when the machine
 * config has no `search.embeddings` — checked on the config's text first, so an
 * unconfigured search loads nothing more than it did.
 */
async function denseFor(session: { root: string; env: Record<string, string | undefined> }, texts: string[], ctx: OpContext, consent: boolean | undefined, overlap = false) {
  const { denseMaybeConfigured } = await import('../dense/configured.js');
  if (!denseMaybeConfigured(session.env)) return null;
  // overlap: the query's vector is awaited by the run itself (search ranks lexically meanwhile).
  const { prepareDense, startDense } = await import('../dense/index.js');
  return (overlap ? startDense : prepareDense)(session.root, session.env, texts, consentGate(ctx, consent));
}

const vaultPath = <N extends string>(name: N, description: string) => ({ name, type: 'string', positional: true, description, nonEmpty: true }) as const;

export const indexOp = defineOperation({
  name: 'index',
  command: 'index',
  group: 'admin',
  summary: 'Bring the search index up to date (incremental), or rebuild it from scratch',
  description: 'Every read refreshes the index itself; run this to build it ahead of time, to rebuild it, or to check it.',
  examples: ['vaultgate index', 'vaultgate index --rebuild', 'vaultgate index --check --json'],
  params: [
    { name: 'rebuild', type: 'boolean', description: 'discard the index file and index the whole vault again' },
    { name: 'check', type: 'boolean', description: 'verify the index file first (SQLite quick_check, FTS5 integrity-check); rebuild it if damaged' },
  ] as const,
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run(input, ctx) {
    const session = ctx.session();
    const { refresh, handle, integrity } = session.read(() => null, { rebuild: input.rebuild, check: input.check });
    return { vault: session.root, file: handle.file, created: handle.created, integrity, ...refresh };
  },
  text: (r) =>
    `${r.notes} notes indexed (${r.files} files) in ${r.took_ms} ms: ` +
    `${r.added} added, ${r.changed} changed, ${r.deleted} deleted, ${r.renamed} renamed` +
    (r.warnings.length ? `\n${r.warnings.length} warnings:\n` + r.warnings.map((w) => `  ${w.path}: ${w.message}`).join('\n') : ''),
});

export const searchOp = defineOperation({
  name: 'search',
  command: 'search',
  tool: 'search',
  group: 'read',
  summary: 'Search sections of notes: words (OR, ranked by BM25), "phrases", -excluded, prefix*',
  description:
    'Returns cited sections (path, heading path, lines, file hash), best first, one per note. ' +
    'Say a thing is not in the vault only when `total` is 0.',
  toolDescription:
    'Find where something is written: sections, best first, one per note. Query: words (any may match), "a phrase", -excluded, prefix*. ' +
    'Cite path, heading_path, lines; sha256 is the base to propose against. Only total 0 means it is not in the vault.',
  examples: ["vaultgate search 'how does the robber work' --limit 3", 'vaultgate search sourdough --path Wiki/ --json', "vaultgate search '\"exact phrase\"' -draft"],
  params: [
    { name: 'query', type: 'string', positional: 'variadic', description: 'the query; several words are joined with spaces', toolDescription: 'the query', nonEmpty: true },
    { name: 'limit', type: 'int', min: 1, max: 1000, default: 10, placeholder: 'n', description: 'most hits to return', toolDescription: 'most hits' },
    { name: 'offset', type: 'int', min: 0, max: 999, default: 0, placeholder: 'n', description: 'skip this many first hits (to page; hits beyond the 1000th are never returned)', toolDescription: 'skip this many hits (page)' },
    { name: 'path', type: 'string', placeholder: 'prefix', description: 'only notes whose vault path starts with PREFIX', toolDescription: 'only notes under this vault path prefix' },
    { name: 'tag', type: 'string', placeholder: 'tag', description: 'only notes with this tag (nested tags included)', toolDescription: 'only notes with this tag' },
    { name: 'where', type: 'strings', placeholder: 'key=value', description: 'only notes whose property KEY equals VALUE (repeatable; all must hold)', toolDescription: '["key=value", …]: only notes with these properties' },
    { name: 'all_sections', type: 'boolean', description: 'return every matching section, not only the best one per note', toolDescription: 'all matching sections of each note' },
    DENSE_CONSENT,
  ] as const,
  output: {
    query: 'string',
    total: 'integer',
    hits: { array: SEARCH_HIT },
    dense: '?object',
    warnings: '?array',
    index: { object: INDEX_STATE },
  },
  annotations: READ_ONLY,
  async run(input, ctx) {
    const { searchIndex } = await import('../retrieval/index.js');
    const where = parseWhere(input.where);
    const session = ctx.session();
    // Optional dense fusion (src/dense): null unless search.embeddings is configured, and then nothing else changes.
    const dense = await denseFor(session, [input.query], ctx, input.consent, true);
    // a page: the first offset + limit hits, less the first offset (search ranks from the top every time)
    const opts = { limit: input.limit + input.offset, pathPrefix: input.path, tag: input.tag, where, allSections: input.all_sections };
    let read;
    try {
      read = dense ? await dense.searchRead(session, input.query, opts) : session.read((h) => searchIndex(h.db, input.query, opts));
    } finally {
      dense?.close();
    }
    const { result, refresh } = read;
    const hits = result.hits.slice(input.offset).map(({ section_id: _id, text: _text, ...hit }) => hit);
    const extra = dense ? { dense: dense.result(), warnings: dense.warnings } : {};
    return { query: input.query, total: result.total, hits, ...extra, index: { notes: refresh.notes, refreshed: refresh.refreshed, took_ms: refresh.took_ms } };
  },
  text: (r, input) =>
    (r.hits.length === 0
      ? r.total === 0 ? `no matches for ${JSON.stringify(r.query)} (total 0)` : `${r.total} matching notes; none after the first ${input.offset}`
      : [`${r.total} matching note${r.total === 1 ? '' : 's'}${input.offset > 0 ? `, hits ${input.offset + 1}-${input.offset + r.hits.length}` : r.hits.length < r.total ? `, best ${r.hits.length}` : ''}:`, ...r.hits.map((h) => `${h.path}${h.heading_path.length ? ' › ' + h.heading_path.join(' › ') : ''}  lines ${h.lines[0]}-${h.lines[1]}  (${h.score})\n    ${h.snippet}`)].join('\n')) +
    // Dense fusion's warnings (only when configured): consent the person must give, a provider that is down.
    (r.warnings?.length ? '\n' + (r.warnings as string[]).map((w) => `warning: ${w}`).join('\n') : ''),
});

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
  async run(input, ctx) {
    const [{ readNoteSection, windowNote }, { fileIndexFromDb }] = await Promise.all([import('../retrieval/index.js'), import('../index/index.js')]);
    const session = ctx.session();
    const windowed = (read: ReturnType<typeof readNoteSection>) => windowNote(read, { maxChars: input.max_chars, cursor: input.cursor, heading: input.heading });
    try {
      return { ...windowed(readNoteSection(session.root, input.path, input.heading)) };
    } catch (e) {
      if (!(e instanceof VaultgateError && e.code === 'NOT_FOUND')) throw e;
      // Not a path: the name people type, resolved as Obsidian resolves [[name]] from the vault root.
      const { resolveLinkPath } = await import('../links/index.js');
      const name = input.path.replace(/\.md$/i, '');
      const r = session.read((h) => resolveLinkPath(fileIndexFromDb(h.db), name, '')).result;
      if (r.status === 'ambiguous' && r.candidates) {
        throw new VaultgateError('NOTE_AMBIGUOUS', `${JSON.stringify(input.path)} names ${r.candidates.length} notes: ${r.candidates.join(', ')}`, {
          details: { candidates: r.candidates },
          hint: 'Give the path of the one you mean.',
        });
      }
      if (r.status !== 'resolved' || !r.target || !/\.md$/i.test(r.target)) throw e;
      return { ...windowed(readNoteSection(session.root, r.target, input.heading)), resolved_from: input.path };
    }
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

export const contextOp = defineOperation({
  name: 'context',
  command: 'context',
  tool: 'context',
  group: 'read',
  summary: 'Build a cited context packet for a question: best sections, one hop of links, within a budget',
  description:
    '`--format markdown` prints the packet as a document for push mode (a file handed to a local model with tools off), even when piped. ' +
    "`--scenario NAME` searches only the scenario's areas, takes its context defaults (flags given here still win) and puts its AGENT.md first.",
  toolDescription:
    'Evidence for a question: the best sections (limit), then sections one link away (max_linked, linked: true), whole, within budget_chars; ones that did not fit are listed in truncated. ' +
    'Answer from evidence[].text, citing id, path, heading_path, lines. total 0: nothing matches. For a broad question raise limit (8–10) or add query.',
  examples: [
    "vaultgate context 'How many cards do I discard on a 7?'",
    "vaultgate context 'sourdough starter feeding' --format markdown > packet.md",
    "vaultgate context 'deploy steps' --query 'rollback' --budget-chars 6000",
    "vaultgate context 'what did Meadows say about leverage?' --scenario books",
  ],
  params: [
    { name: 'question', type: 'string', positional: 'variadic', description: 'the question, in plain language', toolDescription: 'the question', nonEmpty: true },
    { name: 'query', type: 'strings', placeholder: 'q', description: 'an extra search query whose best sections are also included (repeatable)', toolDescription: 'more search queries' },
    // No `default` on these three: a scenario's defaults apply when the flag is absent, so absence must stay visible.
    { name: 'limit', type: 'int', ...CONTEXT_BOUNDS.limit, placeholder: 'n', description: `most answering sections, all queries together (default ${DEFAULT_CONTEXT_LIMIT}, or the scenario's); linked ones are counted by --max-linked`, toolDescription: `most answering sections (default ${DEFAULT_CONTEXT_LIMIT})` },
    { name: 'budget_chars', type: 'int', ...CONTEXT_BOUNDS.budget_chars, placeholder: 'n', description: `most characters of evidence text (default ${DEFAULT_BUDGET_CHARS}, or the scenario's)`, toolDescription: 'most characters of evidence text' },
    { name: 'max_linked', type: 'int', ...CONTEXT_BOUNDS.max_linked, placeholder: 'n', description: `most sections added by following links one hop (default ${DEFAULT_MAX_LINKED}, or the scenario's)`, toolDescription: `most linked sections (default ${DEFAULT_MAX_LINKED})` },
    { name: 'scenario', type: 'string', placeholder: 'name', description: "a scenario: search only its areas, use its context defaults, put its AGENT.md first", toolDescription: "scenario name: its areas only, its AGENT.md first", nonEmpty: true },
    { name: 'format', type: 'enum', values: ['json', 'markdown'] as const, default: 'json', placeholder: 'format', description: 'json, or markdown (push mode)', toolDescription: 'markdown: one document for a model without tools' },
    DENSE_CONSENT,
  ] as const,
  output: {
    total: 'integer',
    schema: '?string',
    question: '?string',
    evidence: { array: { id: 'string', path: 'string', heading_path: { array: 'string' }, anchor: 'string|null', lines: { array: 'integer' }, sha256: 'string', text: 'string', reason: 'string', score: 'number' }, optional: true },
    truncated: '?array',
    budget: { object: { chars: 'integer', used: 'integer' }, optional: true },
    format: '?string',
    markdown: '?string',
  },
  annotations: READ_ONLY,
  async run(input, ctx) {
    const { buildContext, renderContextMarkdown } = await import('../context/index.js');
    const session = ctx.session();
    let scenario: ScenarioSlot | null = null;
    let defaults: { limit?: number; budget_chars?: number; max_linked?: number } = {};
    if (input.scenario !== undefined) {
      const { loadScenario } = await import('../policy/index.js');
      const s = loadScenario(input.scenario, { root: session.root, env: session.env });
      scenario = { name: s.name, description: s.description, instruction: s.instruction, areas: s.areas };
      defaults = s.context;
    }
    const asks = [input.question, ...(input.query ?? [])].map((q) => q.trim()).filter((q) => q !== '');
    const dense = await denseFor(session, asks, ctx, input.consent);
    let packet;
    try {
      packet = buildContext(
        session.root,
        session.env,
        {
          question: input.question,
          queries: input.query,
          limit: input.limit ?? defaults.limit ?? DEFAULT_CONTEXT_LIMIT,
          budgetChars: input.budget_chars ?? defaults.budget_chars ?? DEFAULT_BUDGET_CHARS,
          maxLinked: input.max_linked ?? defaults.max_linked ?? DEFAULT_MAX_LINKED,
          scenario,
          dense,
        },
        session,
      );
    } finally {
      dense?.close();
    }
    if (input.format === 'markdown') return { format: 'markdown', markdown: renderContextMarkdown(packet), total: packet.total };
    return { ...packet } as Record<string, unknown>;
  },
  text: (r) => {
    if (typeof r.markdown === 'string') return r.markdown;
    const p = r as { scenario: { name: string } | null; dense?: object; warnings: string[]; total: number; evidence: { id: string; path: string; heading_path: string[]; lines: number[]; reason: string; text: string; linked: boolean }[]; truncated?: unknown[] };
    return [
      ...(p.scenario ? [`scenario ${p.scenario.name}: evidence from its areas only; its AGENT.md comes first in --json and --format markdown`] : []),
      contextHeadline(p),
      ...p.evidence.map((e) => `[${e.id}] ${e.path}${e.heading_path.length ? ' › ' + e.heading_path.join(' › ') : ''}  lines ${e.lines.join('-')}  (${e.reason})\n    ${preview(e.text, CONTEXT_PREVIEW_CHARS)}`),
      ...(p.dense ? p.warnings.filter((w) => w.startsWith('dense: ')).map((w) => `warning: ${w}`) : []),
      '(--json for the whole packet with hashes; --format markdown for push mode)',
    ].join('\n');
  },
  document: (r) => (typeof r.markdown === 'string' ? r.markdown : undefined),
});

/** Characters of each evidence text a terminal shows (the JSON has it whole). */
const CONTEXT_PREVIEW_CHARS = 160;

/** "N sections from M notes": what the packet holds, counted truthfully (linked ones said apart). */
export function contextHeadline(p: { total: number; evidence: { path: string; linked?: boolean }[]; truncated?: unknown[] }): string {
  if (p.total === 0) return 'no sections of the vault match (total 0)';
  const n = p.evidence.length;
  const notes = new Set(p.evidence.map((e) => e.path)).size;
  const linked = p.evidence.filter((e) => e.linked).length;
  const left = p.truncated?.length ?? 0;
  return (
    `${n} section${n === 1 ? '' : 's'} from ${notes} note${notes === 1 ? '' : 's'}` +
    (linked ? ` (${n - linked} answering, ${linked} linked)` : '') +
    (left ? `; ${left} more left out by the budget` : '')
  );
}

/** Text on one line, at most `max` characters, cut at a word boundary and marked `…` when cut. */
export function preview(text: string, max: number): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  if (flat.length <= max) return flat;
  const cut = flat.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return (space > max / 2 ? cut.slice(0, space) : cut) + '…';
}

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
  async run(input, ctx) {
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

export const linksOp = defineOperation({
  name: 'links',
  command: 'links',
  tool: 'links',
  group: 'read',
  summary: 'List every link in a note with its resolution; or save the whole vault’s link resolution (--snapshot) to compare later',
  description:
    '`--snapshot FILE` writes every link of every note with what it resolves to now; `vaultgate check --links-baseline FILE` later lists every link whose target changed ' +
    '(after a sync or a bulk edit made outside vaultgate). `--snapshot` alone prints the snapshot. The file must be outside the vault.',
  toolDescription: 'Every link in a note, with its status and target.',
  examples: ['vaultgate links Journal/2026-11-28.md', 'vaultgate links Home.md --json', 'vaultgate links --snapshot ~/links-before-sync.json'],
  params: [
    { ...vaultPath('note', 'vault-relative path of the note'), required: false },
    { name: 'snapshot', type: 'string', cliOnly: true, placeholder: 'file', bareValue: '-', description: 'save every link of the vault with its resolution to FILE (alone: print it)' },
  ] as const,
  output: {
    note: 'string',
    total: 'integer',
    links: { array: { line: 'integer', kind: 'string', raw: 'string', status: 'string', target: 'string|null' } },
    warnings: 'array',
  },
  annotations: READ_ONLY,
  async run(input, ctx) {
    const session = ctx.session();
    if (input.snapshot !== undefined) {
      if (input.note !== undefined) throw new VaultgateError('USAGE', 'give a NOTE or --snapshot, not both', { hint: '`vaultgate links NOTE` lists one note’s links; `vaultgate links --snapshot FILE` saves the whole vault’s.' });
      const { linkSnapshot } = await import('../index/index.js');
      const snap = session.read((h) => linkSnapshot(h.db)).result;
      if (input.snapshot === '-') return { ...snap } as Record<string, unknown>;
      const file = writeOutsideVault(session.root, ctx.cwd, input.snapshot, JSON.stringify(snap) + '\n');
      return { snapshot: { file, taken_at: snap.taken_at, notes: snap.notes, links: snap.links } } as Record<string, unknown>;
    }
    if (input.note === undefined) throw new VaultgateError('USAGE', 'missing NOTE: vault-relative path of the note', { hint: 'Give NOTE, or --snapshot FILE for the whole vault; see `vaultgate links --help`.', details: { param: 'note' } });
    const { noteLinksFromIndex } = await import('../index/index.js');
    const r = session.read((h, fresh) => noteLinksFromIndex(h.db, session.root, input.note!, fresh.warnings)).result;
    return { note: r.note, total: r.links.length, links: r.links, warnings: r.warnings } as Record<string, unknown>;
  },
  text: (r) => {
    if ('schema' in r) return JSON.stringify(r);
    if ('snapshot' in r) {
      const s = r.snapshot as { file: string; notes: number; links: number };
      return `saved ${s.links} links of ${s.notes} notes to ${s.file}`;
    }
    return (r.links as Array<{ line: number; status: string; raw: string; target: string | null }>).map((l) => `${l.line}\t${l.status}\t${l.raw}${l.target ? `\t→ ${l.target}` : ''}`).join('\n');
  },
  // `--snapshot` alone prints the snapshot itself, even when piped: it is the file
  document: (r) => ('schema' in r ? JSON.stringify(r) : undefined),
});

/** Most bytes of a link snapshot read back: 100k notes with ~4 links each take ~40 MB. */
const MAX_SNAPSHOT_BYTES = 512 * 1024 * 1024;

/**
 * Write a file a read command was asked for (a snapshot), atomically (a temporary
 * file renamed into place). Reads never write inside the vault: a path inside
 * it is refused.
 */
function writeOutsideVault(root: string, cwd: string, file: string, text: string): string {
  const abs = path.resolve(cwd, file);
  const real = (p: string) => {
    try {
      return fs.realpathSync(p);
    } catch {
      return path.resolve(p);
    }
  };
  const dir = real(path.dirname(abs));
  const vault = real(root);
  if (dir === vault || dir.startsWith(vault + path.sep)) {
    throw new VaultgateError('INVALID_INPUT', `${file} is inside the vault; a read command never writes there`, {
      details: { file: abs },
      hint: 'Save the snapshot outside the vault (e.g. ~/links-before-sync.json).',
    });
  }
  const tmp = path.join(path.dirname(abs), `.${path.basename(abs)}.${process.pid}.tmp`);
  try {
    fs.writeFileSync(tmp, text, { flag: 'wx' });
    fs.renameSync(tmp, abs);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw new VaultgateError('INVALID_INPUT', `cannot write ${file}: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}`, { details: { file: abs }, hint: 'Give a path in a folder you can write.' });
  }
  return abs;
}

/** A snapshot file, read and checked. */
async function readSnapshotFile(ctx: OpContext, file: string) {
  const { readLinkSnapshot } = await import('../index/index.js');
  const { readFileArg } = await import('./read-bounded.js');
  const abs = path.resolve(ctx.cwd, file);
  // a regular file only, bounded (a FIFO is refused, never waited on: issue 20)
  const bytes = readFileArg(ctx, file, {
    limit: MAX_SNAPSHOT_BYTES,
    what: 'links baseline',
    tooLarge: (limit) => new VaultgateError('INVALID_INPUT', `${file} is over ${limit} bytes`, { details: { file: abs }, hint: 'Give the file `vaultgate links --snapshot FILE` wrote.' }),
  });
  const text = bytes.toString('utf8');
  let doc: unknown;
  try {
    doc = JSON.parse(text);
  } catch (e) {
    throw new VaultgateError('INVALID_INPUT', `${file} is not JSON: ${(e as Error).message}`, { details: { file: abs }, hint: 'Give the file `vaultgate links --snapshot FILE` wrote.' });
  }
  return readLinkSnapshot(doc, file);
}

export const backlinksOp = defineOperation({
  name: 'backlinks',
  command: 'backlinks',
  tool: 'backlinks',
  group: 'read',
  summary: 'List every link in the vault that resolves to a note (or any vault file)',
  toolDescription: 'Every link in the vault to this note or file.',
  examples: ['vaultgate backlinks Wiki/Cooking/Sourdough.md', 'vaultgate backlinks Attachments/board.png --json'],
  params: [vaultPath('note', 'vault-relative path of the note or file')] as const,
  output: {
    note: 'string',
    total: 'integer',
    backlinks: { array: { source: 'string', line: 'integer', kind: 'string', raw: 'string', status: 'string' } },
    ambiguous: 'array',
    warnings: 'array',
  },
  annotations: READ_ONLY,
  async run(input, ctx) {
    const { backlinksFromIndex } = await import('../index/index.js');
    const session = ctx.session();
    const r = session.read((h, fresh) => backlinksFromIndex(h.db, session.root, input.note, fresh.warnings)).result;
    return { note: r.note, total: r.backlinks.length, backlinks: r.backlinks, ambiguous: r.ambiguous, warnings: r.warnings };
  },
  text: (r) =>
    [
      `${r.total} link${r.total === 1 ? '' : 's'} into ${r.note}` + (r.ambiguous.length ? `, ${r.ambiguous.length} ambiguous` : ''),
      ...r.backlinks.map((b) => `  ${b.source}:${b.line}\t${b.raw}${b.subpath?.exists === false ? `\t(broken anchor: no ${b.subpath.kind} ${JSON.stringify(b.subpath.value)})` : ''}`),
      ...r.ambiguous.map((b) => `  ${b.source}:${b.line}\t${b.raw}\t(ambiguous)`),
    ].join('\n'),
});

const CHECK_ITEMS_SHOWN = 10;

export const checkOp = defineOperation({
  name: 'check',
  command: 'check',
  tool: 'check_vault',
  group: 'read',
  summary: 'Vault health: unresolved and ambiguous links, broken anchors, orphans, invalid frontmatter, path collisions',
  toolDescription: 'Vault health: broken or ambiguous links and anchors, orphans, bad frontmatter, path collisions.',
  examples: ['vaultgate check', 'vaultgate check --all', 'vaultgate check --json'],
  params: [
    { name: 'all', type: 'boolean', cliOnly: true, description: `on a terminal, list every problem (default: the first ${CHECK_ITEMS_SHOWN} of each kind)` },
    { name: 'links_baseline', type: 'string', cliOnly: true, placeholder: 'file', description: 'also compare every link with a snapshot saved by `links --snapshot FILE`: each link whose target changed' },
  ] as const,
  output: { counts: 'object', items: 'object', warnings: 'array' },
  annotations: READ_ONLY,
  async run(input, ctx) {
    const { checkFromIndex, compareLinkSnapshot } = await import('../index/index.js');
    const baseline = input.links_baseline === undefined ? null : await readSnapshotFile(ctx, input.links_baseline);
    const { health, compared } = ctx.session().read((h, fresh) => ({ health: checkFromIndex(h.db, fresh.warnings), compared: baseline === null ? null : compareLinkSnapshot(h.db, baseline) })).result;
    return { ...health, ...(compared === null ? {} : { links_baseline: compared }) };
  },
  text: (r, input) => {
    const lines = [Object.entries(r.counts).map(([k, v]) => `${k}: ${v}`).join(', ')];
    if (r.links_baseline) {
      const b = r.links_baseline;
      lines.push(
        '',
        `since the links baseline of ${b.taken_at}: ${b.changed.length} of ${b.compared} links changed target; ${b.notes_gone.length} notes gone, ${b.notes_new} new; ${b.links_gone} links removed, ${b.links_new} added`,
      );
      const shown = input.all ? b.changed : b.changed.slice(0, CHECK_ITEMS_SHOWN);
      for (const c of shown) lines.push(`  ${c.source}:${c.line}  ${c.raw}  ${c.before.target ?? c.before.status} → ${c.after.target ?? c.after.status}`);
      if (shown.length < b.changed.length) lines.push(`  … ${b.changed.length - shown.length} more (--all lists them, --json gives every field)`);
      for (const g of b.notes_gone.slice(0, input.all ? undefined : CHECK_ITEMS_SHOWN)) lines.push(`  gone: ${g.path} (${g.links} links)`);
    }
    for (const [kind, items] of Object.entries(r.items as Record<string, unknown[]>)) {
      if (!Array.isArray(items) || items.length === 0) continue;
      lines.push('', `${kind.replace(/_/g, ' ')} (${items.length}):`);
      const shown = input.all ? items : items.slice(0, CHECK_ITEMS_SHOWN);
      for (const item of shown) lines.push(`  ${describeCheckItem(item)}`);
      if (shown.length < items.length) lines.push(`  … ${items.length - shown.length} more (--all lists them, --json gives every field)`);
    }
    // the last count is `warnings`: listed like the rest (a count that lists nothing leaves the person to guess)
    const warnings = (r.warnings ?? []) as Array<{ code?: string; message?: string; path?: string; paths?: string[] }>;
    if (warnings.length > 0) {
      lines.push('', `warnings (${warnings.length}):`);
      const shown = input.all ? warnings : warnings.slice(0, CHECK_ITEMS_SHOWN);
      for (const w of shown) lines.push(`  ${[w.code, w.path ?? w.paths?.join(' ~ '), w.message].filter(Boolean).join('  ')}`);
      if (shown.length < warnings.length) lines.push(`  … ${warnings.length - shown.length} more (--all lists them, --json gives every field)`);
    }
    return lines.join('\n');
  },
});

/** One line for an item of `check`: where it is and what it says. */
function describeCheckItem(item: unknown): string {
  if (typeof item === 'string') return item;
  const i = item as Record<string, unknown>;
  const file = typeof i.source === 'string' ? i.source : typeof i.path === 'string' ? i.path : '';
  const where = file && typeof i.line === 'number' ? `${file}:${i.line}` : file;
  const what = typeof i.raw === 'string' ? i.raw : typeof i.message === 'string' ? i.message : Array.isArray(i.paths) ? (i.paths as string[]).join(' ~ ') : '';
  const extra = Array.isArray(i.candidates) ? ` → one of ${(i.candidates as string[]).join(', ')}` : typeof i.target === 'string' && i.subpath === undefined ? ` → ${i.target} (not indexed)` : '';
  return [where, what].filter(Boolean).join('  ') + extra || JSON.stringify(item);
}

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
  async run(input, ctx) {
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

function parseWhere(items: string[]): { key: string; value: string }[] {
  return items.map((item) => {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new VaultgateError('USAGE', `--where ${JSON.stringify(item)} is not KEY=VALUE`, { hint: 'Write e.g. --where status=done' });
    return { key: item.slice(0, eq).trim(), value: item.slice(eq + 1).trim() };
  });
}
