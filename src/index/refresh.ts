import crypto from 'node:crypto';
import {
  exclusionKey,
  isExcluded,
  isMarkdownPath,
  readVaultConfig,
  type VaultConfig,
  type VaultConfigCache,
  scanVault,
  type ScanResult,
  type ScanWarning,
  type VaultFile,
} from '../vault/index.js';
import type { Db, IndexHandle } from './db.js';
import { relinkIndex, type RelinkScope } from './relink.js';
import { SCHEMA_VERSION } from './schema.js';
import { nameKey } from './note-rows.js';
import { insertNote } from './write-note.js';
import { prepareNote, prepareText, readNoteText, type Prepared } from './prepare-note.js';
import { defaultParseWorkers, prepareInOrder } from './parse-pool.js';

/**
 * Incremental refresh: make the index describe the vault as it is now.
 *
 * 1. Stat walk (scanVault) and compare size + mtime with the `files` table, in a
 *    read snapshot. Nothing differs → done, nothing written (the common case).
 * 2. Otherwise take the write lock (BEGIN IMMEDIATE: one refresher at a time,
 *    readers keep reading the last committed state under WAL), compare again —
 *    another process may have done the work while we waited — and apply:
 *    changed notes are hashed, and re-parsed only when the bytes differ.
 * 3. Re-resolve the links whose answer can have changed (relink.ts).
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
  /**
   * The vault's files as the caller already knows them, instead of walking it:
   * a watched session's copy of the stat walk (scanVault's result and order),
   * patched with a fresh stat of each path the watcher reported. Default: walk.
   */
  scan?: ScanResult;
  /**
   * With `scan`: the only paths whose records differ from the scan whose digest
   * is `since` (null: no longer a file). When the index still holds `since`,
   * only these paths are compared with their rows, not every file's; otherwise
   * (another process refreshed in between) the whole scan is compared.
   */
  changed?: { since: string; files: ReadonlyMap<string, VaultFile | null> };
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
  /** Size or mtime changed but the bytes did not: only the stat was updated. */
  touched: number;
  /** Links whose resolution was recomputed. */
  relinked: number;
  took_ms: number;
  warnings: IndexWarning[];
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
  kind: string;
  sha256: string | null;
  name_key: string;
}

interface Plan {
  add: { file: VaultFile; kind: Kind }[];
  stale: { file: VaultFile; kind: Kind; row: FileRow }[];
  remove: FileRow[];
}

function sameKind(stored: string, wanted: Kind): boolean {
  return stored === wanted || (stored === 'unreadable' && wanted === 'note');
}

/** What the diff compares, as raw arrays: [id, path, size, mtime_ms, kind]. */
type StatRow = [number, string, number, number, string];

/**
 * Compare the scan with the stored stats. Only [id, path, size, mtime, kind] of
 * every file is loaded, as arrays (100k objects of seven fields cost ~0.3 s of
 * time and garbage after a one-note change); the full rows of the few files that
 * changed or went away are read by id afterwards.
 */
function diff(db: Db, files: VaultFile[], kindOf: (f: VaultFile) => Kind): Plan & { storedFiles: number } {
  const stats = db.prepare('SELECT id, path, size, mtime_ms, kind FROM files').raw().all() as StatRow[];
  const byPath = new Map<string, StatRow>();
  for (const r of stats) byPath.set(r[1], r);
  const fullRow = db.prepare('SELECT id, path, size, mtime_ms, kind, sha256, name_key FROM files WHERE id = ?');
  const plan: Plan = { add: [], stale: [], remove: [] };
  for (const file of files) {
    const kind = kindOf(file);
    const row = byPath.get(file.path);
    if (!row) {
      plan.add.push({ file, kind });
      continue;
    }
    byPath.delete(file.path); // what is left at the end was removed
    if (row[2] !== file.size || row[3] !== file.mtimeMs || !sameKind(row[4], kind)) plan.stale.push({ file, kind, row: fullRow.get(row[0]) as FileRow });
  }
  for (const row of byPath.values()) plan.remove.push(fullRow.get(row[0]) as FileRow);
  return { ...plan, storedFiles: stats.length };
}

/**
 * {@link diff} for a known set of paths: the rows of those paths only, compared
 * with their new records. Sorted by path, so rows are written in the order a
 * full diff writes them.
 */
function diffPaths(db: Db, changed: ReadonlyMap<string, VaultFile | null>, kindOf: (f: VaultFile) => Kind): Plan & { storedFiles: number } {
  const byPath = db.prepare('SELECT id, path, size, mtime_ms, kind, sha256, name_key FROM files WHERE path = ?');
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
    else if (row.size !== file.size || row.mtime_ms !== file.mtimeMs || !sameKind(row.kind, kind)) plan.stale.push({ file, kind, row });
  }
  return { ...plan, storedFiles: db.prepare('SELECT count(*) FROM files').pluck().get() as number };
}

/** How many of these paths are indexed notes: with the stored count, keeps it exact without counting the table. */
function countNotes(db: Db, paths: Iterable<string>): number {
  const kind = db.prepare('SELECT kind FROM files WHERE path = ?').pluck();
  let n = 0;
  for (const p of paths) if (kind.get(p) === 'note') n++;
  return n;
}

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
  const started = performance.now();
  const { db, root } = handle;
  const config = readVaultConfig(root, configCache(db));
  const excludeKey = exclusionKey(config);
  const kindOf = (f: VaultFile): Kind => (isExcluded(config, f.path) ? 'excluded' : isMarkdownPath(f.path) ? 'note' : 'attachment');
  const scan = scanFiles(root, opts.scan);

  const result: RefreshResult = {
    refreshed: false,
    files: scan.files.length,
    notes: 0,
    added: 0,
    changed: 0,
    deleted: 0,
    renamed: 0,
    touched: 0,
    relinked: 0,
    took_ms: 0,
    warnings: [],
  };

  // The fast path: the stat walk hashes to what the last refresh stored, so the
  // index already describes these exact files (no rows loaded, nothing written).
  const digest = scanDigest(scan.files, kindOf, excludeKey);
  if (storedMeta(db, 'scan_digest') !== digest) {
    db.transaction(() => {
      const excludeChanged = storedMeta(db, 'exclude') !== excludeKey;
      // Checked under the write lock: the index still describes the scan the changes are relative to.
      const only = opts.changed && !excludeChanged && storedMeta(db, 'scan_digest') === opts.changed.since ? opts.changed.files : null;
      const notesBefore = only ? countNotes(db, only.keys()) : 0;
      const work = apply(db, root, scan.files, kindOf, excludeKey, excludeChanged, result, opts, only);
      // Link resolution holds the vault's file list in its own form: let go of the
      // scan's (100k records for 100k notes) so the two are never live together.
      scan.files = [];
      if (work) {
        result.relinked = relinkIndex(db, work.scope, (d, t) => opts.onProgress?.({ phase: 'links', done: d, total: t }));
        if (work.bulk) {
          // Many small FTS segments slow every query; merging after a big batch pays back at once.
          db.prepare(`INSERT INTO sections_fts(sections_fts) VALUES ('optimize')`).run();
          db.prepare(`INSERT INTO sections_fts(sections_fts, rank) VALUES ('automerge', 4)`).run();
        }
      }
      putMeta(db, 'scan_digest', digest);
      // Counted once per change and kept: counting on every read scans the files
      // table (~15 ms at 10k notes), as there is no index on kind (schema.ts).
      const stored = storedMeta(db, 'notes');
      putMeta(db, 'notes', String(only && stored !== undefined ? Number(stored) + countNotes(db, only.keys()) - notesBefore : db.prepare(`SELECT count(*) FROM files WHERE kind = 'note'`).pluck().get()));
    }).immediate();
  }
  result.notes = Number(storedMeta(db, 'notes') ?? 0);
  result.warnings = [...scan.collisions, ...collectWarnings(db, scan.warnings)];
  result.took_ms = Math.round(performance.now() - started);
  return result;
}

function apply(
  db: Db,
  root: string,
  files: VaultFile[],
  kindOf: (f: VaultFile) => Kind,
  excludeKey: string,
  excludeChanged: boolean,
  result: RefreshResult,
  opts: RefreshOptions,
  only: ReadonlyMap<string, VaultFile | null> | null,
): { scope: RelinkScope; bulk: boolean } | null {
  const plan = only ? diffPaths(db, only, kindOf) : diff(db, files, kindOf);
  if (isEmpty(plan) && !excludeChanged) return null;
  result.refreshed = true;
  // A first build resolves every link anyway: no need to collect 100k names and paths to say so.
  const scope: RelinkScope = { all: excludeChanged || plan.storedFiles === 0, nameKeys: new Set(), targets: new Set() };
  const deleteFile = db.prepare('DELETE FROM files WHERE id = ?');
  const touch = db.prepare('UPDATE files SET size = ?, mtime_ms = ? WHERE id = ?');
  const removedHashes = new Map<string, number>();
  const addedHashes: string[] = [];

  for (const row of plan.remove) {
    deleteFile.run(row.id);
    scope.nameKeys.add(row.name_key);
    scope.targets.add(row.path);
    if (row.sha256) removedHashes.set(row.sha256, (removedHashes.get(row.sha256) ?? 0) + 1);
    result.deleted++;
  }

  const total = plan.add.length + plan.stale.length;
  // A big batch: skip FTS5's incremental merging while inserting and merge once at the end.
  const bulk = total > BULK_FILES;
  if (bulk) db.prepare(`INSERT INTO sections_fts(sections_fts, rank) VALUES ('automerge', 0)`).run();
  let done = 0;
  const progress = () => opts.onProgress?.({ phase: 'index', done: ++done, total });

  for (const { file, kind, row } of plan.stale) {
    if (kind === 'note' && row.kind === 'note') {
      const read = readNoteText(root, file.path);
      if ('sha256' in read && read.sha256 === row.sha256) {
        touch.run(file.size, file.mtimeMs, row.id);
        result.touched++;
        progress();
        continue;
      }
      deleteFile.run(row.id);
      insertNote(db, { file, kind, prepared: 'warning' in read ? read : prepareText(file.path, read.text, read.sha256) });
    } else {
      deleteFile.run(row.id);
      insertNote(db, { file, kind, prepared: kind === 'note' ? prepareNote(root, file.path) : null });
      scope.nameKeys.add(row.name_key);
    }
    scope.targets.add(file.path);
    result.changed++;
    progress();
  }

  const added = (item: Plan['add'][number], prepared: Prepared | null) => {
    insertNote(db, { file: item.file, kind: item.kind, prepared });
    // Only a removed note can make an added one a rename; and a full relink needs no names.
    if (prepared && 'note' in prepared && removedHashes.has(prepared.note.sha256)) addedHashes.push(prepared.note.sha256);
    if (!scope.all) {
      scope.nameKeys.add(nameKey(item.file.path));
      scope.targets.add(item.file.path);
    }
    result.added++;
    progress();
  };
  // Notes are prepared by the parse pool (in parallel for a big batch) and written
  // in plan order, attachments in between as they come: the same rows and ids
  // whether or not workers ran.
  const noteAt = plan.add.flatMap((a, i) => (a.kind === 'note' ? [i] : []));
  let cursor = 0;
  const addUpTo = (stop: number) => {
    for (; cursor < stop; cursor++) if (plan.add[cursor]!.kind !== 'note') added(plan.add[cursor]!, null);
  };
  const workers = noteAt.length >= PARALLEL_MIN_NOTES ? (opts.parseWorkers ?? defaultParseWorkers()) : 0;
  prepareInOrder(root, noteAt.map((i) => plan.add[i]!.file.path), (k, prepared) => {
    addUpTo(noteAt[k]!);
    added(plan.add[cursor++]!, prepared);
  }, workers);
  addUpTo(plan.add.length);

  // A rename is a delete plus an add of the same bytes; report it as what it is.
  for (const h of addedHashes) {
    const left = removedHashes.get(h) ?? 0;
    if (left > 0) {
      removedHashes.set(h, left - 1);
      result.renamed++;
      result.added--;
      result.deleted--;
    }
  }

  putMeta(db, 'exclude', excludeKey);
  putMeta(db, 'refreshed_at', new Date().toISOString());
  return { scope, bulk };
}

/** The stat walk (or the caller's copy of it), one record per canonical path; `files` is dropped once applied. */
function scanFiles(root: string, given?: ScanResult): { files: VaultFile[]; collisions: IndexWarning[]; warnings: ScanWarning[] } {
  const scan = given ?? scanVault(root);
  return { ...dedupeByPath(scan.files), warnings: scan.warnings };
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

/**
 * One hash over everything the stat walk saw (path, size, mtime, kind) and the
 * exclusion settings. Equal to the stored one ⇔ nothing to do. Costs ~2 ms for
 * 10k files, where loading and comparing 10k rows cost ~50 ms.
 */
function scanDigest(files: VaultFile[], kindOf: (f: VaultFile) => Kind, excludeKey: string): string {
  const h = crypto.createHash('sha256');
  h.update(`${SCHEMA_VERSION}\0${excludeKey}\n`);
  for (const f of files) h.update(`${f.path}\0${f.size}\0${f.mtimeMs}\0${kindOf(f)}\n`);
  return h.digest('hex');
}

function storedMeta(db: Db, key: string): string | undefined {
  return db.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(key) as string | undefined;
}

function putMeta(db: Db, key: string, value: string): void {
  db.prepare('INSERT INTO meta(key, value) VALUES (?, ?) ON CONFLICT(key) DO UPDATE SET value = excluded.value').run(key, value);
}

function collectWarnings(db: Db, scanWarnings: ScanWarning[]): IndexWarning[] {
  const out: IndexWarning[] = scanWarnings.map((w) => ({ path: w.path, code: w.code, message: w.message }));
  const rows = db.prepare(`SELECT path, warning FROM files WHERE kind = 'unreadable'`).all() as { path: string; warning: string }[];
  for (const r of rows) out.push(JSON.parse(r.warning) as IndexWarning);
  return out;
}
