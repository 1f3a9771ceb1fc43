import { type Db, SECTION_BITS, sectionRange } from '../index/index.js';
import { assertQuery, parseQuery, type ParsedQuery } from './query.js';
import { bridgeQuery } from './bridge.js';
import { rankNotes, rankSections, rankWithinNote, type NoteFilter, type RankedNote } from './rank.js';
import { DEFAULT_RANKING_PROFILE, type RankingProfile } from './ranking-profile.js';
import { SECTION_COLUMNS, locateSection, type LocatedSection, type SectionRow } from './section-rows.js';
import { makeSnippet } from './snippet.js';

/**
 * Section search over the index (ranking in rank.ts): notes ranked by their best
 * section and their coverage of the query, exact title and alias matches first,
 * best section per note unless `allSections`. A section with no words of its own
 * is never a hit: it is not in the FTS table (note-rows.ts).
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
  /** The ranking's parameters (ranking-profile.ts); default {@link DEFAULT_RANKING_PROFILE}. */
  profile?: RankingProfile;
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

function filters(opts: SearchOptions): NoteFilter {
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

/** A note's ranked sections, resolved to rows: what context packets choose evidence from. */
export interface RankedNoteHit {
  path: string;
  /** The note's score (its best section's times its coverage of the query). */
  score: number;
  /** `title` or `alias` when the whole query is the note's name or an alias, else `text`. */
  match: SearchHit['match'];
  /** Its candidate sections, best first, each scored by its own score times the note's coverage. */
  sections: SearchHit[];
}

export interface RankedResult {
  total: number;
  notes: RankedNoteHit[];
  /** Whether the CJK bigram fallback answered (the words found nothing). */
  fallback: boolean;
}

/** The parsed query, its page size and its note filter (the query's `-excluded` words included). */
function prepareQuery(query: string, opts: SearchOptions): { parsed: ParsedQuery; limit: number; f: NoteFilter } {
  assertQuery(query);
  const parsed = parseQuery(query);
  const limit = Math.min(opts.limit ?? DEFAULT_SEARCH_LIMIT, MAX_SEARCH_LIMIT);
  const f = filters(opts);
  if (parsed.exclude !== null) {
    f.sql += ` AND f.id NOT IN (SELECT rowid >> ${SECTION_BITS} FROM sections_fts WHERE sections_fts MATCH ?)`;
    f.params.push(parsed.exclude);
  }
  return { parsed, limit, f };
}

/**
 * Notes for a query, best first, each with its candidate sections: the core of
 * `search` and of `context`. Exact title and alias matches come first; a note
 * found only by its name shows its first section with words.
 */
export function rankedNotes(db: Db, query: string, opts: SearchOptions = {}, perNote = 1): RankedResult {
  const { parsed, limit, f } = prepareQuery(query, opts);
  const profile = opts.profile ?? DEFAULT_RANKING_PROFILE;
  const exactIds = exactNotes(db, parsed, f);
  const want = limit + exactIds.size;
  let ranked = { notes: [] as RankedNote[], total: 0 };
  let fallback = false;
  if (parsed.match !== null) {
    // The user's words meet the vault's (bridge.ts): corrections and family words.
    const bridged = bridgeQuery(db, parsed, profile.bridge);
    ranked = rankNotes(db, { table: 'words', match: bridged.parsed.match!, terms: bridged.coverage, filter: f, want, expansions: bridged.expansions, perNote }, profile.rank);
  }
  if (ranked.total === 0 && parsed.bigrams !== null) {
    // The words found nothing: the question's CJK bigrams against every section's (query.ts).
    ranked = rankNotes(db, { table: 'bigrams', match: parsed.bigrams, terms: parsed.bigramTerms.map((expr) => ({ expr, alternates: [] })), filter: f, want }, profile.rank);
    fallback = ranked.total > 0;
  }
  const picked = ranked.notes.slice(0, want);
  const rows = sectionRows(db, picked.flatMap((n) => n.sections.slice(0, perNote).map((s) => s.id)));
  const notes: RankedNoteHit[] = [];
  for (const n of picked) {
    const cover = Number.isNaN(n.coverage) ? 1 : n.coverage ** profile.rank.coverageExponent;
    const sections = n.sections.slice(0, perNote).flatMap((s) => {
      const row = rows.get(s.id);
      return row ? [hitOf(row, s.score * cover, exactIds.get(n.fileId) ?? 'text', parsed.terms)] : [];
    });
    if (sections.length > 0) notes.push({ path: sections[0]!.path, score: n.score, match: exactIds.get(n.fileId) ?? 'text', sections });
  }
  let total = ranked.total;
  const found = new Set(picked.map((n) => n.fileId));
  const missing = [...exactIds.keys()].filter((id) => !found.has(id));
  if (missing.length > 0) {
    const first = db.prepare(`SELECT min(id) FROM sections WHERE id BETWEEN ? AND ? AND empty = 0`).pluck();
    const any = db.prepare(`SELECT min(id) FROM sections WHERE id BETWEEN ? AND ?`).pluck();
    const ids = missing.flatMap((fid) => {
      const [lo, hi] = sectionRange(fid);
      const id = (first.get(lo, hi) ?? any.get(lo, hi)) as number | null;
      return id === null ? [] : [id];
    });
    const extra = sectionRows(db, ids);
    for (const id of ids) {
      const row = extra.get(id)!;
      const match = exactIds.get(row.file_id)!;
      notes.push({ path: row.path, score: 0, match, sections: [hitOf(row, 0, match, parsed.terms)] });
      total++;
    }
  }
  const rank = (n: RankedNoteHit) => (n.match === 'text' ? 1 : 0);
  notes.sort((a, b) => rank(a) - rank(b) || b.score - a.score || (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
  return { total, notes: notes.slice(0, limit), fallback };
}

export function searchIndex(db: Db, query: string, opts: SearchOptions = {}): SearchResult {
  if (!opts.allSections) {
    const r = rankedNotes(db, query, opts, 1);
    return { query, total: r.total, hits: r.notes.map((n) => ({ ...n.sections[0]!, score: round(n.score) })) };
  }
  const { parsed, limit, f } = prepareQuery(query, opts);
  if (parsed.match === null) return { query, total: 0, hits: [] };
  const { sections, total } = rankSections(db, { match: parsed.match, filter: f, want: limit }, (opts.profile ?? DEFAULT_RANKING_PROFILE).rank);
  const rows = sectionRows(db, sections.map((s) => s.id));
  const hits = sections.flatMap((s) => {
    const row = rows.get(s.id);
    return row ? [hitOf(row, s.score, 'text', parsed.terms)] : [];
  });
  return { query, total, hits };
}

/** Notes whose title or an alias equals the whole query (normalized words), within the filters. */
function exactNotes(db: Db, parsed: ParsedQuery, f: NoteFilter): Map<number, 'title' | 'alias'> {
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

/** Which sections of one note {@link bestSectionsInNote} returns, ranked with which profile. */
export interface InNoteOptions {
  /** Default 1. */
  limit?: number;
  /** Section ids left out. */
  skip?: number[];
  /** Default {@link DEFAULT_RANKING_PROFILE}. */
  profile?: RankingProfile;
}

/**
 * The best sections of one note for a query, best first; empty when none
 * matches. One FTS query bounded to the note's id range, so it costs little
 * however common the words are; context packets call it for the notes a link
 * leads to.
 */
export function bestSectionsInNote(db: Db, query: string, path: string, opts: InNoteOptions = {}): SearchHit[] {
  const parsed = parseQuery(query);
  if (parsed.match === null) return [];
  const fileId = db.prepare(`SELECT id FROM files WHERE path = ? AND kind = 'note'`).pluck().get(path) as number | undefined;
  if (fileId === undefined) return [];
  const best = rankWithinNote(db, parsed.match, fileId, { limit: opts.limit ?? 1, skip: opts.skip, weights: (opts.profile ?? DEFAULT_RANKING_PROFILE).rank.weights });
  const rows = sectionRows(db, best.map((b) => b.id));
  return best.map((b) => hitOf(rows.get(b.id)!, b.score, 'text', parsed.terms));
}

/** The best section of one note for a query, or null when none matches. */
export function bestSectionInNote(db: Db, query: string, path: string, opts: Omit<InNoteOptions, 'limit'> = {}): SearchHit | null {
  return bestSectionsInNote(db, query, path, { ...opts, limit: 1 })[0] ?? null;
}

/**
 * The section a reader lands in at `line` of a note, for a link to a heading or
 * block: the section holding the line or, when that section is only a heading
 * (its content all in subsections), the subsection under it that best matches
 * `query`, else its first subsection with words.
 */
export function sectionAtLine(db: Db, path: string, line: number, query: string, profile: RankingProfile = DEFAULT_RANKING_PROFILE): LocatedSection | null {
  const file = db.prepare(`SELECT id FROM files WHERE path = ? AND kind = 'note'`).pluck().get(path) as number | undefined;
  if (file === undefined) return null;
  const [lo, hi] = sectionRange(file);
  const spans = db.prepare('SELECT id, start_line, end_line, level, empty FROM sections WHERE id BETWEEN ? AND ? ORDER BY id').all(lo, hi) as {
    id: number;
    start_line: number;
    end_line: number;
    level: number;
    empty: number;
  }[];
  const k = spans.findIndex((s) => s.start_line <= line && line <= s.end_line);
  if (k < 0) return null;
  let id = spans[k]!.id;
  if (spans[k]!.empty === 1) {
    let end = k + 1;
    while (end < spans.length && spans[end]!.level > spans[k]!.level) end++;
    const below = spans.slice(k + 1, end).filter((s) => s.empty === 0);
    if (below.length > 0) {
      const parsed = parseQuery(query);
      const ids = new Set(below.map((s) => s.id));
      const ranked = parsed.match === null ? [] : rankWithinNote(db, parsed.match, file, { limit: MAX_SEARCH_LIMIT, weights: profile.rank.weights }).filter((b) => ids.has(b.id));
      id = (ranked[0] ?? below[0]!).id;
    }
  }
  return locateSection(sectionRows(db, [id]).get(id)!);
}

/** Full rows of sections by id, in one query. */
function sectionRows(db: Db, ids: number[]): Map<number, SectionRow> {
  if (ids.length === 0) return new Map();
  const rows = db
    .prepare(`SELECT ${SECTION_COLUMNS} FROM sections s JOIN files f ON f.id = s.file_id WHERE s.id IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify(ids)) as SectionRow[];
  return new Map(rows.map((r) => [r.id, r]));
}

const round = (x: number) => Math.round(x * 1000) / 1000;

function hitOf(r: SectionRow, score: number, match: SearchHit['match'], terms: ParsedQuery['terms']): SearchHit {
  return { ...locateSection(r), score: round(score), match, snippet: makeSnippet(r.text, terms) };
}
