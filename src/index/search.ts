import type { Db } from './db.js';
import { parseQuery, termExpr, type ParsedQuery } from './query.js';
import { BM25_WEIGHTS } from './schema.js';
import { SECTION_COLUMNS, locateSection, type LocatedSection, type SectionRow } from './section-rows.js';
import { makeSnippet } from './snippet.js';

/**
 * Section search over the index: BM25 with column weights, exact title and
 * alias matches first, best section per note unless `allSections`.
 */

export const DEFAULT_SEARCH_LIMIT = 10;
export const MAX_SEARCH_LIMIT = 1000;

export interface SearchOptions {
  limit?: number;
  /** Only notes whose vault path starts with this string. */
  pathPrefix?: string;
  /** Only notes carrying this tag or one nested under it (`project` matches `project/alpha`). */
  tag?: string;
  /** Only notes whose frontmatter property KEY has VALUE (case-insensitive; list properties match any element). */
  where?: { key: string; value: string }[];
  /** Return every matching section rather than the best one per note. */
  allSections?: boolean;
  /** Only these notes (vault paths): used by context packets to rank a linked note's sections. */
  paths?: string[];
  /** Only notes under one of these path prefixes (a scenario's scope); empty list = nothing. */
  pathPrefixes?: string[];
}

export interface SearchHit extends LocatedSection {
  score: number;
  /** `title` or `alias` when the whole query equals the note's name or one of its aliases. */
  match: 'title' | 'alias' | 'text';
  snippet: string;
}

export interface SearchResult {
  query: string;
  /** Matching notes (or sections with `allSections`), not just those returned. */
  total: number;
  hits: SearchHit[];
}

interface Row extends SectionRow {
  score: number;
}


function filters(opts: SearchOptions): { sql: string; params: unknown[] } {
  const parts: string[] = [];
  const params: unknown[] = [];
  if (opts.pathPrefix) {
    const prefix = opts.pathPrefix.normalize('NFC').replace(/^\.?\/+/, '');
    parts.push('substr(f.path, 1, ?) = ?');
    params.push(prefix.length, prefix);
  }
  if (opts.tag) {
    const tag = opts.tag.replace(/^#/, '').normalize('NFC').toLowerCase();
    parts.push('EXISTS (SELECT 1 FROM tags t WHERE t.file_id = f.id AND (t.tag = ? OR substr(t.tag, 1, ?) = ?))');
    params.push(tag, tag.length + 1, tag + '/');
  }
  for (const w of opts.where ?? []) {
    parts.push('EXISTS (SELECT 1 FROM properties p WHERE p.file_id = f.id AND p.key = ? AND p.value = ?)');
    params.push(w.key.normalize('NFC').toLowerCase(), w.value.normalize('NFC').toLowerCase());
  }
  if (opts.pathPrefixes) {
    const list = opts.pathPrefixes.map((p) => p.normalize('NFC').replace(/^\.?\/+/, ''));
    parts.push(list.length === 0 ? '0' : `(${list.map(() => 'substr(f.path, 1, ?) = ?').join(' OR ')})`);
    for (const p of list) params.push(p.length, p);
  }
  if (opts.paths) {
    parts.push('f.path IN (SELECT value FROM json_each(?))');
    params.push(JSON.stringify(opts.paths));
  }
  return { sql: parts.map((p) => ` AND ${p}`).join(''), params };
}

/** A section's BM25 with the column weights, negated so that higher is better. */
const SCORE_SQL = `-bm25(sections_fts, ${BM25_WEIGHTS.title}, ${BM25_WEIGHTS.aliases}, ${BM25_WEIGHTS.heading}, ${BM25_WEIGHTS.body})`;

export function searchIndex(db: Db, query: string, opts: SearchOptions = {}): SearchResult {
  const parsed = parseQuery(query);
  const limit = Math.min(opts.limit ?? DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT);
  const f = filters(opts);
  if (parsed.exclude !== null) {
    f.sql += ` AND f.id NOT IN (SELECT x.file_id FROM sections_fts JOIN sections x ON x.id = sections_fts.rowid WHERE sections_fts MATCH ?)`;
    f.params.push(parsed.exclude);
  }
  const exactIds = exactNotes(db, parsed, f);
  let rows: Row[] = [];
  let total = 0;
  if (parsed.match !== null) {
    // One pass over the matches, small rows only: the best section per note is picked
    // here rather than with a window function (340 ms → ~110 ms for "the" on 10k notes),
    // and the full rows are fetched for the returned hits alone.
    const from = `FROM sections_fts JOIN sections s ON s.id = sections_fts.rowid JOIN files f ON f.id = s.file_id WHERE sections_fts MATCH ?${f.sql}`;
    const select = `SELECT s.id, s.file_id, ${SCORE_SQL} AS score ${from} ORDER BY score DESC, s.id`;
    const params = [parsed.match, ...f.params];
    const want = limit + exactIds.size;
    const picked: [number, number, number][] = [];
    if (opts.allSections) {
      // Every section competes: SQLite's top-k sort with LIMIT, and a count without scoring.
      total = db.prepare(`SELECT count(*) ${from}`).pluck().get(...params) as number;
      picked.push(...(db.prepare(`${select} LIMIT ?`).raw().all(...params, want) as [number, number, number][]));
    } else {
      const ranked = rankNotes(db, parsed, db.prepare(select).raw().all(...params) as [number, number, number][]);
      const seen = new Set<number>();
      for (const r of ranked) {
        if (seen.has(r[1])) continue;
        seen.add(r[1]);
        if (picked.length < want) picked.push(r);
      }
      total = seen.size;
    }
    const details = new Map(
      (
        db.prepare(`SELECT ${SECTION_COLUMNS}, 0 AS score FROM sections s JOIN files f ON f.id = s.file_id WHERE s.id IN (SELECT value FROM json_each(?))`).all(
          JSON.stringify(picked.map((r) => r[0])),
        ) as Row[]
      ).map((r) => [r.id, r]),
    );
    rows = picked.map(([id, , score]) => ({ ...details.get(id)!, score }));
    if (!opts.allSections) rows = rows.map((r) => (isHeadingOnly(r) ? (bestDescendant(db, parsed.match!, r) ?? r) : r));
  }
  // Exact title/alias notes come first; a note found only by its name (no text match) shows its first section.
  const found = new Set(rows.map((r) => r.file_id));
  const missing = [...exactIds.keys()].filter((id) => !found.has(id));
  if (missing.length > 0) {
    const first = db
      .prepare(`SELECT ${SECTION_COLUMNS}, 0 AS score FROM sections s JOIN files f ON f.id = s.file_id WHERE s.file_id IN (SELECT value FROM json_each(?)) AND s.idx = 0`)
      .all(JSON.stringify(missing)) as Row[];
    rows.push(...first);
    total += first.length;
  }
  const rank = (r: Row) => (exactIds.has(r.file_id) ? 0 : 1);
  rows.sort((a, b) => rank(a) - rank(b) || b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : a.id - b.id));
  const hits = rows.slice(0, limit).map((r) => hitOf(r, r.score, exactIds.get(r.file_id) ?? 'text', parsed.terms));
  return { query, total, hits };
}

/** Notes whose title or an alias equals the whole query (normalized words), within the filters. */
function exactNotes(db: Db, parsed: ParsedQuery, f: { sql: string; params: unknown[] }): Map<number, 'title' | 'alias'> {
  const out = new Map<number, 'title' | 'alias'>();
  if (parsed.exactKey === '' || parsed.excluded.length > 0) return out;
  const byTitle = db.prepare(`SELECT f.id FROM files f WHERE f.kind = 'note' AND f.title_key = ?${f.sql}`).pluck().all(parsed.exactKey, ...f.params) as number[];
  for (const id of byTitle) out.set(id, 'title');
  const byAlias = db
    .prepare(`SELECT f.id FROM aliases a JOIN files f ON f.id = a.file_id WHERE f.kind = 'note' AND a.key = ?${f.sql}`)
    .pluck()
    .all(parsed.exactKey, ...f.params) as number[];
  for (const id of byAlias) if (!out.has(id)) out.set(id, 'alias');
  return out;
}

/**
 * The best section of one note for a query, or null when none matches. Sections of
 * a note have consecutive ids (inserted together), so the FTS query is bounded by
 * a rowid range and costs little however common the words are; context packets
 * call this for every note a link leads to.
 */
export function bestSectionInNote(db: Db, query: string, path: string, skip: number[] = []): SearchHit | null {
  const parsed = parseQuery(query);
  if (parsed.match === null) return null;
  const span = db
    .prepare(`SELECT min(s.id) AS lo, max(s.id) AS hi FROM sections s JOIN files f ON f.id = s.file_id WHERE f.path = ? AND f.kind = 'note'`)
    .get(path) as { lo: number | null; hi: number | null };
  if (span.lo === null || span.hi === null) return null;
  const best = bestInRange(db, parsed.match, span.lo, span.hi, skip);
  if (!best) return null;
  return hitOf(sectionById(db, best.id), best.score, 'text', parsed.terms);
}

/**
 * One row per note, best first: its best section, scored by that section's BM25
 * times the note's coverage of the query. A plain-language question is an OR of
 * its words, so a note can win on one rare word repeated in one section while the
 * note that is about the question holds most of its words across its sections;
 * coverage is the share of the query's weight (each word weighted by its BM25 idf)
 * that some matching section of the note contains. It is a factor rather than a
 * filter: a note holding the two rarest words still beats one holding five common
 * ones. Measured on eval/questions.json (dev split): note MRR 0.796 → 0.816;
 * squaring it, or multiplying each *section* by its own coverage, did worse.
 *
 * @param ranked every matching section as [id, file id, score], best first
 */
function rankNotes(db: Db, parsed: ParsedQuery, ranked: [number, number, number][]): [number, number, number][] {
  const best = new Map<number, [number, number, number]>();
  for (const r of ranked) if (!best.has(r[1])) best.set(r[1], r);
  if (parsed.terms.length < 2) return [...best.values()];
  const sections = db.prepare('SELECT count(*) FROM sections').pluck().get() as number;
  const matching = db.prepare('SELECT rowid FROM sections_fts WHERE sections_fts MATCH ?').pluck();
  const perTerm = parsed.terms.map((t) => new Set(matching.all(termExpr(t)) as number[]));
  // The idf FTS5's bm25() uses (with a floor, so a word in most sections still counts a little).
  const idf = perTerm.map((set) => Math.max(1e-6, Math.log((sections - set.size + 0.5) / (set.size + 0.5))));
  const total = idf.reduce((a, b) => a + b, 0);
  const covered = new Map<number, Set<number>>();
  for (const [id, file] of ranked) {
    let terms = covered.get(file);
    if (!terms) covered.set(file, (terms = new Set()));
    perTerm.forEach((set, k) => set.has(id) && terms!.add(k));
  }
  const out = [...best.values()].map(([id, file, score]): [number, number, number] => {
    const share = [...covered.get(file)!].reduce((a, k) => a + idf[k]!, 0) / total;
    return [id, file, score * share];
  });
  return out.sort((a, b) => b[2] - a[2] || a[0] - b[0]);
}

/** A section that is its heading line and nothing else: its content is in its subsections. */
function isHeadingOnly(r: SectionRow): boolean {
  if (r.parts > 1) return false;
  // The heading line (ATX), or the text line plus its setext underline.
  return r.text.split(/\r?\n/).slice(1).every((line) => /^\s*(=+|-+)?\s*$/.test(line));
}

/**
 * The best-matching subsection of a heading-only section (its score stays the
 * parent's, which is what ranked the note), or null when none matches the query.
 * Subsections follow their parent with consecutive ids, up to the next heading of
 * the same or a higher level.
 */
function bestDescendant<T extends SectionRow & { score: number }>(db: Db, match: string, parent: T): T | null {
  const own = db.prepare('SELECT idx, level FROM sections WHERE id = ?').get(parent.id) as { idx: number; level: number };
  const next = db.prepare('SELECT min(id) FROM sections WHERE file_id = ? AND idx > ? AND level <= ?').pluck().get(parent.file_id, own.idx, own.level) as number | null;
  const hi = next === null ? (db.prepare('SELECT max(id) FROM sections WHERE file_id = ?').pluck().get(parent.file_id) as number) : next - 1;
  if (hi <= parent.id) return null;
  const best = bestInRange(db, match, parent.id + 1, hi);
  if (!best) return null;
  return { ...parent, ...sectionById(db, best.id), score: parent.score };
}

/**
 * The best-scoring section among section ids `lo..hi` (a note's sections, or a
 * heading's subsections: both have consecutive ids), leaving out `skip`. Bounded
 * by rowid, the FTS query costs little however common the words are.
 */
function bestInRange(db: Db, match: string, lo: number, hi: number, skip: number[] = []): { id: number; score: number } | undefined {
  return db
    .prepare(
      `SELECT rowid AS id, ${SCORE_SQL} AS score FROM sections_fts
       WHERE sections_fts MATCH ? AND rowid BETWEEN ? AND ? AND rowid NOT IN (SELECT value FROM json_each(?)) ORDER BY score DESC, rowid LIMIT 1`,
    )
    .get(match, lo, hi, JSON.stringify(skip)) as { id: number; score: number } | undefined;
}

function sectionById(db: Db, id: number): SectionRow {
  return db.prepare(`SELECT ${SECTION_COLUMNS} FROM sections s JOIN files f ON f.id = s.file_id WHERE s.id = ?`).get(id) as SectionRow;
}

function hitOf(r: SectionRow, score: number, match: SearchHit['match'], terms: ParsedQuery['terms']): SearchHit {
  return { ...locateSection(r), score: Math.round(score * 1000) / 1000, match, snippet: makeSnippet(r.text, terms) };
}
