import { VaultgateError, isVaultgateError } from '../errors.js';
import { oneShotReader, type IndexReader } from '../index/index.js';
import { readVaultBytes, sha256Hex } from '../vault/index.js';
import { fitBudget, interleave, type Candidate } from './fit-budget.js';
import { linkedCandidates, queryCandidates } from './gather.js';
import { notesInAreas } from './scope.js';
import {
  CONTEXT_SCHEMA,
  DEFAULT_BUDGET_CHARS,
  DEFAULT_CONTEXT_LIMIT,
  DEFAULT_MAX_LINKED,
  MAX_CONTEXT_ATTEMPTS,
  type ContextOptions,
  type ContextPacket,
  type EvidenceItem,
  type TruncatedItem,
} from './types.js';

type Env = Record<string, string | undefined>;

/** Linked candidates built beyond --max-linked, for the budget to choose from. */
const LINKED_SPARE = 5;

interface Selection {
  evidence: Candidate[];
  truncated: Candidate[];
  used: number;
  warnings: string[];
}

/**
 * Build a context packet: refresh the index, select evidence (queries, then one hop
 * of links, within the budget), then re-read every selected file and compare its
 * hash with the index. A note that changed in between makes the whole selection
 * suspect (its sections may have moved), so the round is redone on a refreshed
 * index, at most {@link MAX_CONTEXT_ATTEMPTS} times; then CONTEXT_UNSTABLE.
 * `reader` is how the index is reached: a long-lived session keeps it open.
 */
export function buildContext(root: string, env: Env, opts: ContextOptions, reader: IndexReader = oneShotReader(root, env)): ContextPacket {
  const question = opts.question.trim();
  const queries = (opts.queries ?? []).map((q) => q.trim()).filter((q) => q !== '');
  if (question === '' && queries.length === 0) {
    throw new VaultgateError('USAGE', 'the question is empty', { hint: 'Ask a question in plain words, e.g. `vaultgate context "how do I deploy?"`.' });
  }
  let changed: string[] = [];
  for (let attempt = 1; attempt <= MAX_CONTEXT_ATTEMPTS; attempt++) {
    // A retry names what changed: a watched session re-stats it even before its watcher's events arrive.
    const { result: selection, refresh } = reader.read((h) => select(h.db, question, queries, opts), changed.length ? { changedPaths: changed } : undefined);
    opts.beforeVerify?.(attempt);
    changed = staleFiles(root, selection.evidence);
    if (changed.length === 0) {
      const index = { notes: refresh.notes, refreshed: refresh.refreshed, took_ms: refresh.took_ms };
      return packet({ question, queries, opts, selection, index, attempts: attempt });
    }
  }
  throw new VaultgateError('CONTEXT_UNSTABLE', `notes kept changing while the context was built: ${changed.slice(0, 5).join(', ')}`, {
    details: { changed, attempts: MAX_CONTEXT_ATTEMPTS },
    hint: 'Something (a sync client, an editor) is writing these notes right now; retry when it has finished.',
  });
}

function select(db: Parameters<typeof linkedCandidates>[0], question: string, queries: string[], opts: ContextOptions): Selection {
  const limit = opts.limit ?? DEFAULT_CONTEXT_LIMIT;
  const budget = opts.budgetChars ?? DEFAULT_BUDGET_CHARS;
  const maxLinked = opts.maxLinked ?? DEFAULT_MAX_LINKED;
  const scope = opts.scenario ? notesInAreas(db, opts.scenario.areas) : undefined;
  const warnings: string[] = [];
  const lists: Candidate[][] = [];
  const asks = [...(question ? [{ q: question, label: 'the question' }] : []), ...queries.map((q) => ({ q, label: `query ${JSON.stringify(q)}` }))];
  opts.dense?.begin();
  for (const { q, label } of asks) {
    // Dense fusion ranks with the default profile (as it always has): the profile goes to the lexical path only.
    const ask = { query: q, label, limit, scope };
    const { candidates, searchable } = opts.dense ? opts.dense.contextCandidates(db, ask) : queryCandidates(db, { ...ask, profile: opts.profile });
    if (!searchable) warnings.push(`${label} has no searchable words`);
    lists.push(candidates);
  }
  // `limit` counts answering sections (issue 21 §3): the best of every query first, interleaved by rank.
  const primary = fitBudget(interleave(lists).slice(0, limit), budget);
  const taken = new Set([...primary.taken, ...primary.left].map((c) => c.sectionId));
  // A few spare linked candidates: one that does not fit the budget makes room for the next.
  const linkedPool = maxLinked > 0 ? linkedCandidates(db, primary.taken, { question: question || queries.join(' '), exclude: taken, scope, want: maxLinked + LINKED_SPARE, profile: opts.profile }) : [];
  const linked = maxLinked > 0 ? fitBudget(linkedPool, budget - primary.used, maxLinked) : null;
  return {
    evidence: [...primary.taken, ...(linked?.taken ?? []).map((c) => ({ ...c, linked: true }))],
    truncated: [...primary.left, ...(linked?.left ?? []).map((c) => ({ ...c, linked: true }))],
    used: primary.used + (linked?.used ?? 0),
    warnings,
  };
}

/** Paths whose bytes on disk no longer hash to what the index holds (or that vanished). */
function staleFiles(root: string, items: Candidate[]): string[] {
  const expected = new Map<string, string>();
  for (const c of items) expected.set(c.path, c.sha256);
  const out: string[] = [];
  for (const [path, sha] of expected) {
    try {
      if (sha256Hex(readVaultBytes(root, path).bytes) !== sha) out.push(path);
    } catch (e) {
      if (!isVaultgateError(e)) throw e;
      out.push(path);
    }
  }
  return out;
}

/** What a packet is made of: the ask, the verified selection, and the index and attempts it took. */
interface PacketParts {
  question: string;
  queries: string[];
  opts: ContextOptions;
  selection: Selection;
  index: ContextPacket['index'];
  attempts: number;
}

function packet(parts: PacketParts): ContextPacket {
  const { question, queries, opts, selection: s, index, attempts } = parts;
  const evidence: EvidenceItem[] = s.evidence.map((c, i) => ({
    id: `e${i + 1}`,
    path: c.path,
    heading_path: c.heading_path,
    anchor: c.anchor,
    lines: c.lines,
    part: c.part,
    sha256: c.sha256,
    text: c.text,
    reason: c.reason,
    score: c.score,
    linked: c.linked === true,
  }));
  const truncated: TruncatedItem[] = s.truncated.map((c) => ({
    path: c.path,
    heading_path: c.heading_path,
    anchor: c.anchor,
    lines: c.lines,
    part: c.part,
    chars: c.text.length,
    reason: c.reason,
    score: c.score,
    linked: c.linked === true,
    truncated: true,
  }));
  return {
    schema: CONTEXT_SCHEMA,
    // the scenario's instruction comes before anything else the agent reads
    scenario: opts.scenario ?? null,
    question,
    queries,
    total: evidence.length + truncated.length,
    evidence,
    truncated,
    budget: { chars: opts.budgetChars ?? DEFAULT_BUDGET_CHARS, used: s.used },
    warnings: opts.dense ? [...s.warnings, ...opts.dense.warnings] : s.warnings,
    index,
    attempts,
    ...(opts.dense ? { dense: opts.dense.result() } : {}),
  };
}
