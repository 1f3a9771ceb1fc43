import crypto from 'node:crypto';
import {
  exclusionKey,
  isExcluded,
  isMarkdownPath,
  readVaultConfig,
  statWalk,
  type ScanTree,
  type StatWalk,
  type ScanWarning,
  type VaultConfig,
  type VaultConfigCache,
  type VaultFile,
  type WalkedFile,
} from '../vault/index.js';
import { linkTargetsOf, rebuildAnchors } from './anchors.js';
import { bulkCache, ensureIndexes, ensureWal, isBusyError, putMeta, storedMeta, storedMetas, type Db, type IndexHandle } from './db.js';
import { firstBuildResolver, relinkIndex, type FirstBuild, type RelinkScope } from './relink.js';
import { FTS_TABLES, SCHEMA_VERSION } from './schema.js';
import { nameKey } from './note-rows.js';
import { deleteFile, insertNote } from './write-note.js';
import { prepareNote, prepareText, readNoteText, type Prepared } from './prepare-note.js';
import { defaultParseWorkers, prepareInOrder } from './parse-pool.js';
import { LINKS_PER_COLLECTION, LOAD_FILES_PER_COLLECTION, NOTES_PER_COLLECTION, collectGarbage } from './collect-garbage.js';

/**
 * Incremental refresh: make the index describe the vault as it is now.
 *
 * 1. Stat walk (scanVault) and compare size, mtime, ctime, inode and device
 *    with the `files` table, in a read snapshot. Nothing differs → done, nothing written (the common case).
 * 2. Otherwise take the write lock (BEGIN IMMEDIATE: one refresher at a time,
 *    readers keep reading the last committed state under WAL), compare again —
 *    another process may have done the work while we waited — and apply:
 *    changed notes are hashed, and re-parsed only when the bytes differ.
 * 3. Re-resolve the links whose answer can have changed (relink.ts), then
 *    rebuild the anchor text of the notes whose incoming links changed (anchors.ts).
 *
 * A brand-new index is loaded without its secondary indexes, which are built
 * once the rows are in (before links are resolved, which reads through them).
 */

export interface RefreshProgress {
  phase: 'index' | 'links';
  done: number;
  total: number;
}

export interface RefreshOptions {
  onProgress?: (p: RefreshProgress) => void;
  /** Worker threads for parsing a big batch of notes; 0 parses on this thread. Default: {@link defaultParseWorkers}. */
  parseWorkers?: number;
  /** Skip reading folders whose mtime is unchanged (default true; see statWalk in src/vault/scan.ts for where that is unsound). */
  trustDirMtime?: boolean;
  /**
   * Refresh only these paths, without a walk (a watched session: WatchRefresh).
   * Used when the index is still in the state the caller last saw (`since`, its
   * `scan_digest`) and the exclusions have not changed; otherwise the refresh
   * walks as usual. Default: walk.
   */
  paths?: PathRefresh;
  /** Called with the stat walk when the refresh made one (a watched session keeps its folder tree and warnings). */
  onWalk?: (walk: StatWalk) => void;
}

/** See {@link RefreshOptions.paths}. */
export interface PathRefresh {
  /** The index's `scan_digest` when the caller last refreshed it (read it back from meta). */
  since: string;
  /** The only paths that may differ from that state, with their records now (null: no longer a regular file). */
  files: ReadonlyMap<string, VaultFile | null>;
  /** The last walk's warnings: unchanged by these paths (the caller walks when a path is or was a symlink, a special file or a folder). */
  warnings: ScanWarning[];
}

export interface IndexWarning {
  path: string;
  code: string;
  message: string;
  /** NFC_COLLISION: the names as spelled on disk. */
  paths?: string[];
}

export interface RefreshResult {
  /** Whether anything was written: false when the index already matched the vault. */
  refreshed: boolean;
  /** Files the scanner saw (notes and attachments). */
  files: number;
  /** Markdown notes indexed. */
  notes: number;
  added: number;
  changed: number;
  deleted: number;
  /** A deleted and an added note with the same bytes (counted here, not in added/deleted). */
  renamed: number;
  /** The stat (size, mtime, ctime, inode, device) changed but the bytes did not: only the stat was updated. */
  touched: number;
  /** Links whose resolution was recomputed. */
  relinked: number;
  took_ms: number;
  warnings: IndexWarning[];
}

/** A refresh that wrote nothing (yet): the index's counts, every change count 0. */
export function unchangedResult(files: number, notes: number, warnings: RefreshResult['warnings'] = [], tookMs = 0): RefreshResult {
  return { refreshed: false, files, notes, added: 0, changed: 0, deleted: 0, renamed: 0, touched: 0, relinked: 0, took_ms: tookMs, warnings };
}

type Kind = 'note' | 'attachment' | 'excluded';

/** Above this many files to (re)index in one refresh, FTS segments are merged once at the end. */
const BULK_FILES = 500;
/** From this many new notes on, parsing runs in worker threads (below it, starting them costs more than it saves). */
const PARALLEL_MIN_NOTES = 300;

interface FileRow {
  id: number;
  path: string;
  size: number;
  mtime_ms: number;
  ctime_ms: number;
  ino: number;
  dev: number;
  kind: string;
  sha256: string | null;
  name_key: string;
}

interface Plan {
  add: { file: VaultFile; kind: Kind }[];
  stale: { file: VaultFile; kind: Kind; row: FileRow }[];
  remove: FileRow[];
}

/** What one refresh carries through its steps: built once per refresh, never per file. */
interface RefreshRun {
  db: Db;
  root: string;
  kindOf: (f: VaultFile) => Kind;
  /** The exclusions as stored in meta ({@link exclusionKey}). */
  excludeKey: string;
  opts: RefreshOptions;
  /** nowMs() when the refresh began, for took_ms. */
  started: number;
}

/** A diff's plan, with what {@link apply} needs besides: the stored file count and whether the exclusions changed. */
interface DiffedPlan extends Plan {
  storedFiles: number;
  excludeChanged: boolean;
}

function sameKind(stored: string, wanted: Kind): boolean {
  return stored === wanted || (stored === 'unreadable' && wanted === 'note');
}

/** What the diff compares, as raw arrays: [id, path, size, mtime_ms, ctime_ms, ino, dev, kind]. */
type StatRow = [number, string, number, number, number, number, number, string];

const FULL_ROW = 'SELECT id, path, size, mtime_ms, ctime_ms, ino, dev, kind, sha256, name_key FROM files';

/**
 * The unchanged-file test: a file whose size, mtime, ctime, inode and device are
 * those stored is not read again. mtime alone can be put back (touch -r, cp -p,
 * rsync -t); ctime cannot from user space, and a file renamed or copied into
 * place has another inode. Where even these cannot tell
 * (docs/internals/freshness.md), context's hash check re-indexes the note (IndexSession.read).
 */
function sameStat(size: number, mtime: number, ctime: number, ino: number, dev: number, file: VaultFile): boolean {
  return size === file.size && mtime === file.mtimeMs && ctime === file.ctimeMs && ino === file.ino && dev === file.dev;
}

/**
 * Compare the scan with the stored stats. Only the stat columns and kind of
 * every file is loaded, as arrays (100k objects of seven fields cost ~0.3 s of
 * time and garbage after a one-note change); the full rows of the few files that
 * changed or went away are read by id afterwards.
 */
function diff(db: Db, files: VaultFile[], kindOf: (f: VaultFile) => Kind): Plan & { storedFiles: number } {
  const stats = db.prepare('SELECT id, path, size, mtime_ms, ctime_ms, ino, dev, kind FROM files').raw().all() as StatRow[];
  const byPath = new Map<string, StatRow>();
  for (const r of stats) byPath.set(r[1], r);
  const fullRow = db.prepare(`${FULL_ROW} WHERE id = ?`);
  const plan: Plan = { add: [], stale: [], remove: [] };
  for (const file of files) {
    const kind = kindOf(file);
    const row = byPath.get(file.path);
    if (!row) {
      plan.add.push({ file, kind });
      continue;
    }
    byPath.delete(file.path); // what is left at the end was removed
    if (!sameStat(row[2], row[3], row[4], row[5], row[6], file) || !sameKind(row[7], kind)) plan.stale.push({ file, kind, row: fullRow.get(row[0]) as FileRow });
  }
  for (const row of byPath.values()) plan.remove.push(fullRow.get(row[0]) as FileRow);
  return { ...plan, storedFiles: stats.length };
}

/**
 * {@link diff} for a known set of paths: the rows of those paths only, compared
 * with their new records. Sorted by path, so rows are written in the order a
 * full diff writes them (the same ids either way).
 */
function diffPaths(db: Db, changed: ReadonlyMap<string, VaultFile | null>, kindOf: (f: VaultFile) => Kind, storedFiles: number): Plan & { storedFiles: number } {
  const byPath = db.prepare(`${FULL_ROW} WHERE path = ?`);
  const plan: Plan = { add: [], stale: [], remove: [] };
  for (const p of [...changed.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))) {
    const file = changed.get(p)!;
    const row = byPath.get(p) as FileRow | undefined;
    if (!file) {
      if (row) plan.remove.push(row);
      continue;
    }
    const kind = kindOf(file);
    if (!row) plan.add.push({ file, kind });
    else if (!sameStat(row.size, row.mtime_ms, row.ctime_ms, row.ino, row.dev, file) || !sameKind(row.kind, kind)) plan.stale.push({ file, kind, row });
  }
  return { ...plan, storedFiles };
}

/**
 * FTS5's merging while a big batch is inserted: automerge off, and the crisis
 * merge (a level with this many segments is merged at once, default 16) raised
 * to 64, so segments are merged once, by {@link mergeAfterBulk}, rather than
 * every few thousand rows on the way. Cold index of the 10k synthetic vault:
 * 11.7 s CPU vs 12.1 s with crisismerge left at 16, the same peak memory (a
 * bigger FTS5 hash, 'hashsize' 16 MB, saved as much but cost 20 MB of RSS).
 */
const BULK_CRISIS_MERGE = 64;
const DEFAULT_AUTOMERGE = 4;
const DEFAULT_CRISIS_MERGE = 16;

function deferMerges(db: Db): void {
  for (const t of FTS_TABLES) {
    db.prepare(`INSERT INTO ${t}(${t}, rank) VALUES ('automerge', 0)`).run();
    db.prepare(`INSERT INTO ${t}(${t}, rank) VALUES ('crisismerge', ${BULK_CRISIS_MERGE})`).run();
  }
}

/** Merge every FTS table into one segment and give FTS5 back its usual merging. */
function mergeAfterBulk(db: Db): void {
  for (const t of FTS_TABLES) {
    db.prepare(`INSERT INTO ${t}(${t}) VALUES ('optimize')`).run();
    db.prepare(`INSERT INTO ${t}(${t}, rank) VALUES ('automerge', ${DEFAULT_AUTOMERGE})`).run();
    db.prepare(`INSERT INTO ${t}(${t}, rank) VALUES ('crisismerge', ${DEFAULT_CRISIS_MERGE})`).run();
  }
}

/** Thrown inside the write transaction when another process refreshed first: the paths no longer suffice. */
const MOVED_ON = new Error('the index moved on');

/**
 * The `paths` refresh: no walk, only the given paths compared with their rows,
 * applied as a walk's refresh applies them; the file and note counts kept in
 * meta are adjusted by what these paths did, and `scan_digest` becomes a token
 * no walk produces, so the next walking refresh compares every row once. Null
 * when the index is not in the caller's state or the exclusions changed.
 */
function refreshPaths(run: RefreshRun, paths: PathRefresh): RefreshResult | null {
  const { db, kindOf, excludeKey, started } = run;
  const stored = storedMetas(db, ['scan_digest', 'exclude', 'collisions', 'notes', 'files']);
  if (stored.scan_digest !== paths.since || stored.exclude !== excludeKey || stored.files === undefined || stored.notes === undefined) return null;
  const result = unchangedResult(Number(stored.files), Number(stored.notes));
  const counts = () => {
    const kind = db.prepare('SELECT kind FROM files WHERE path = ?').pluck();
    let files = 0;
    let notes = 0;
    for (const p of paths.files.keys()) {
      const k = kind.get(p);
      if (k !== undefined) files++;
      if (k === 'note') notes++;
    }
    return { files, notes };
  };
  try {
    withBulkCacheReset(db, () => db.transaction(() => {
      if (storedMeta(db, 'scan_digest') !== paths.since) throw MOVED_ON;
      const before = counts();
      const work = apply(run, result, { ...diffPaths(db, paths.files, kindOf, result.files), excludeChanged: false });
      if (!work) return;
      result.relinked = (work.first?.resolved ?? 0) + relinkIndex(db, work.scope, (d, t) => run.opts.onProgress?.({ phase: 'links', done: d, total: t }), work.anchored, work.first ?? undefined);
      rebuildAnchors(db, work.anchored);
      if (work.bulk) mergeAfterBulk(db);
      const after = counts();
      result.files += after.files - before.files;
      result.notes += after.notes - before.notes;
      putMeta(db, 'files', String(result.files));
      putMeta(db, 'notes', String(result.notes));
      putMeta(db, 'scan_digest', `paths:${crypto.randomUUID()}`);
    }).immediate());
  } catch (e) {
    if (e === MOVED_ON) return null;
    throw e;
  }
  const collisions = stored.collisions ? (JSON.parse(stored.collisions) as IndexWarning[]) : [];
  result.warnings = [...collisions, ...collectWarnings(db, paths.warnings)];
  result.took_ms = Math.round(nowMs() - started);
  return result;
}

/**
 * Milliseconds on a monotonic clock, for `took_ms`. Not `performance.now()`: in
 * Node 20 its first use loads perf_hooks and ten internal modules, 1–4 ms of a
 * process that only checks the index is fresh.
 */
const nowMs = () => Number(process.hrtime.bigint()) / 1e6;

const isEmpty = (p: Plan) => p.add.length === 0 && p.stale.length === 0 && p.remove.length === 0;

/** The vault config as last validated, kept in the index's meta table (see VaultConfigCache). */
function configCache(db: IndexHandle['db']): VaultConfigCache {
  return {
    get(sha256) {
      const value = db.prepare(`SELECT value FROM meta WHERE key = 'vault_config'`).pluck().get() as string | undefined;
      if (!value) return undefined;
      const stored = JSON.parse(value) as { sha256: string; config: VaultConfig };
      return stored.sha256 === sha256 ? stored.config : undefined;
    },
    set(sha256, config) {
      db.prepare(`INSERT OR REPLACE INTO meta(key, value) VALUES ('vault_config', ?)`).run(JSON.stringify({ sha256, config }));
    },
  };
}

export function refreshIndex(handle: IndexHandle, opts: RefreshOptions = {}): RefreshResult {
  const started = nowMs();
  const { db, root } = handle;
  const config = readVaultConfig(root, configCache(db));
  const excludeKey = exclusionKey(config);
  const kindOf = (f: VaultFile): Kind => (isExcluded(config, f.path) ? 'excluded' : isMarkdownPath(f.path) ? 'note' : 'attachment');
  const run: RefreshRun = { db, root, kindOf, excludeKey, opts, started };
  if (opts.paths) {
    const done = refreshPaths(run, opts.paths);
    if (done) return done;
  }
  const stored = storedMetas(db, ['scan_digest', 'scan_tree', 'collisions', 'notes', 'files']);
  const walk = statWalk(root, parseTree(stored.scan_tree), { trustDirMtime: opts.trustDirMtime });
  opts.onWalk?.(walk);

  const result = unchangedResult(Number(stored.files ?? 0), Number(stored.notes ?? 0));

  // The fast path: the stat walk hashes to what the last refresh stored, so the
  // index already describes these exact files (no rows loaded, no file record
  // built, nothing written but a changed folder tree).
  const digest = `${SCHEMA_VERSION}:${excludeKey}:${walk.digest}`;
  let collisions = stored.collisions ? (JSON.parse(stored.collisions) as IndexWarning[]) : [];
  if (stored.scan_digest !== digest) {
    withBulkCacheReset(db, () => db.transaction(() => {
      const scan = dedupeByPath(walk.files());
      collisions = scan.collisions;
      result.files = scan.files.length;
      const excludeChanged = storedMeta(db, 'exclude') !== excludeKey;
      const work = apply(run, result, { ...diff(db, scan.files, kindOf), excludeChanged });
      // Link resolution holds the vault's file list in its own form: let go of the
      // scan's (100k records for 100k notes) so the two are never live together.
      scan.files = [];
      // A big build collects its garbage between phases (collect-garbage.ts): peak
      // memory, not speed. The first collection comes before the secondary indexes
      // are built, whose sorts take their own memory besides SQLite's page cache.
      if (work?.bulk && result.added + result.changed >= NOTES_PER_COLLECTION) collectGarbage();
      ensureIndexes(db);
      if (work) {
        const everything = work.scope.all;
        let collectedAt = 0;
        const linkProgress = (d: number, t: number) => {
          if (work.bulk && d - collectedAt >= LINKS_PER_COLLECTION) {
            collectedAt = d;
            collectGarbage();
          }
          opts.onProgress?.({ phase: 'links', done: d, total: t });
        };
        result.relinked = (work.first?.resolved ?? 0) + relinkIndex(db, work.scope, linkProgress, everything ? undefined : work.anchored, work.first ?? undefined);
        if (collectedAt > 0) collectGarbage();
        rebuildAnchors(db, everything ? 'all' : work.anchored);
        if (collectedAt > 0) collectGarbage();
        // Many small FTS segments slow every query; merging after a big batch pays back at once.
        if (work.bulk) mergeAfterBulk(db);
      }
      putMeta(db, 'scan_digest', digest);
      // The folder tree is written only when it changed (~250 KB at 10k notes).
      if (walk.treeChanged || stored.scan_tree === undefined) putMeta(db, 'scan_tree', JSON.stringify(walk.tree));
      putMeta(db, 'collisions', JSON.stringify(collisions));
      putMeta(db, 'files', String(result.files));
      // Counted once per change and kept: counting on every read scans the files
      // table (~15 ms at 10k notes), as there is no index on kind (schema.ts).
      result.notes = db.prepare(`SELECT count(*) FROM files WHERE kind = 'note'`).pluck().get() as number;
      putMeta(db, 'notes', String(result.notes));
    }).immediate());
    // A new index is loaded in rollback-journal mode (db.ts initialise): WAL from here on.
    ensureWal(db);
  } else if (walk.treeChanged) storeTree(db, walk.tree);
  result.warnings = [...collisions, ...collectWarnings(db, walk.warnings)];
  result.took_ms = Math.round(nowMs() - started);
  return result;
}

/** Run a refresh's transaction; if a bulk load shrank the page cache ({@link bulkCache}), restore it after. */
function withBulkCacheReset(db: Db, run: () => void): void {
  try {
    run();
  } finally {
    if (db.open) bulkCache(db, false);
  }
}

/** The folder tree the last refresh stored, or null (then every folder is read). */
function parseTree(json: string | undefined): ScanTree | null {
  if (!json) return null;
  try {
    const tree = JSON.parse(json) as ScanTree;
    return tree?.v === 1 && typeof tree.dirs === 'object' ? tree : null;
  } catch {
    return null;
  }
}

/**
 * Nothing changed, but the walk read folders the stored tree could not vouch
 * for (a folder modified just before the last walk, which can be trusted now):
 * store the new tree, or every later read would read those folders again. It
 * is only a cache of folder listings, each checked by its mtime and inode
 * before use, so it is skipped rather than waited for when another process
 * holds the write lock.
 */
function storeTree(db: Db, tree: ScanTree): void {
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    db.transaction(() => putMeta(db, 'scan_tree', JSON.stringify(tree))).immediate();
  } catch (e) {
    if (!isBusyError(e)) throw e;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}

/**
 * Write a diff's plan into the index (removed, stale, then added files), counting
 * into `result`; null when there was nothing to write. What it returns tells the
 * caller what to relink and whose anchors to rebuild.
 */
function apply(run: RefreshRun, result: RefreshResult, plan: DiffedPlan): AppliedPlan | null {
  const { db, root, excludeKey, opts } = run;
  const { excludeChanged } = plan;
  if (isEmpty(plan) && !excludeChanged) return null;
  result.refreshed = true;
  // A first build resolves every link anyway: no need to collect 100k names and paths to say so.
  const scope: RelinkScope = { all: excludeChanged || plan.storedFiles === 0, nameKeys: new Set(), targets: new Set() };
  // Notes whose anchor rows must be rebuilt: the targets of every link that goes
  // away with a deleted or replaced note, and every note (re)inserted.
  const anchored = new Set<string>();
  // Sections in the index after this refresh (meta.sections: the N of idf weights in rank.ts).
  let sections = plan.storedFiles === 0 ? 0 : Number(storedMeta(db, 'sections') ?? 0);
  const remove = (row: FileRow) => {
    if (!scope.all) for (const t of linkTargetsOf(db, row.id)) anchored.add(t);
    sections -= deleteFile(db, row.id);
  };
  // A first build resolves most links as it inserts them (firstBuildResolver); the relink then does the rest.
  const first = plan.storedFiles === 0 ? firstBuildResolver(plan.add.map((a) => ({ path: a.file.path, indexed: a.kind !== 'excluded' }))) : null;
  const total = plan.add.length + plan.stale.length;
  // A build of more than NOTES_PER_COLLECTION files collects its garbage as it
  // loads, too (collect-garbage.ts): V8 let the parse garbage of a 100k-note
  // load pile up to a peak RSS of ~430 MB.
  const collectEvery = total > NOTES_PER_COLLECTION ? LOAD_FILES_PER_COLLECTION : Infinity;
  let sinceCollection = 0;
  const insert = (w: Parameters<typeof insertNote>[1]) => {
    sections += insertNote(db, w, first?.resolve);
    if (++sinceCollection >= collectEvery) {
      sinceCollection = 0;
      collectGarbage();
    }
  };
  const touch = db.prepare('UPDATE files SET size = ?, mtime_ms = ?, ctime_ms = ?, ino = ?, dev = ? WHERE id = ?');
  const removedHashes = new Map<string, number>();
  const addedHashes: string[] = [];

  for (const row of plan.remove) {
    remove(row);
    scope.nameKeys.add(row.name_key);
    scope.targets.add(row.path);
    if (row.sha256) removedHashes.set(row.sha256, (removedHashes.get(row.sha256) ?? 0) + 1);
    result.deleted++;
  }

  // A big batch: skip FTS5's incremental merging while inserting and merge once at the end.
  const bulk = total > BULK_FILES;
  if (bulk) {
    deferMerges(db);
    // Set back by the caller once the refresh's transaction ends (withBulkCacheReset).
    bulkCache(db, true);
  }
  let done = 0;
  const progress = () => opts.onProgress?.({ phase: 'index', done: ++done, total });

  for (const { file, kind, row } of plan.stale) {
    if (kind === 'note' && row.kind === 'note') {
      const read = readNoteText(root, walked(file));
      if ('sha256' in read && read.sha256 === row.sha256) {
        touch.run(file.size, file.mtimeMs, file.ctimeMs, file.ino, file.dev, row.id);
        result.touched++;
        progress();
        continue;
      }
      remove(row);
      insert({ file, kind, prepared: 'warning' in read ? read : prepareText(file.path, read.text, read.sha256) });
    } else {
      remove(row);
      insert({ file, kind, prepared: kind === 'note' ? prepareNote(root, walked(file)) : null });
      scope.nameKeys.add(row.name_key);
    }
    scope.targets.add(file.path);
    anchored.add(file.path);
    result.changed++;
    progress();
  }

  addFiles({ root, scope, anchored, result, insert, progress, removedHashes, addedHashes, parseWorkers: opts.parseWorkers }, plan.add);

  countRenames(addedHashes, removedHashes, result);

  putMeta(db, 'exclude', excludeKey);
  putMeta(db, 'sections', String(sections));
  putMeta(db, 'refreshed_at', new Date().toISOString());
  return { scope, bulk, anchored, first };
}

/** What {@link apply} wrote, for the caller's relink: which links, and what a first build already resolved. */
interface AppliedPlan {
  scope: RelinkScope;
  bulk: boolean;
  anchored: Set<string>;
  /** A first build's links resolved as they were inserted: only the rest are relinked, against its index. */
  first: FirstBuild | null;
}

/** What {@link addFiles} writes into: the refresh's relink scope, anchors, counts and progress (one per refresh). */
interface AddTarget {
  root: string;
  scope: RelinkScope;
  anchored: Set<string>;
  result: RefreshResult;
  insert: (w: Parameters<typeof insertNote>[1]) => void;
  progress: () => void;
  /** Hashes of the removed notes (an added note with one of them is a rename). */
  removedHashes: ReadonlyMap<string, number>;
  /** Filled: the hashes of added notes that match a removed one. */
  addedHashes: string[];
  parseWorkers: number | undefined;
}

/**
 * Insert the plan's new files. Notes are prepared by the parse pool (in
 * parallel for a big batch) and written in plan order, attachments in between
 * as they come: the same rows and ids whether or not workers ran.
 */
function addFiles(w: AddTarget, add: Plan['add']): void {
  const added = (item: Plan['add'][number], prepared: Prepared | null) => {
    w.insert({ file: item.file, kind: item.kind, prepared });
    // Only a removed note can make an added one a rename; and a full relink needs no names.
    if (prepared && 'note' in prepared && w.removedHashes.has(prepared.note.sha256)) w.addedHashes.push(prepared.note.sha256);
    if (!w.scope.all) {
      w.scope.nameKeys.add(nameKey(item.file.path));
      w.scope.targets.add(item.file.path);
      w.anchored.add(item.file.path);
    }
    w.result.added++;
    w.progress();
  };
  const noteAt = add.flatMap((a, i) => (a.kind === 'note' ? [i] : []));
  let cursor = 0;
  const addUpTo = (stop: number) => {
    for (; cursor < stop; cursor++) if (add[cursor]!.kind !== 'note') added(add[cursor]!, null);
  };
  const workers = noteAt.length >= PARALLEL_MIN_NOTES ? (w.parseWorkers ?? defaultParseWorkers()) : 0;
  // The walk's own record of each note (its disk path and inode) rather than the vault path: read where the walk found it.
  const notes = noteAt.map((i) => walked(add[i]!.file));
  prepareInOrder(w.root, notes, (k, prepared) => {
    addUpTo(noteAt[k]!);
    added(add[cursor++]!, prepared);
  }, workers);
  addUpTo(add.length);
}

/** What reading a note needs of the walk's record of it (a small object: it is cloned to the parse workers). */
function walked(file: VaultFile): WalkedFile {
  return { path: file.path, diskPath: file.diskPath, ino: file.ino, dev: file.dev };
}

/**
 * A rename is a delete plus an add of the same bytes; report it as what it is:
 * each added note whose sha256 matches a removed one (each removed one used
 * once) moves one from added and deleted to renamed.
 */
function countRenames(addedHashes: readonly string[], removedHashes: Map<string, number>, result: RefreshResult): void {
  for (const h of addedHashes) {
    const left = removedHashes.get(h) ?? 0;
    if (left > 0) {
      removedHashes.set(h, left - 1);
      result.renamed++;
      result.added--;
      result.deleted--;
    }
  }
}

/**
 * Two files on disk whose names differ only by Unicode normalisation (NFC vs NFD)
 * are one path for Obsidian and for vaultgate. The first (in scan order) is
 * indexed; the collision is reported, never a crash on the UNIQUE path.
 */
function dedupeByPath(scanned: VaultFile[]): { files: VaultFile[]; collisions: IndexWarning[] } {
  const seen = new Set<string>();
  for (const f of scanned) seen.add(f.path);
  if (seen.size === scanned.length) return { files: scanned, collisions: [] };
  const groups = new Map<string, VaultFile[]>();
  for (const f of scanned) {
    const group = groups.get(f.path);
    if (group) group.push(f);
    else groups.set(f.path, [f]);
  }
  const collisions: IndexWarning[] = [];
  for (const [path, group] of groups) {
    if (group.length < 2) continue;
    const paths = group.map((f) => f.diskPath);
    collisions.push({
      path,
      code: 'NFC_COLLISION',
      message: `${group.length} files have this name once Unicode-normalised (${paths.map((p) => JSON.stringify(p)).join(', ')}); only the first is indexed`,
      paths,
    });
  }
  return { files: [...groups.values()].map((g) => g[0]!), collisions };
}

function collectWarnings(db: Db, scanWarnings: ScanWarning[]): IndexWarning[] {
  const out: IndexWarning[] = scanWarnings.map((w) => ({ path: w.path, code: w.code, message: w.message }));
  const rows = db.prepare(`SELECT path, warning FROM files WHERE kind = 'unreadable'`).all() as { path: string; warning: string }[];
  for (const r of rows) out.push(JSON.parse(r.warning) as IndexWarning);
  return out;
}
