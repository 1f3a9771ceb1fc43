/**
 * The context packet: what an agent answers from (DESIGN §4). Every item cites a
 * file by path, lines and the SHA-256 of the bytes it was cut from.
 */
import type { Db } from '../index/index.js';
import type { LocatedSection, RankingProfile } from '../retrieval/index.js';
import type { Candidate } from './fit-budget.js';

/** Bumped on any incompatible change to the packet's fields. */
export const CONTEXT_SCHEMA = 'vaultgate.context.v1';

export const DEFAULT_CONTEXT_LIMIT = 5;
export const DEFAULT_BUDGET_CHARS = 12_000;
export const DEFAULT_MAX_LINKED = 3;
/** Re-read + hash checks before giving up with CONTEXT_UNSTABLE (DESIGN §4: at most 3). */
export const MAX_CONTEXT_ATTEMPTS = 3;

/** Bounds of the context knobs, shared by the `context` operation's params and a scenario's `context` defaults. */
export const CONTEXT_BOUNDS = {
  limit: { min: 1, max: 200 },
  budget_chars: { min: 1, max: 10_000_000 },
  max_linked: { min: 0, max: 200 },
} as const;

/**
 * The scenario a packet was built for (src/policy): its instruction (the
 * scenario's AGENT.md), which comes first in the packet, and the areas evidence
 * may come from (vault-path globs, src/vault/path-glob.ts).
 */
export interface ScenarioSlot {
  name: string;
  description: string;
  /** Plain-text instruction shown before the evidence (never mixed into it). */
  instruction: string;
  /** Vault-path globs: only notes matching one of them are evidence (search and linked sections). */
  areas: string[];
}

/** A located section (path, heading path, anchor, lines, part, file hash) with its text, id and reason. */
export interface EvidenceItem extends Omit<LocatedSection, 'section_id'> {
  /** `e1`, `e2`, … in packet order; cite these. */
  id: string;
  /** The section's source text, whole (never cut); its file's hash was checked against the disk just before the packet was returned. */
  text: string;
  /** Why the section is here, e.g. `best match for the question (#1)` or `linked from a.md#X via [[b#Y]]`. */
  reason: string;
  /** BM25 score of the section for the query that found it (higher is better); 0 when included only by a link. */
  score: number;
  /** Reached by one hop of links from an answering section (bounded by `max_linked`), not found by a query (bounded by `limit`). */
  linked: boolean;
}

/** A section that was selected but did not fit the budget whole: left out, never cut. */
export interface TruncatedItem {
  path: string;
  heading_path: string[];
  anchor: string | null;
  lines: [number, number];
  part: [number, number] | null;
  /** Length of its text in characters (UTF-16 units). */
  chars: number;
  reason: string;
  score: number;
  linked: boolean;
  truncated: true;
}

export interface ContextPacket {
  schema: typeof CONTEXT_SCHEMA;
  question: string;
  queries: string[];
  /** The scenario given with `--scenario`; null otherwise. */
  scenario: ScenarioSlot | null;
  /**
   * Sections of the vault selected for the question and queries, returned or
   * left out for the budget. 0 means the vault has nothing matching — never that
   * the budget was too small.
   */
  total: number;
  evidence: EvidenceItem[];
  truncated: TruncatedItem[];
  budget: { chars: number; used: number };
  /** Why nothing could be searched, e.g. a question made only of stop words. */
  warnings: string[];
  index: { notes: number; refreshed: boolean; took_ms: number };
  /** How many select + re-read rounds it took (1 unless notes changed meanwhile). */
  attempts: number;
  /** What dense fusion did; present only when `search.embeddings` is configured (docs/json.md). */
  dense?: object;
}

/** One query's ask for candidate sections ({@link queryCandidates} and {@link DenseHook.contextCandidates}). */
export interface CandidateQuery {
  query: string;
  /** How the reasons name the query ("the question", "query \"…\""). */
  label: string;
  /** How many notes' sections. */
  limit: number;
  /** The only notes that may be evidence (a scenario's areas, as exact paths); undefined = the whole vault. */
  scope: string[] | undefined;
  profile?: RankingProfile;
}

/**
 * What context needs of dense fusion (implemented by src/wing/dense, which sits
 * above context and imports it): a fused replacement for one query's
 * candidates, its warnings, and its report for the packet.
 */
export interface DenseHook {
  /** A selection round starts (a retry recounts). */
  begin(): void;
  contextCandidates(db: Db, ask: CandidateQuery): { candidates: Candidate[]; searchable: boolean };
  readonly warnings: string[];
  result(): object;
}

export interface ContextOptions {
  question: string;
  queries?: string[];
  /** Most answering sections (all queries together, interleaved by rank); linked sections are counted by `maxLinked`. */
  limit?: number;
  budgetChars?: number;
  maxLinked?: number;
  scenario?: ScenarioSlot | null;
  /** Dense fusion (src/wing/dense's DenseRun), when `search.embeddings` is configured: ranks each query's candidates; its report joins the packet. */
  dense?: DenseHook | null;
  /** The ranking's parameters; default DEFAULT_RANKING_PROFILE (the eval passes its variants). */
  profile?: RankingProfile;
  /** @internal Test seam: runs after selection, before the re-read check (attempt is 1-based). */
  beforeVerify?: (attempt: number) => void;
}
