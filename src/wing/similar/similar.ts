import { VaultgateError } from '../../errors.js';
import type { Db, IndexReader } from '../../index/index.js';
import { linkFoldKey, readNoteArg } from '../../links/index.js';
import { modelFor, resolveProvider, type ConsentGate, type ConsentGrant, type PlanSummary } from '../providers/index.js';
import { refreshProviderVectors } from './embed-provider.js';
import { countNoteVectors, loadNoteVectors, loadSectionRefs, scanNoteHeads, type SectionRef } from './load-vectors.js';
import { DEFAULT_LSA_PARAMS } from './lsa.js';
import { refreshLsaVectors, type RefreshOutcome } from './lsa-refresh.js';
import { DEFAULT_WEIGHTS, pairScore, type NoteVectors, type PairScore } from './score.js';
import { ScanScorer } from './scan-score.js';
import { templateNotes } from './templates.js';
import { dot } from './sparse.js';
import { mapForScan, openVectorStore, type VectorDb } from './vector-store.js';
import { nearestRows } from '../linalg/index.js';

type Env = Record<string, string | undefined>;

/**
 * `vaultgate similar`: candidates, never verdicts (DESIGN principle 4). A
 * score says two notes look alike — from their best-matching sections as much
 * as from the whole notes — and nothing more; linking or merging is a plan a
 * person approves.
 */
export interface SimilarContext {
  root: string;
  env: Env;
  reader: IndexReader;
  onProgress?: (p: { phase: string; done: number; total: number }) => void;
}

export interface ProviderChoice {
  /** Provider name: `lsa` (the default, offline) or one from the machine config / `ollama`. */
  provider?: string;
  model?: string;
  /** How the person's consent may be had for a provider off this machine (providers/consent.ts); default: not asked. */
  gate?: ConsentGate;
}

export type Linked = 'none' | 'to' | 'from' | 'both';

export type { SectionRef };

export interface Candidate {
  path: string;
  score: number;
  linked: Linked;
  /** NOTE links to this note (issue 21: the direction in words, beside `linked`). */
  links_to: boolean;
  /** This note links to NOTE. */
  linked_from: boolean;
  best_pairs: { a: SectionRef; b: SectionRef; score: number }[];
}

export interface VectorsInfo {
  provider: { name: string; model: string; dims: number };
  vectors: { notes: number; embedded: number; retrained: boolean; took_ms: number };
  /** What was sent to a provider (providers only, when something was). */
  sent?: PlanSummary | null;
  consent?: ConsentGrant | null;
}

const round = (x: number) => Math.round(x * 10_000) / 10_000;

/** The vectors brought up to date, and where to read them. */
interface Vectors<F> {
  store: VectorDb;
  provider: string;
  model: string;
  info: VectorsInfo;
  /** What the command read from the index (withVectors's `fromIndex`). */
  facts: F;
}

/**
 * Bring the vectors up to date (incrementally), then `use` them (the store is
 * open meanwhile). `fromIndex` reads what the command needs of the index
 * (links, template notes): for LSA in the same read as the refresh, so a
 * one-shot process walks the vault and opens the index once, not twice
 * (~50 ms of a warm `similar NOTE` at 10k notes); for a provider, in a read
 * of its own after the vectors' refresh.
 */
async function withVectors<T, F>(ctx: SimilarContext, choice: ProviderChoice, fromIndex: (db: Db, store: VectorDb) => F, use: (v: Vectors<F>) => T): Promise<T> {
  const store = openVectorStore(ctx.root, ctx.env);
  try {
    const name = choice.provider ?? 'lsa';
    let outcome: RefreshOutcome & { storedModel?: string; sent?: PlanSummary | null; consent?: ConsentGrant | null };
    let facts: F;
    if (name === 'lsa') {
      if (choice.model !== undefined) throw new VaultgateError('USAGE', '--model applies to embedding providers, not to the built-in lsa', { hint: 'Drop --model, or pass --provider NAME.' });
      ({ outcome, facts } = ctx.reader.read((h) => {
        const refreshed = refreshLsaVectors(h.db, store, { params: DEFAULT_LSA_PARAMS, onProgress: ctx.onProgress });
        return { outcome: refreshed, facts: fromIndex(h.db, store) };
      }).result);
    } else {
      const spec = resolveProvider(ctx.env, name);
      outcome = await refreshProviderVectors(ctx.reader, store, ctx.env, ctx.root, spec, modelFor(spec, 'embed', choice.model), { gate: choice.gate ?? { face: 'cli' }, onProgress: ctx.onProgress });
      facts = ctx.reader.read((h) => fromIndex(h.db, store)).result;
    }
    const model = outcome.storedModel ?? outcome.model;
    if (!outcome.retrained) mapForScan(store);
    const info: VectorsInfo = {
      provider: { name: outcome.provider, model: outcome.model, dims: outcome.dims },
      vectors: { notes: countNoteVectors(store, outcome.provider, model), embedded: outcome.embedded, retrained: outcome.retrained, took_ms: outcome.took_ms },
      ...(outcome.sent !== undefined ? { sent: outcome.sent, consent: outcome.consent ?? null } : {}),
    };
    return use({ store, provider: outcome.provider, model, info, facts });
  } finally {
    store.close();
  }
}

function noteArg(ctx: SimilarContext, input: string): string {
  return readNoteArg(ctx.root, input).path;
}

function vectorsOf(notes: Map<string, NoteVectors>, path: string): NoteVectors {
  const v = notes.get(path);
  if (!v) {
    throw new VaultgateError('INVALID_INPUT', `${path} has no vectors (it is excluded from the index, or its embedding has not finished)`, {
      path,
      hint: 'Check `index.exclude` in .vaultgate/config.yaml; with a provider, run the command again to embed what is left.',
    });
  }
  return v;
}

/** Resolved links between notes, as `source\u0000target`. */
function linkPairs(db: Db, paths?: readonly string[]): Set<string> {
  const sql = `SELECT DISTINCT f.path AS source, l.target AS target FROM links l JOIN files f ON f.id = l.file_id WHERE l.target IS NOT NULL AND l.target != f.path`;
  // For a few notes: their links out, then their links in (each by its index), not a pass over every link.
  const rows = (
    paths
      ? db.prepare(`${sql} AND f.path IN (SELECT value FROM json_each(?)) UNION ${sql} AND l.target IN (SELECT value FROM json_each(?))`).all(JSON.stringify(paths), JSON.stringify(paths))
      : db.prepare(sql).all()
  ) as { source: string; target: string }[];
  return new Set(rows.map((r) => `${r.source}\u0000${r.target}`));
}

function linkedOf(links: Set<string>, a: string, b: string): Linked {
  const to = links.has(`${a}\u0000${b}`);
  const from = links.has(`${b}\u0000${a}`);
  return to && from ? 'both' : to ? 'to' : from ? 'from' : 'none';
}

/** `linked` as two plain facts: A links to B, B links to A (A the note asked about, or a pair's `a`). */
export function linkDirection(linked: Linked): { links_to: boolean; linked_from: boolean } {
  return { links_to: linked === 'to' || linked === 'both', linked_from: linked === 'from' || linked === 'both' };
}

/** A scored pair as shown: `a`'s and `b`'s sections by heading path and lines. */
function candidate(a: readonly SectionRef[], b: { path: string; sections: readonly SectionRef[] }, s: PairScore, linked: Linked): Candidate {
  return {
    path: b.path,
    score: round(s.score),
    linked,
    ...linkDirection(linked),
    best_pairs: s.best_pairs.map((p) => ({
      a: { heading_path: a[p.a]!.heading_path, lines: a[p.a]!.lines },
      b: { heading_path: b.sections[p.b]!.heading_path, lines: b.sections[p.b]!.lines },
      score: round(p.score),
    })),
  };
}

export interface SimilarResult extends VectorsInfo {
  note: string;
  candidates: Candidate[];
}

/** `similar NOTE`: the notes most like NOTE, best first; already-linked notes left out unless asked for, templates never offered (templates.ts). */
export async function similarNotes(ctx: SimilarContext, note: string, opts: ProviderChoice & { limit?: number; includeLinked?: boolean; minScore?: number }): Promise<SimilarResult> {
  const path = noteArg(ctx, note);
  const fromIndex = (db: Db, store: VectorDb) => ({ links: linkPairs(db, [path]), templates: templateNotes(db, ctx.root, store) });
  return withVectors(ctx, opts, fromIndex, ({ store, provider, model, info, facts: { links, templates } }) => {
    const me = vectorsOf(loadNoteVectors(store, provider, model, [path]), path);
    // Every note is scored, one row at a time, by its score alone; only the ones shown are
    // scored in full (their best section pairs) and get their sections' headings read. A
    // note whose note-level parts cannot lift it into the best `limit` so far (rounded, as
    // they are ranked) is left there, its sections never read: it could not be shown.
    const limit = opts.limit ?? 10;
    const scorer = new ScanScorer(me, DEFAULT_WEIGHTS);
    const best: number[] = [];
    const scored: { path: string; score: number; linked: Linked }[] = [];
    // In the table's order (scanNoteHeads): what is shown does not depend on it, the bar only
    // ever rises, and a note left out could not have reached the final best `limit`.
    scanNoteHeads(store, provider, model, (other, readSections) => {
      if (other.path === path || templates.has(other.path)) return;
      const linked = linkedOf(links, path, other.path);
      if (linked !== 'none' && !opts.includeLinked) return;
      const bar = limit > 0 && best.length === limit ? best[limit - 1]! - 0.0001 : -Infinity;
      const score = scorer.scoreAbove(other, bar, readSections);
      if (score === null || score < (opts.minScore ?? -Infinity)) return;
      const rounded = round(score);
      scored.push({ path: other.path, score: rounded, linked });
      if (limit > 0 && (best.length < limit || rounded > best[limit - 1]!)) {
        let at = Math.min(best.length, limit - 1);
        while (at > 0 && best[at - 1]! < rounded) at--;
        best.splice(at, 0, rounded);
        if (best.length > limit) best.pop();
      }
    });
    scored.sort((x, y) => y.score - x.score || (x.path < y.path ? -1 : 1));
    const top = scored.slice(0, limit);
    const others = loadNoteVectors(store, provider, model, top.map((c) => c.path));
    const shown = top.map((c) => ({ ...c, s: pairScore(me, others.get(c.path)!, DEFAULT_WEIGHTS) }));
    const refs = loadSectionRefs(store, provider, model, [path, ...shown.map((c) => c.path)]);
    const candidates = shown.map((c) => candidate(refs.get(path)!, { path: c.path, sections: refs.get(c.path)! }, c.s, c.linked));
    return { note: path, ...info, candidates };
  });
}

export interface PairResult extends VectorsInfo {
  note: string;
  other: string;
  score: number;
  linked: Linked;
  links_to: boolean;
  linked_from: boolean;
  parts: { sparse: number | null; dense: number; coverage: number };
  best_pairs: Candidate['best_pairs'];
}

/** `similar NOTE --to OTHER`: one pair's score, its parts and its best section pairs. */
export async function pairSimilarity(ctx: SimilarContext, note: string, other: string, opts: ProviderChoice = {}): Promise<PairResult> {
  const a = noteArg(ctx, note);
  const b = noteArg(ctx, other);
  if (a === b) throw new VaultgateError('USAGE', `NOTE and --to are the same note (${a})`, { hint: 'Compare two different notes.' });
  return withVectors(ctx, opts, (db) => linkPairs(db, [a]), ({ store, provider, model, info, facts: links }) => {
    const notes = loadNoteVectors(store, provider, model, [a, b]);
    const va = vectorsOf(notes, a);
    const vb = vectorsOf(notes, b);
    const s = pairScore(va, vb, DEFAULT_WEIGHTS, 5);
    const refs = loadSectionRefs(store, provider, model, [a, b]);
    const c = candidate(refs.get(a)!, { path: b, sections: refs.get(b)! }, s, linkedOf(links, a, b));
    const parts = { sparse: s.parts.sparse === null ? null : round(s.parts.sparse), dense: round(s.parts.dense), coverage: round(s.parts.coverage) };
    return { note: a, other: b, ...info, score: c.score, linked: c.linked, links_to: c.links_to, linked_from: c.linked_from, parts, best_pairs: c.best_pairs };
  });
}

export interface DuplicatePair {
  a: string;
  b: string;
  score: number;
  same_name: boolean;
  linked: Linked;
  /** `a` links to `b`. */
  links_to: boolean;
  /** `b` links to `a`. */
  linked_from: boolean;
  best_pairs: Candidate['best_pairs'];
}

export interface DuplicatesResult extends VectorsInfo {
  threshold: number;
  groups: { paths: string[]; pairs: DuplicatePair[] }[];
}

/** How much lower the bar is for two notes with the same file name (the name is evidence too). */
export const SAME_NAME_MARGIN = 0.15;
/** In the duplicate scan, each note's this many nearest notes (by the leading dimensions) are scored in full. */
export const NEIGHBOURS = 5;
/** A candidate whose note-level dense cosine is this far below its bar is not scored in full. */
export const DENSE_MARGIN = 0.25;
/** Leading dimensions of the note vectors the duplicate scan ranks neighbours by. */
const HEAD_DIMS = 32;

/**
 * `similar --duplicates`: groups of likely duplicates across the vault —
 * pairs scoring at least `threshold` (same-name notes in different folders at
 * `threshold − SAME_NAME_MARGIN`), joined into groups when they share a note.
 * Every note is compared with every other by the leading dimensions of the
 * note vectors; each note's {@link NEIGHBOURS} nearest, and every same-name
 * pair, are scored in full. A true duplicate is among a note's nearest by
 * far; a pair that is not is not reported.
 */
export async function duplicateGroups(ctx: SimilarContext, opts: ProviderChoice & { threshold: number }): Promise<DuplicatesResult> {
  const fromIndex = (db: Db, store: VectorDb) => ({ links: linkPairs(db), templates: templateNotes(db, ctx.root, store) });
  return withVectors(ctx, opts, fromIndex, (v) => duplicatesOf(v, opts.threshold));
}

function duplicatesOf({ store, provider, model, info, facts: { links, templates } }: Vectors<{ links: Set<string>; templates: Set<string> }>, threshold: number): DuplicatesResult {
  const notes = loadNoteVectors(store, provider, model);
  const list = [...notes.values()].filter((n) => !templates.has(n.path)).sort((x, y) => (x.path < y.path ? -1 : 1));
  const name = (p: string) => linkFoldKey(p.slice(p.lastIndexOf('/') + 1));
  const floor = threshold - SAME_NAME_MARGIN;
  // Candidates: each note's NEIGHBOURS nearest notes by the leading dimensions of the note
  // vectors (one pass over the N²/2 pairs, a few dozen multiplications each), and every
  // pair of same-name notes; only those are scored in full.
  const head = Math.min(HEAD_DIMS, info.provider.dims);
  const n = list.length;
  const packed = new Float32Array(n * head);
  list.forEach((x, i) => packed.set(x.dense.subarray(0, head), i * head));
  const { index: topIdx } = nearestRows(packed, n, head, NEIGHBOURS);
  const names = list.map((x) => name(x.path));
  const byName = new Map<string, number[]>();
  names.forEach((nm, i) => (byName.get(nm) ?? byName.set(nm, []).get(nm)!).push(i));
  const candidates = new Set<number>();
  const key = (i: number, j: number) => (i < j ? i * n + j : j * n + i);
  for (let i = 0; i < n; i++) for (let k = 0; k < NEIGHBOURS; k++) if (topIdx[i * NEIGHBOURS + k]! >= 0) candidates.add(key(i, topIdx[i * NEIGHBOURS + k]!));
  for (const group of byName.values()) for (let x = 0; x < group.length; x++) for (let y = x + 1; y < group.length; y++) candidates.add(key(group[x]!, group[y]!));
  const found: { a: NoteVectors; b: NoteVectors; s: PairScore; sameName: boolean }[] = [];
  for (const c of [...candidates].sort((x, y) => x - y)) {
    const i = Math.floor(c / n);
    const j = c % n;
    const a = list[i]!;
    const b = list[j]!;
    const sameName = names[i] === names[j];
    const bar = sameName ? floor : threshold;
    // On the labelled pairs no score came within DENSE_MARGIN above its note-level dense cosine.
    if (dot(a.dense, b.dense) < bar - DENSE_MARGIN) continue;
    const s = pairScore(a, b, DEFAULT_WEIGHTS);
    if (s.score < bar) continue;
    found.push({ a, b, s, sameName });
  }
  const refs = loadSectionRefs(store, provider, model, found.flatMap((f) => [f.a.path, f.b.path]));
  const pairs: DuplicatePair[] = found.map(({ a, b, s, sameName }) => {
    const cand = candidate(refs.get(a.path)!, { path: b.path, sections: refs.get(b.path)! }, s, linkedOf(links, a.path, b.path));
    return { a: a.path, b: b.path, score: cand.score, same_name: sameName, linked: cand.linked, links_to: cand.links_to, linked_from: cand.linked_from, best_pairs: cand.best_pairs };
  });
  // Union–find over the pairs: a group is a connected set of likely duplicates.
  const parent = new Map<string, string>();
  const find = (x: string): string => {
    let r = x;
    while (parent.get(r) !== r) r = parent.get(r)!;
    parent.set(x, r);
    return r;
  };
  for (const p of pairs) {
    for (const x of [p.a, p.b]) if (!parent.has(x)) parent.set(x, x);
    parent.set(find(p.a), find(p.b));
  }
  const groups = new Map<string, { paths: Set<string>; pairs: DuplicatePair[] }>();
  for (const p of pairs) {
    const g = groups.get(find(p.a)) ?? groups.set(find(p.a), { paths: new Set(), pairs: [] }).get(find(p.a))!;
    g.paths.add(p.a).add(p.b);
    g.pairs.push(p);
  }
  const out = [...groups.values()]
    .map((g) => ({ paths: [...g.paths].sort(), pairs: g.pairs.sort((x, y) => y.score - x.score) }))
    .sort((x, y) => y.pairs[0]!.score - x.pairs[0]!.score || (x.paths[0]! < y.paths[0]! ? -1 : 1));
  return { ...info, threshold, groups: out };
}
