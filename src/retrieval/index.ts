/**
 * retrieval: querying the index (src/index) — the query language, ranking,
 * search hits with snippets, the sections a context packet is built from, and
 * reading a note or one section of it.
 *
 * - {@link searchIndex}: section search (`"phrase"`, `-term`, `prefix*`, plain
 *   questions as OR under BM25), filters by path, tag and property;
 *   {@link rankedNotes}: the same ranking with several sections per note (context).
 *   Ranking over a bounded candidate set is in rank.ts, vocabulary bridging in
 *   bridge.ts, section choice in section-choice.ts.
 * - {@link RankingProfile}: every tuned number of the ranking in one frozen
 *   value, {@link DEFAULT_RANKING_PROFILE} unless a caller (the eval) passes a variant.
 * - {@link parseQuery}: the query language, never an FTS syntax error.
 * - {@link readNoteSection}: `vaultgate note`, a note or one section with hashes and lines;
 *   {@link windowNote} cuts a long one into windows with a continuation cursor.
 *
 * Named exports only: what other folders import (test/unit/retrieval/door.test.ts
 * pins the list).
 *
 * @example
 *   const { result } = withFreshIndex(root, process.env, (h) => searchIndex(h.db, 'ёлка', { limit: 5 }));
 */
export { DEFAULT_RANKING_PROFILE, type RankingProfile } from './ranking-profile.js';
export { parseQuery } from './query.js';
export { bestSectionInNote, rankedNotes, searchIndex, sectionAtLine, type SearchHit, type SearchOptions, type SearchResult } from './search.js';
export { SECTION_COLUMNS, locateSection, type LocatedSection, type SectionRow } from './section-rows.js';
export { makeSnippet } from './snippet.js';
export { readNoteSection } from './note-read.js';
export { windowNote } from './note-window.js';
