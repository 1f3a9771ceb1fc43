import { VaultgateError } from '../errors.js';
import { CONTEXT_BOUNDS, DEFAULT_BUDGET_CHARS, DEFAULT_CONTEXT_LIMIT, DEFAULT_MAX_LINKED, type ScenarioSlot } from '../context/types.js';
import { consentGate } from './consent-gate.js';
import { oneLine } from './one-line.js';
import { defineOperation, READ_ONLY, type OpContext } from './operation.js';

/**
 * The search-side reads: `index` (bring the index up to date), `search` and
 * `context` (a cited packet for a task). Each refreshes the index first (through
 * the session) and never writes inside the vault. Core modules are imported on
 * first use so `--help` stays fast.
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
 * the query goes to a dense-fusion provider off this machine (src/wing/dense). CLI
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
 * The dense side of a search or context (src/wing/dense), or null when the machine
 * config has no `search.embeddings` — checked on the config's text first, so an
 * unconfigured search loads nothing more than it did.
 */
async function denseFor(session: { root: string; env: Record<string, string | undefined> }, texts: string[], ctx: OpContext, consent: boolean | undefined, overlap = false) {
  const { denseMaybeConfigured } = await import('../wing/dense/configured.js');
  if (!denseMaybeConfigured(session.env)) return null;
  // overlap: the query's vector is awaited by the run itself (search ranks lexically meanwhile).
  const { prepareDense, startDense } = await import('../wing/dense/index.js');
  return (overlap ? startDense : prepareDense)(session.root, session.env, texts, consentGate(ctx, consent));
}


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
  run: function runIndex(input, ctx) {
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
  run: async function runSearch(input, ctx) {
    const { searchIndex } = await import('../retrieval/index.js');
    const where = parseWhere(input.where);
    const session = ctx.session();
    // Optional dense fusion (src/wing/dense): null unless search.embeddings is configured, and then nothing else changes.
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
  run: async function runContext(input, ctx) {
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
      ...p.evidence.map((e) => `[${e.id}] ${e.path}${e.heading_path.length ? ' › ' + e.heading_path.join(' › ') : ''}  lines ${e.lines.join('-')}  (${e.reason})\n    ${oneLine(e.text, CONTEXT_PREVIEW_CHARS)}`),
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

function parseWhere(items: string[]): { key: string; value: string }[] {
  return items.map((item) => {
    const eq = item.indexOf('=');
    if (eq <= 0) throw new VaultgateError('USAGE', `--where ${JSON.stringify(item)} is not KEY=VALUE`, { hint: 'Write e.g. --where status=done' });
    return { key: item.slice(0, eq).trim(), value: item.slice(eq + 1).trim() };
  });
}
