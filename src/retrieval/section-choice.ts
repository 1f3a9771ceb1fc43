import { idfCoverage, type CoverageTerm } from './coverage.js';
import { type Db, SECTION_BITS } from '../index/index.js';

/**
 * Section choice inside the best notes (issue 9 §1, "section choice"). The
 * ranking finds a note by its best-BM25 section, but in a long note that is often
 * a sibling of the answer (the intro, a definition, a list of links) that repeats
 * one of the question's words, while the answering section holds more of the
 * question's distinct words, the rarer ones included, in its own heading and
 * body. So for the few best notes every section that matches is rescored: its
 * score times its own *coverage* of the query (the idf-weighted share of the
 * query's terms it holds in its heading or body; the note's title and the
 * headings above are the same for every section of a note, so they cannot tell
 * sections apart). The note's rank is not touched: the rescored sections are
 * scaled so the best keeps the note's best score, and the packet (gather.ts)
 * orders them against other notes' sections as before.
 *
 * Cost: one FTS query for the note's matching sections and one per query term
 * (and alternate), each restricted to those few notes.
 */

export interface NoteToRescore {
  fileId: number;
  /** Scores the ranking already gave some of its sections (BM25 plus anchors): kept as their base. */
  known: Map<number, number>;
  /** Added to the BM25 of a section the ranking had not scored (the anchor text into the whole note). */
  extra: number;
}

export interface ChosenSection {
  id: number;
  score: number;
}

/** Coverage below this counts as this: a section reached only by anchor text still competes. */
const COVERAGE_FLOOR = 0.1;

/** How the rescored order is used (the profile's `rank`, ranking-profile.ts). */
export interface ChoiceOptions {
  /** Coverage enters a section's rescored score as coverage^exponent. */
  exponent: number;
  /**
   * > 0: the best-BM25 section stays first and the others follow in rescored
   * order, the first of them at `keepBest` × the best's score (so it comes next
   * in the packet, ahead of weaker notes); 0: the rescored order alone.
   */
  keepBest: number;
  /** Only lift when the rescored best holds more of the question than the best-BM25 section; else keep BM25's order. */
  gate: boolean;
}

/** The query a section choice rescores by, as the ranking already built it. */
export interface ChoiceQuery {
  /** The FTS MATCH expression. */
  match: string;
  /** The section score expression (`-bm25(sections_fts, …)`). */
  scoreSql: string;
  terms: CoverageTerm[];
  /** One weight per term. */
  idf: number[];
}

/** Each note's matching sections, best first, chosen by {@link rescore}. */
export function chooseSections(db: Db, notes: NoteToRescore[], by: ChoiceQuery & { options: ChoiceOptions }): Map<number, ChosenSection[]> {
  const { match, scoreSql, terms, idf, options } = by;
  const out = new Map<number, ChosenSection[]>();
  if (notes.length === 0 || terms.length === 0) return out;
  const batch = JSON.stringify(notes.map((n) => n.fileId));
  const inNotes = `(sections_fts.rowid >> ${SECTION_BITS}) IN (SELECT value FROM json_each(?))`;
  const bm25 = db.prepare(`SELECT sections_fts.rowid, ${scoreSql} FROM sections_fts WHERE sections_fts MATCH ? AND ${inNotes}`).raw().all(match, batch) as [number, number][];
  const holders = db.prepare(`SELECT rowid FROM sections_fts WHERE sections_fts MATCH ? AND ${inNotes}`).pluck();
  // The own heading, the headings above (they differ between a note's sections) and the body; not the title or aliases.
  const covered = idfCoverage(terms, idf, (expr) => holders.all(`{heading path body} : (${expr})`, batch) as number[]);
  for (const n of notes) {
    const base = new Map(n.known);
    for (const [id, s] of bm25) if (Math.floor(id / 2 ** SECTION_BITS) === n.fileId && !base.has(id)) base.set(id, s + n.extra);
    out.set(n.fileId, rescore(base, covered, options));
  }
  return out;
}

const byScore = (a: ChosenSection, b: ChosenSection) => b.score - a.score || a.id - b.id;

/**
 * The pure step. Rescored score: base × max(floor, coverage)^exponent. With
 * `keepBest` 0 the sections come in rescored order, scaled so the best keeps
 * the highest base score (the note's score does not move). Else see
 * {@link ChoiceOptions.keepBest} and {@link ChoiceOptions.gate}.
 */
export function rescore(base: Map<number, number>, coverage: Map<number, number>, options: ChoiceOptions): ChosenSection[] {
  const byBase = [...base].map(([id, score]) => ({ id, score })).sort(byScore);
  if (byBase.length === 0) return [];
  const cover = (id: number) => Math.max(COVERAGE_FLOOR, coverage.get(id) ?? 0);
  const first = byBase[0]!;
  const rest = byBase.slice(options.keepBest > 0 ? 1 : 0).map((s) => ({ id: s.id, score: s.score * cover(s.id) ** options.exponent })).sort(byScore);
  const lead = rest[0];
  if (lead === undefined || lead.score <= 0) return byBase;
  if (options.keepBest === 0) return rest.map((s) => ({ id: s.id, score: (s.score / lead.score) * first.score }));
  if (options.gate && cover(lead.id) <= cover(first.id)) return byBase;
  return [first, ...rest.map((s) => ({ id: s.id, score: (s.score / lead.score) * options.keepBest * first.score }))];
}
