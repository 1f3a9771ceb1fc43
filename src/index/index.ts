/**
 * index: the SQLite index of one vault — files, sections, links, tags, aliases,
 * properties, and FTS5 over sections — kept fresh by an incremental refresh.
 * Storage only: querying, ranking and packets are src/retrieval, which reads
 * this index and which nothing here imports.
 *
 * - {@link withFreshIndex}: open (or create, or rebuild when corrupt or foreign)
 *   the index at `<cache>/<vault key>/index.sqlite`, refresh it (stat walk + hash
 *   of changed files + targeted link re-resolution; a no-op when nothing
 *   changed) and run a read, rebuilding once when the file turns out to be
 *   corrupt. What read commands use; {@link IndexSession} keeps it open.
 * - {@link WatchRefresh}: the refresh of a long-lived session with a file
 *   watcher: only the paths the watcher reports, no walk when it saw nothing.
 * - the text pipeline ({@link normalizeText}, {@link stemWord}, {@link textWords},
 *   stop words) shared by the index and by queries;
 * - link queries (`links`, `backlinks`, `check`, link snapshots) and the name
 *   lookups the proposals use;
 * - the read pool's sharded queries, which retrieval's ranking runs through.
 *
 * Named exports only: what other folders import (test/unit/index/door.test.ts
 * pins the list).
 *
 * @example
 *   const { result } = withFreshIndex(root, process.env, (h) => h.db.prepare('SELECT count(*) FROM files').pluck().get());
 */
export { indexFile, isCorruptionError, storedMeta, type Db, type IndexHandle } from './db.js';
export { NOTE_SLOT, SECTION_BITS, sectionRange } from './schema.js';
export { cjkBigrams, cjkRuns, hasCjk, lineWords, normalizeText, stemWord, textWords } from './text-pipeline.js';
export { isQueryStopWord, isStopWord } from './stop-words.js';
export { type RefreshResult } from './refresh.js';
export { anchorLookupFromDb, fileIndexForKeys, fileIndexFromDb } from './relink.js';
export { nameKey } from './note-rows.js';
export { IndexSession, oneShotReader, withFreshIndex, type FreshIndexOptions, type FreshRead, type IndexReader } from './fresh-index.js';
export { mergeTop, runShardedGroups, shardCondition, sumOf, termRowMemo, type ReadPoolStatus, type Shard, type ShardQuery } from './read-pool.js';
export { DEFAULT_WALK_INTERVAL_MS, WatchRefresh, type Freshness, type WatchRefreshStatus } from './watch-refresh.js';
export { backlinksFromIndex, checkFromIndex, noteLinksFromIndex, resolveFromIndex } from './link-queries.js';
export { compareLinkSnapshot, linkSnapshot, readLinkSnapshot } from './link-snapshot.js';
