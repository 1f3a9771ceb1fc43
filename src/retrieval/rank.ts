import { type Db, mergeTop, NOTE_SLOT, runShardedGroups, SECTION_BITS, sectionRange, type Shard, shardCondition, type ShardQuery, storedMeta, sumOf, termRowMemo } from '../index/index.js';
import { idfCoverage, type CoverageTerm } from './coverage.js';
import { chooseSections } from './section-choice.js';

/**
 * Ranking over a bounded candidate set (issue 9 §2). The cost of a query in
 * JavaScript must not grow with the number of sections that match it, so:
 *
 * 1. FTS5 scores every match in C and hands over only the best
 *    {@link RankParams.candidates} sections (`ORDER BY bm25 LIMIT k`), and the
 *    best {@link RankParams.anchorCandidates} rows of anchor text;
 * 2. a note's raw score is its best section's score: BM25 of the section, plus
 *    the anchor text into that section, plus the anchor text into the whole note
 *    (anchors.ts), each weighted;
 * 3. the note's score is the raw score times its *coverage* of the query: the
 *    share of the query's words (each weighted by its idf) that some section or
 *    anchor row of the note holds. A plain question is an OR of its words, so a
 *    note can win on one rare word repeated in one section while the note about
 *    the question holds most of its words across its sections. It is computed
 *    for every candidate note at once: one FTS query per word and table, whose
 *    doclist is walked in C and which hands back only candidate note ids;
 * 4. `total` is counted in SQL from FTS rowids, with no row handed to
 *    JavaScript: from notes_fts (one row per note, no positions) for a plain
 *    question, else from section rowids (a section id holds its note id,
 *    schema.ts). Coverage reads notes_fts the same way;
 * 5. inside the best {@link RankParams.chooseNotes} notes, every matching section
 *    competes again by its own coverage of the query (section-choice.ts), so the
 *    answering section follows the note's best-BM25 sibling in a context packet.
 *
 * The same walk serves the bigram fallback (query.ts) over `bigrams_fts`.
 * Steps 1, 3 and 4 go through read-pool.ts's runSharded: in a long-lived
 * session over a big index, split by rowid range across reader threads.
 */

/** The ranking's parameters; the tuned values are DEFAULT_RANKING_PROFILE.rank (ranking-profile.ts). */
export interface RankParams {
  /** Best sections (by BM25) taken from FTS5 as candidates, at least (20 per note asked for beyond that). */
  readonly candidates: number;
  /** Best anchor rows taken as candidates. */
  readonly anchorCandidates: number;
  /** Weight of the anchor text into a section, added to its BM25. */
  readonly anchorWeight: number;
  /** Weight of the anchor text into the whole note (and its description), added to each of its sections. */
  readonly noteAnchorWeight: number;
  /** Coverage enters the note score as coverage^exponent. */
  readonly coverageExponent: number;
  /**
   * Section choice inside the best notes (section-choice.ts): how many of the
   * best notes have all their matching sections rescored by their own coverage
   * of the query (0: off), and the exponent of that coverage.
   */
  readonly chooseNotes: number;
  readonly sectionCoverageExponent: number;
  /** section-choice.ts ChoiceOptions: keepBest, and gate (1: on, 0: off). */
  readonly chooseKeepBest: number;
  readonly chooseGate: number;
  /** BM25 column weights of sections_fts. */
  readonly weights: { readonly title: number; readonly aliases: number; readonly heading: number; readonly path: number; readonly body: number };
}

/** Which FTS table a ranking reads: words (with anchors) or the CJK bigram fallback. */
export type RankTable = 'words' | 'bigrams';

/** Conditions on `files f` (joined as `f.id = rowid >> 20`), with their parameters. */
export interface NoteFilter {
  sql: string;
  params: unknown[];
}

export interface RankedSection {
  id: number;
  /** BM25 plus weighted anchor scores (not yet multiplied by the note's coverage). */
  score: number;
}

export interface RankedNote {
  fileId: number;
  /** Best section's score times coverage^exponent. */
  score: number;
  coverage: number;
  /** The note's candidate sections, best first (those among the top candidates, or reached by anchors). */
  sections: RankedSection[];
}

/** The note id of a row of FTS table `t` (schema.ts sectionId). */
const noteOf = (t: string) => `(${t}.rowid >> ${SECTION_BITS})`;

/** `-bm25(…)` of sections_fts with these column weights: higher is better. */
function sectionScoreSql(w: RankParams['weights']): string {
  return `-bm25(sections_fts, ${w.title}, ${w.aliases}, ${w.heading}, ${w.path}, ${w.body})`;
}

/** Extra terms searched with the query (expansion), whose BM25 adds to a section's score with a weight. */
export interface Expansion {
  match: string;
  weight: number;
}

interface Candidate {
  fileId: number;
  main: Map<number, number>;
  /** Weighted BM25 of the expansions. */
  extra: Map<number, number>;
  anchor: Map<number, number>;
  noteAnchor: number;
  raw: number;
  best: RankedSection[];
}

function fromClause(table: string, filter: NoteFilter, note = noteOf(table)): string {
  return filter.sql === '' ? `FROM ${table} WHERE ${table} MATCH ?` : `FROM ${table} JOIN files f ON f.id = ${note} WHERE ${table} MATCH ?${filter.sql}`;
}

/** What {@link rankNotes} ranks: one query over one FTS table, within a note filter. */
export interface NotesQuery {
  table: RankTable;
  /** The FTS5 MATCH expression of the whole query. */
  match: string;
  /** The query terms, for coverage (and its idf weights). */
  terms: CoverageTerm[];
  filter: NoteFilter;
  want: number;
  expansions?: Expansion[];
  /**
   * Sections wanted per note: with 1 (search) and the best-BM25 section kept
   * first, section choice would change nothing and is skipped.
   */
  perNote?: number;
}

/** Notes for a query, best first (the notes of the candidate sections), ranked with `p`. */
export function rankNotes(db: Db, q: NotesQuery, p: RankParams): { notes: RankedNote[]; total: number } {
  const { table, match, terms, filter, want, expansions = [], perNote = 1 } = q;
  const fts = table === 'words' ? 'sections_fts' : 'bigrams_fts';
  const score = table === 'words' ? sectionScoreSql(p.weights) : `-bm25(bigrams_fts)`;
  const k = Math.max(p.candidates, 20 * want);
  // One round over the index (in parallel shards for a long-lived session's big
  // index, read-pool.ts): the best sections, the best anchor rows, the notes
  // counted for `total`, each expansion's best sections, each term's rows (its idf).
  const idfTerms = terms.length < 2 ? [] : terms;
  // Each term's row count (its idf) once per state of the index in a long-lived session.
  const known = termRowMemo(db, fts);
  const unknown = idfTerms.filter((t) => known?.get(t.expr) === undefined);
  const round = runShardedGroups(db, (shard) => {
    const ranged = (t: string) => shardCondition(t, shard);
    const top = (t: string, s: string, m: string, limit: number): ShardQuery => ({
      sql: `SELECT ${t}.rowid, ${s} AS score ${fromClause(t, filter)}${ranged(t).sql} ORDER BY score DESC, ${t}.rowid LIMIT ?`,
      params: [m, ...filter.params, ...ranged(t).params, limit],
      kind: 'rows',
    });
    return {
      top: [top(fts, score, match, k)],
      anchors: table === 'words' ? [top('anchors_fts', '-bm25(anchors_fts)', match, p.anchorCandidates)] : [],
      // A shard holds whole notes, so the shards' counts add up.
      total: [countNotes(table === 'bigrams' ? [fts] : [notesCanAnswer(match) ? 'notes_fts' : fts, 'anchors_fts'], match, filter, shard)],
      expansions: expansions.map((e) => top(fts, score, e.match, k)),
      rows: unknown.map((t) => ({ sql: `SELECT count(*) FROM ${fts} WHERE ${fts} MATCH ?${ranged(fts).sql}`, params: [t.expr, ...ranged(fts).params], kind: 'value' })),
    };
  });
  const top = mergeTop(round.top[0]!, k);
  const anchors = round.anchors.length > 0 ? mergeTop(round.anchors[0]!, p.anchorCandidates) : [];
  const total = sumOf(round.total[0]!);
  const rowsNow = new Map(unknown.map((t, i) => [t.expr, sumOf(round.rows[i]!)]));
  for (const [expr, n] of rowsNow) known?.set(expr, n);
  // A term not counted now was remembered (`known` is null only when every term is counted).
  const idf = idfOf(db, idfTerms.map((t) => rowsNow.get(t.expr) ?? known!.get(t.expr)!));

  const expanded = expansions.map((e, i) => ({ weight: e.weight, rows: mergeTop(round.expansions[i]!, k) }));
  const candidates = scoredCandidates(db, { top, anchors, expanded }, p);
  const ordered = [...candidates.values()].filter((c) => c.best.length > 0);
  // Coverage for every candidate at once: one FTS query per term and table, the
  // doclist walked in C and only candidate notes handed back.
  const coverage = coverageOf(db, ordered.map((c) => c.fileId), { table, terms, idf });
  const notes = ordered.map((c) => {
    const share = coverage.get(c.fileId) ?? 0;
    return { fileId: c.fileId, score: c.raw * share ** p.coverageExponent, coverage: share, sections: c.best };
  });
  notes.sort((a, b) => b.score - a.score || a.fileId - b.fileId);
  if (table === 'words' && p.chooseNotes > 0 && terms.length >= 2 && (perNote > 1 || p.chooseKeepBest === 0)) {
    const top = notes.slice(0, p.chooseNotes);
    const rescored = chooseSections(
      db,
      top.map((n) => ({ fileId: n.fileId, known: new Map(n.sections.map((s) => [s.id, s.score])), extra: p.noteAnchorWeight * candidates.get(n.fileId)!.noteAnchor })),
      { match, scoreSql: score, terms, idf, options: { exponent: p.sectionCoverageExponent, keepBest: p.chooseKeepBest, gate: p.chooseGate > 0 } },
    );
    for (const n of top) n.sections = rescored.get(n.fileId) ?? n.sections;
  }
  return { notes, total };
}

/**
 * The candidate notes of the first round's rows (sections, anchor rows,
 * expansions' sections), each with its sections' raw scores, best first: the
 * section's BM25 plus its weighted anchor and expansion scores and the note's
 * whole-note anchor bonus.
 */
function scoredCandidates(
  db: Db,
  found: { top: [number, number][]; anchors: [number, number][]; expanded: { weight: number; rows: [number, number][] }[] },
  p: RankParams,
): Map<number, Candidate> {
  const candidates = new Map<number, Candidate>();
  const candidate = (fileId: number) => {
    let c = candidates.get(fileId);
    if (!c) candidates.set(fileId, (c = { fileId, main: new Map(), extra: new Map(), anchor: new Map(), noteAnchor: 0, raw: 0, best: [] }));
    return c;
  };
  for (const [id, s] of found.top) candidate(Math.floor(id / 2 ** SECTION_BITS)).main.set(id, s);
  for (const [id, s] of found.anchors) {
    const c = candidate(Math.floor(id / 2 ** SECTION_BITS));
    if (id % 2 ** SECTION_BITS === NOTE_SLOT) c.noteAnchor = s;
    else c.anchor.set(id, s);
  }
  for (const e of found.expanded) {
    for (const [id, s] of e.rows) {
      const c = candidate(Math.floor(id / 2 ** SECTION_BITS));
      c.extra.set(id, (c.extra.get(id) ?? 0) + e.weight * s);
    }
  }

  // Raw scores: each candidate section's BM25 plus its weighted anchor scores.
  const firstSection = db.prepare(`SELECT id FROM sections WHERE id BETWEEN ? AND ? AND empty = 0 ORDER BY id LIMIT 1`).pluck();
  for (const c of candidates.values()) {
    const ids = new Set([...c.main.keys(), ...c.anchor.keys(), ...c.extra.keys()]);
    if (ids.size === 0) {
      // Found only by the anchor text into the whole note: its first section with words stands for it.
      const [lo, hi] = sectionRange(c.fileId);
      const first = firstSection.get(lo, hi) as number | undefined;
      if (first !== undefined) ids.add(first);
    }
    const noteBonus = p.noteAnchorWeight * c.noteAnchor;
    c.best = [...ids]
      .map((id) => ({ id, score: (c.main.get(id) ?? 0) + p.anchorWeight * (c.anchor.get(id) ?? 0) + (c.extra.get(id) ?? 0) + noteBonus }))
      .sort((a, b) => b.score - a.score || a.id - b.id);
    c.raw = c.best[0]?.score ?? 0;
  }
  return candidates;
}

/**
 * Coverage of the query for a set of notes: the idf-weighted share of its terms
 * that some section (or anchor row) of each note holds. One FTS query per term
 * and table for the whole set: the doclist is walked in C and only the notes of
 * the set come back (a lookup bounded by one note's rowid range walks the doclist
 * too, ~0.3 ms per note for a common word at 10k notes). 1 for a one-term query.
 */
function coverageOf(db: Db, fileIds: number[], query: { table: RankTable; terms: CoverageTerm[]; idf: number[] }): Map<number, number> {
  const { table, terms, idf } = query;
  if (terms.length < 2) return new Map(fileIds.map((id) => [id, 1]));
  const fts = table === 'words' ? ['sections_fts', 'anchors_fts'] : ['bigrams_fts'];
  const batch = JSON.stringify(fileIds);
  // Every term's notes among `fileIds`, in one round over the index (sharded like the ranking's first round).
  const exprs = [...new Set(terms.flatMap((t) => [t.expr, ...t.alternates.map((a) => a.expr)]))];
  const round = runShardedGroups(db, (shard) => ({
    holders: exprs.flatMap((expr) =>
      fts.map((t): ShardQuery => {
        if (t === 'sections_fts' && notesCanAnswer(expr)) {
          // The note-level table: a few bytes per note to walk instead of every section's positions.
          // `+rowid` keeps the IN out of FTS5, which would seek the doclist once per candidate.
          const r = shardCondition('notes_fts', shard, 'notes');
          return { sql: `SELECT rowid FROM notes_fts WHERE notes_fts MATCH ?${r.sql} AND +notes_fts.rowid IN (SELECT value FROM json_each(?))`, params: [expr, ...r.params, batch], kind: 'column' };
        }
        const r = shardCondition(t, shard);
        return { sql: `SELECT DISTINCT ${noteOf(t)} FROM ${t} WHERE ${t} MATCH ?${r.sql} AND ${noteOf(t)} IN (SELECT value FROM json_each(?))`, params: [expr, ...r.params, batch], kind: 'column' };
      }),
    ),
  }));
  const notesWith = new Map(exprs.map((expr, e) => [expr, new Set(fts.flatMap((_, i) => round.holders[e * fts.length + i]!.flat() as number[]))]));
  return idfCoverage(terms, idf, (expr) => notesWith.get(expr) ?? new Set());
}

/**
 * Whether notes_fts (which words each note holds, schema.ts) answers FTS
 * expression `expr` for whole notes as sections_fts does: an OR of one-token
 * phrases or prefixes, which is what a plain question becomes (query.ts
 * orOf). notes_fts keeps no positions, so anything else (a phrase of several
 * words, a character FTS5 might split a token at) is left to sections_fts.
 */
export function notesCanAnswer(expr: string): boolean {
  const inner = expr.startsWith('(') && expr.endsWith(')') ? expr.slice(1, -1) : expr;
  return inner.split(' OR ').every((phrase) => /^"[\p{L}\p{N}]+"\*?$/u.test(phrase));
}

/**
 * `total`: the distinct notes of the rows of `tables` that match. For a plain
 * question, notes_fts (its note's words) and anchors_fts; otherwise
 * sections_fts and anchors_fts, or the CJK fallback's bigrams_fts alone.
 * count(DISTINCT) over UNION ALL, not count(*) over UNION: the same number, a
 * third cheaper (100k notes, 4 common words: 23 vs 36 ms over sections_fts;
 * 13 ms over notes_fts). Counting notes_fts alone and looking up the notes
 * only anchor text matches one by one there (a seek of the whole expression,
 * ~60 µs each) won only with a few such notes on a big vault: at 100k notes
 * below ~140 of them, at 10k below ~7. One shape for all.
 */
function countNotes(tables: string[], match: string, filter: NoteFilter, shard: Shard | null): ShardQuery {
  const rows = tables.map((t) => {
    const byNote = t === 'notes_fts';
    const r = shardCondition(t, shard, byNote ? 'notes' : 'sections');
    const note = byNote ? `${t}.rowid` : noteOf(t);
    return { sql: `SELECT ${note} AS note ${fromClause(t, filter, note)}${r.sql}`, params: [match, ...filter.params, ...r.params] };
  });
  return { sql: `SELECT count(DISTINCT note) FROM (${rows.map((c) => c.sql).join(' UNION ALL ')})`, params: rows.flatMap((c) => c.params), kind: 'value' };
}

/** Each term's idf from its row count: the one FTS5's bm25() uses, with a floor so a word in most sections still counts a little. */
function idfOf(db: Db, counts: number[]): number[] {
  if (counts.length === 0) return [];
  const rows = Math.max(1, Number(storedMeta(db, 'sections') ?? 1));
  return counts.map((n) => Math.max(1e-6, Math.log((rows - n + 0.5) / (n + 0.5))));
}

/**
 * Every matching section ranked by its own score (BM25 plus anchors, no
 * coverage): `search --all-sections`. `total` counts matching sections.
 */
export function rankSections(db: Db, q: { match: string; filter: NoteFilter; want: number }, p: RankParams): { sections: RankedSection[]; total: number } {
  const { match, filter, want } = q;
  // Sharded like rankNotes's first round (read-pool.ts); a section id is unique to one shard, so the UNION counts add up.
  const round = runShardedGroups(db, (shard) => {
    const s = shardCondition('sections_fts', shard);
    const a = shardCondition('anchors_fts', shard);
    const from = `${fromClause('sections_fts', filter)}${s.sql}`;
    const anchorFrom = `${fromClause('anchors_fts', filter)}${a.sql}`;
    const params = [match, ...filter.params, ...s.params];
    const anchorParams = [match, ...filter.params, ...a.params];
    return {
      top: [{ sql: `SELECT sections_fts.rowid, ${sectionScoreSql(p.weights)} AS score ${from} ORDER BY score DESC, sections_fts.rowid LIMIT ?`, params: [...params, want], kind: 'rows' }],
      anchors: [{ sql: `SELECT anchors_fts.rowid, -bm25(anchors_fts) AS score ${anchorFrom} ORDER BY score DESC, anchors_fts.rowid LIMIT ?`, params: [...anchorParams, want], kind: 'rows' }],
      total: [
        {
          sql: `SELECT count(*) FROM (SELECT sections_fts.rowid ${from} UNION SELECT anchors_fts.rowid ${anchorFrom} AND (anchors_fts.rowid & ${NOTE_SLOT}) != ${NOTE_SLOT})`,
          params: [...params, ...anchorParams],
          kind: 'value',
        },
      ],
    };
  });
  const scores = new Map<number, number>();
  for (const [id, s] of mergeTop(round.top[0]!, want)) scores.set(id, s);
  for (const [id, s] of mergeTop(round.anchors[0]!, want)) {
    if (id % 2 ** SECTION_BITS !== NOTE_SLOT) scores.set(id, (scores.get(id) ?? 0) + p.anchorWeight * s);
  }
  const sections = [...scores].map(([id, score]) => ({ id, score })).sort((a, b) => b.score - a.score || a.id - b.id);
  return { sections: sections.slice(0, want), total: sumOf(round.total[0]!) };
}

/**
 * The best sections of one note (consecutive ids: one bounded FTS query, however
 * common the words), leaving out `skip`: context packets use it for the notes a
 * link leads to.
 */
export function rankWithinNote(db: Db, match: string, fileId: number, within: { limit: number; skip?: number[]; weights: RankParams['weights'] }): RankedSection[] {
  const { limit, skip = [], weights } = within;
  const [lo, hi] = sectionRange(fileId);
  return db
    .prepare(
      `SELECT rowid AS id, ${sectionScoreSql(weights)} AS score FROM sections_fts
       WHERE sections_fts MATCH ? AND rowid BETWEEN ? AND ? AND rowid NOT IN (SELECT value FROM json_each(?)) ORDER BY score DESC, rowid LIMIT ?`,
    )
    .all(match, lo, hi, JSON.stringify(skip), limit) as RankedSection[];
}
