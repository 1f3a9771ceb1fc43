/**
 * index: the SQLite index of one vault — files, sections, links, tags, aliases,
 * properties, and FTS5 over sections — kept fresh by an incremental refresh.
 *
 * - {@link openIndex}: open (or create, or rebuild when corrupt or foreign) the
 *   index at `<cache>/<vault key>/index.sqlite`; returns an {@link IndexHandle}.
 * - {@link refreshIndex}: stat walk + hash of changed files + targeted link
 *   re-resolution; a no-op (no write) when nothing changed.
 * - {@link withFreshIndex}: open + refresh + run a read, rebuilding once when the
 *   file turns out to be corrupt. What read commands use.
 * - {@link WatchRefresh}: the refresh of a long-lived session with a file
 *   watcher: only the paths the watcher reports, no walk when it saw nothing.
 * - {@link searchIndex}: section search (`"phrase"`, `-term`, `prefix*`, plain
 *   questions as OR under BM25), filters by path, tag and property;
 *   {@link rankedNotes}: the same ranking with several sections per note (context).
 *   Ranking over a bounded candidate set is in rank.ts, anchor text in anchors.ts.
 * - {@link parseQuery}: the query language, never an FTS syntax error.
 * - {@link indexText} and friends: the text pipeline shared by index and queries.
 * - {@link readNoteSection}: `vaultgate note`, a note or one section with hashes and lines;
 *   {@link windowNote} cuts a long one into windows with a continuation cursor.
 *
 * @example
 *   const { result } = withFreshIndex(root, process.env, (h) => searchIndex(h.db, 'ёлка', { limit: 5 }));
 */
export * from './db.js';
export * from './schema.js';
export * from './text-pipeline.js';
export * from './stop-words.js';
export * from './query.js';
export * from './refresh.js';
export * from './relink.js';
export * from './search.js';
export { type RankParams } from './rank.js';
export { DEFAULT_RANKING_PROFILE, deepFreeze, type ContextParams, type RankingProfile } from './ranking-profile.js';
export { rebuildAnchors, MAX_ANCHOR_CHARS } from './anchors.js';
export { bridgeQuery, type BridgeParams, type BridgedQuery } from './bridge.js';
export * from './section-rows.js';
export * from './snippet.js';
export * from './split-section.js';
export * from './prepare-note.js';
export { nameKey } from './note-rows.js';
export { defaultParseWorkers } from './parse-pool.js';
export * from './fresh-index.js';
export type { ReadPoolStatus } from './read-pool.js';
export * from './watch-refresh.js';
export * from './note-read.js';
export { windowNote, DEFAULT_WINDOW_CHARS, type NoteWindow } from './note-window.js';
export * from './link-queries.js';
export * from './link-snapshot.js';
