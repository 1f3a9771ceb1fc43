import { VaultgateError } from '../errors.js';
import { consentGate } from './consent-gate.js';
import { readNoteByArg } from './note-arg.js';
import { defineOperation, READ_ONLY } from './operation.js';

/** `similar`: candidate notes that look alike (DESIGN §5.3) — never a verdict, never a write. */
export const similarOp = defineOperation({
  name: 'similar',
  command: 'similar',
  tool: 'similar',
  group: 'read',
  summary: 'Notes that look like a note (best-matching sections), one pair’s score, or likely duplicates across the vault',
  description:
    'Scores come from the index’s own statistics by default (BM25 and LSA vectors of sections and links, computed in-process, offline); ' +
    '--provider uses Ollama or an OpenAI-compatible embedding endpoint instead (a provider off this machine needs the person\'s consent: --consent on a terminal, or the web inbox). ' +
    'Already-linked notes are left out unless --include-linked. A score is a candidate for a person to judge, never permission to write.',
  toolDescription:
    'Notes like a note, one pair\'s score (note, to), or duplicate groups (duplicates): candidates for a person to judge, never permission to write.',
  examples: ['vaultgate similar "Ops/Cache lifetime.md"', 'vaultgate similar "Ops/Cache lifetime.md" --to "Dev/Cache lifetime.md"', 'vaultgate similar --duplicates --threshold 0.7'],
  params: [
    { name: 'note', type: 'string', positional: true, required: false, description: 'the note to find similar notes for (not with --duplicates)', toolDescription: 'the note' },
    { name: 'to', type: 'string', placeholder: 'note', description: 'score only this pair: NOTE and OTHER', toolDescription: 'score only note vs this' },
    { name: 'limit', type: 'int', min: 1, max: 1000, default: 10, placeholder: 'n', description: 'most candidates' },
    { name: 'include_linked', type: 'boolean', description: 'also list notes already linked with NOTE (marked in `linked`)', toolDescription: 'also notes already linked (left out by default)' },
    { name: 'min_score', type: 'number', min: -1, max: 1, placeholder: 's', description: 'leave out candidates scoring below this', toolDescription: 'lowest score kept' },
    { name: 'duplicates', type: 'boolean', description: 'likely duplicate groups across the vault', toolDescription: 'duplicate groups, whole vault' },
    { name: 'threshold', type: 'number', min: 0, max: 1, default: 0.6, placeholder: 't', description: 'with --duplicates: the lowest score of a likely duplicate pair (same-name notes: 0.15 lower)', toolDescription: 'with duplicates: lowest pair score' },
    { name: 'provider', type: 'string', default: 'lsa', placeholder: 'name', description: 'lsa (built in, offline), use-lite (built in, offline, English sentence encoder), ollama, or a provider from the machine config', toolDescription: 'lsa, use-lite, ollama, or a configured one' },
    { name: 'model', type: 'string', placeholder: 'name', description: 'embedding model (else the provider’s embed_model)', toolDescription: 'embedding model' },
    { name: 'consent', type: 'boolean', cliOnly: true, description: 'for a provider off this machine: show what would be sent where and ask you on this terminal (never offered to MCP clients)' },
  ] as const,
  // Three shapes (candidates of NOTE, one pair with --to, groups with --duplicates): what each has is optional here.
  output: {
    provider: { object: { name: 'string', model: 'string', dims: 'integer' } },
    vectors: { object: { notes: 'integer', embedded: 'integer', retrained: 'boolean', took_ms: 'number' } },
    note: '?string',
    candidates: { array: { path: 'string', score: 'number', linked: 'string', best_pairs: 'array' }, optional: true },
    other: '?string',
    score: '?number',
    linked: '?string',
    parts: { object: { sparse: 'number|null', dense: 'number', coverage: 'number' }, optional: true },
    best_pairs: '?array',
    threshold: '?number',
    groups: { array: { paths: 'array', pairs: 'array' }, optional: true },
  },
  // Offline by default; an embedding provider is opt-in and behind the consent rule.
  annotations: READ_ONLY,
  run: async function runSimilar(input, ctx) {
    const { similarNotes, pairSimilarity, duplicateGroups } = await import('../wing/similar/index.js');
    const session = ctx.session();
    const sctx = { root: session.root, env: session.env, reader: session, onProgress: ctx.progress };
    const choice = { provider: input.provider, model: input.model, gate: consentGate(ctx, input.consent) };
    if (input.duplicates) {
      if (input.note !== undefined || input.to !== undefined) throw new VaultgateError('USAGE', '--duplicates looks at the whole vault: give no NOTE and no --to', { hint: 'Run `vaultgate similar --duplicates`.' });
      return { ...(await duplicateGroups(sctx, { ...choice, threshold: input.threshold })) };
    }
    if (input.note === undefined) throw new VaultgateError('USAGE', 'missing NOTE', { hint: 'Give a note (`vaultgate similar Notes/a.md`), or --duplicates.', details: { param: 'note' } });
    const { to, note } = input;
    if (to !== undefined) {
      // both are NOTE arguments: each a path or a name
      const pair = await readNoteByArg(session, note, (a) => readNoteByArg(session, to, (b) => pairSimilarity(sctx, a, b, choice)));
      return { ...pair.value.value };
    }
    return { ...(await readNoteByArg(session, note, (n) => similarNotes(sctx, n, { ...choice, limit: input.limit, includeLinked: input.include_linked, minScore: input.min_score }))).value };
  },
  text: (out) => {
    const r = out as Record<string, unknown>;
    if (Array.isArray(r.candidates)) {
      const c = r.candidates as { path: string; score: number; linked: string; best_pairs: { a: { heading_path: string[] }; b: { heading_path: string[] } }[] }[];
      const note = String(r.note);
      return c.length === 0 ? 'no candidates' : c.map((x) => `${x.score.toFixed(3)}  ${x.path}${x.linked !== 'none' ? `  (${linkWords(x.linked, note, x.path)})` : ''}${x.best_pairs[0] ? `\n        ${x.best_pairs[0].a.heading_path.join(' > ') || '(top)'}  ~  ${x.best_pairs[0].b.heading_path.join(' > ') || '(top)'}` : ''}`).join('\n');
    }
    if (Array.isArray(r.groups)) {
      const g = r.groups as { paths: string[]; pairs: { score: number }[] }[];
      return g.length === 0 ? 'no likely duplicates' : g.map((x) => `${x.pairs[0]!.score.toFixed(3)}  ${x.paths.join('  |  ')}`).join('\n');
    }
    return `${Number(r.score).toFixed(3)}  ${String(r.note)} ~ ${String(r.other)}${r.linked && r.linked !== 'none' ? `  (${linkWords(String(r.linked), String(r.note), String(r.other))})` : ''}`;
  },
});

/** Who links whom, in words: "(linked: from)" left the reader to guess which way (issue 21 §4). */
function linkWords(linked: string, a: string, b: string): string {
  if (linked === 'both') return `${a} and ${b} link to each other`;
  return linked === 'to' ? `${a} links to ${b}` : `${b} links to ${a}`;
}
