import { buildFileIndex, type FileIndex } from '../links/index.js';
import { resolveLink, type AnchorLookup, type LinkResolution } from '../links/index.js';
import type { AnchorSource } from '../links/index.js';
import type { LinkKind } from '../markdown/index.js';
import type { Db } from './db.js';

/**
 * Which stored links must be resolved again after a refresh changed some files.
 *
 * A link's answer depends on (a) the set of files whose name it could match and
 * (b) the headings/blocks of its target. So after a change we recompute:
 * - the links of every note just (re)inserted (its path is in `targets` too);
 * - links whose path part has the basename of a file that appeared, disappeared
 *   or changed kind (`nameKeys`): a new `b/Note.md` turns `[[Note]]` elsewhere from
 *   resolved into resolved-with-candidates, or ambiguous;
 * - links whose target is a note whose content changed (`targets`): the heading
 *   they name may be gone.
 * `all` recomputes every link (the exclusion settings changed).
 */
export interface RelinkScope {
  all: boolean;
  nameKeys: Set<string>;
  targets: Set<string>;
}

/** A link as a row holds it, for resolution: its kind, path, subpath and whether it is external. */
type LinkFields = Pick<LinkRow, 'kind' | 'path' | 'subpath'> & { external: boolean };

/**
 * Resolves a link while its note is inserted: the answer, or null when it is
 * left to {@link relinkIndex} (an external link, or one whose answer depends
 * on the headings or blocks of its target, which may not be inserted yet).
 */
export type InsertResolver = (link: LinkFields, fromPath: string) => LinkResolution | null;

/**
 * A first build's resolver ({@link InsertResolver}): the index holds no file
 * yet and will hold exactly `files` (every path the build adds, with whether it
 * is indexed), so a link's path resolves as soon as its note is inserted. Only
 * links whose target's headings or blocks matter (a subpath into a resolved
 * note, ~11% of the 10k synthetic vault's) wait for the relink after the load.
 * Saves that relink reading, resolving and rewriting every link row (10k
 * synthetic notes: ~0.45 s of the ~0.6 s it took, on the one writing thread
 * while the parse worker idles). Null above {@link WHOLE_INDEX_MAX_FILES}: the
 * file index of every path held through the whole load costs memory a big
 * build does not have (the relink builds smaller ones page by page).
 */
export function firstBuildResolver(files: readonly { path: string; indexed: boolean }[]): FirstBuild | null {
  if (files.length > WHOLE_INDEX_MAX_FILES) return null;
  const index = buildFileIndex(files);
  let askedForAnchors = false;
  // An answer that never looked at anchors is final; one that did waits for the relink.
  const noAnchorsYet: AnchorLookup = () => {
    askedForAnchors = true;
    return null;
  };
  const build: FirstBuild = {
    index,
    resolved: 0,
    resolve(link, fromPath) {
      if (link.external) return null;
      askedForAnchors = false;
      const r = resolveLink(index, link, fromPath, noAnchorsYet);
      if (askedForAnchors) return null;
      build.resolved++;
      return r;
    },
  };
  return build;
}

/** A first build's link resolution: what it resolves as notes are inserted, and the file index the relink after the load uses too. */
export interface FirstBuild extends PendingRelink {
  resolve: InsertResolver;
  /** Links resolved so far (counted in the refresh's `relinked` with the relink's). */
  resolved: number;
}

interface LinkRow {
  id: number;
  kind: LinkKind;
  path: string;
  subpath: string | null;
  name_key: string;
  from_path: string;
  target: string | null;
  resolution: string | null;
}

/** What note-rows.ts stores per note: headings and block ids whole, the line table summarised. */
interface StoredAnchors {
  headings: AnchorSource['headings'];
  blockIds: AnchorSource['blockIds'];
  lineCount: number;
  lastLineStart: number;
  length: number;
}

/** The vault's file list as link resolution sees it, from the `files` table. */
export function fileIndexFromDb(db: Db): FileIndex {
  // Streamed: at 100k files an array of every row, and another of their entries,
  // were ~30 MB of garbage on top of the index itself, at the build's peak.
  function* entries() {
    for (const r of db.prepare('SELECT path, kind FROM files').iterate() as IterableIterator<FileKindRow>) yield { path: r.path, indexed: r.kind !== 'excluded' };
  }
  return buildFileIndex(entries());
}

interface FileKindRow {
  path: string;
  kind: string;
}

/** Excluded files still take part in resolution (Obsidian sees them), marked as not indexed. */
function fileIndexOfRows(rows: FileKindRow[]): FileIndex {
  return buildFileIndex(rows.map((r) => ({ path: r.path, indexed: r.kind !== 'excluded' })));
}

/** Above this many distinct link names, reading every file costs less than looking each name up. */
const NAMED_INDEX_MAX = 2000;

/**
 * The file list restricted to what the links selected by `from` can match: the
 * files sharing a link's name key (which is every file resolution can pick for it,
 * the premise of {@link RelinkScope}), and the source notes of self-links
 * (`[[#H]]`, name key ''). After a one-note change in a 100k-note vault this reads
 * a handful of rows instead of building an index of every file (~360 ms). Null
 * when the links have too many names for that to pay.
 */
function fileIndexForNames(db: Db, from: string): FileIndex | null {
  const names = db.prepare(`SELECT DISTINCT l.name_key ${from}`).pluck().all() as string[];
  if (names.length > NAMED_INDEX_MAX) return null;
  const rows = db
    .prepare(
      `SELECT path, kind FROM files WHERE name_key IN (SELECT value FROM json_each(?))
       UNION SELECT f.path, f.kind ${from} AND l.name_key = ''`,
    )
    .all(JSON.stringify(names)) as FileKindRow[];
  return fileIndexOfRows(rows);
}

/**
 * The file list restricted to the files whose name key is one of `keys`, plus
 * the files named in `paths` (sources of self-links, `[[#H]]`, name key ''):
 * every file resolution can pick for a link with one of those name keys (the
 * premise of {@link RelinkScope}). What a review or a move needs to resolve a
 * few links in a 100k-note vault without building an index of every file.
 */
export function fileIndexForKeys(db: Db, keys: Iterable<string>, paths: Iterable<string> = []): FileIndex {
  const rows = db
    .prepare(`SELECT path, kind FROM files WHERE name_key IN (SELECT value FROM json_each(?)) UNION SELECT path, kind FROM files WHERE path IN (SELECT value FROM json_each(?))`)
    .all(JSON.stringify([...new Set(keys)]), JSON.stringify([...new Set(paths)])) as FileKindRow[];
  return fileIndexOfRows(rows);
}

const ANCHOR_CACHE = 256;

/** Headings and block ids of indexed notes, read from the stored JSON (no file is re-read). */
export function anchorLookupFromDb(db: Db): AnchorLookup {
  const get = db.prepare(`SELECT anchors FROM files WHERE path = ? AND kind = 'note'`).pluck();
  // Small and least-recently-used: it keeps the notes many links point at (an index
  // note, a hub) and nothing else. Long-lived entries are promoted to V8's old
  // space, so a big cache that is refilled over and over (a cold index of 100k notes
  // resolves links to all of them) leaves hundreds of MB of garbage behind.
  const cache = new Map<string, AnchorSource | null>();
  return (path) => {
    const hit = cache.get(path);
    if (hit !== undefined) {
      cache.delete(path);
      cache.set(path, hit);
      return hit;
    }
    if (cache.size >= ANCHOR_CACHE) cache.delete(cache.keys().next().value!);
    const json = get.get(path) as string | undefined;
    let out: AnchorSource | null = null;
    if (json) {
      const a = JSON.parse(json) as StoredAnchors;
      // resolveSubpath reads only the number of lines and where the last one starts (to
      // ignore an empty final line); storing every line start would double the table.
      const lineStarts = new Array<number>(a.lineCount);
      lineStarts[a.lineCount - 1] = a.lastLineStart;
      out = { headings: a.headings, blockIds: a.blockIds, lineStarts, length: a.length };
    }
    cache.set(path, out);
    return out;
  };
}

/**
 * Up to this many files, a full relink (a first build) resolves every page
 * against one index of every file (~5 MB at 10k files) rather than building one
 * per page of the files sharing the page's names: those repeat most files page
 * after page (10k synthetic notes: 7 pages, ~35k paths folded instead of 10k).
 */
const WHOLE_INDEX_MAX_FILES = 20_000;

function wholeIndexIfSmall(db: Db): FileIndex | null {
  const files = db.prepare('SELECT count(*) FROM files').pluck().get() as number;
  return files <= WHOLE_INDEX_MAX_FILES ? fileIndexFromDb(db) : null;
}

/** Links resolved per batch: bounded memory however many links a vault has (100k notes ≈ 350k links). */
const RELINK_BATCH = 5000;

/**
 * After a first build whose links were resolved as they were inserted
 * ({@link firstBuildResolver}): only the links left unresolved, against the
 * index the build already made.
 */
export interface PendingRelink {
  index: FileIndex;
}

/**
 * Resolve the links in `scope` again. `changedTargets`, when given, receives the
 * old and new target of every link whose resolution changed (or was new): their
 * anchor text moved (anchors.ts). With `pending`, only the links of the scope
 * that have no resolution yet.
 */
export function relinkIndex(
  db: Db,
  scope: RelinkScope,
  onProgress?: (done: number, total: number) => void,
  changedTargets?: Set<string>,
  pending?: PendingRelink,
): number {
  let from = 'FROM links l JOIN files f ON f.id = l.file_id WHERE l.external = 0';
  if (!scope.all) {
    // The links in scope, found through indexes and kept in a temporary table: an
    // OR of these conditions in one WHERE read all 350k links of a 100k-note vault
    // for every query below (~0.9 s after a one-note change).
    const names = JSON.stringify([...scope.nameKeys]);
    const targets = JSON.stringify([...scope.targets]);
    db.exec('CREATE TEMP TABLE IF NOT EXISTS relink_scope(id INTEGER PRIMARY KEY); DELETE FROM relink_scope;');
    db.prepare(
      `INSERT INTO relink_scope
         SELECT id FROM links WHERE name_key IN (SELECT value FROM json_each(@names))
         UNION SELECT id FROM links WHERE target IN (SELECT value FROM json_each(@targets))
         UNION SELECT l.id FROM files f JOIN links l ON l.file_id = f.id WHERE f.path IN (SELECT value FROM json_each(@targets))`,
    ).run({ names, targets });
    // CROSS JOIN fixes the order (SQLite's rule): the temp table has no statistics,
    // and the planner would otherwise walk all links and probe it.
    from = 'FROM relink_scope r CROSS JOIN links l ON l.id = r.id CROSS JOIN files f ON f.id = l.file_id WHERE l.external = 0';
  }
  if (pending) from += ' AND l.resolution IS NULL';
  const total = db.prepare(`SELECT count(*) ${from}`).pluck().get() as number;
  if (total === 0) return 0;
  const page = db.prepare(
    `SELECT l.id, l.kind, l.path, l.subpath, l.name_key, f.path AS from_path, l.target, l.resolution ${from} AND l.id > ? ORDER BY l.id LIMIT ${RELINK_BATCH}`,
  );
  // One file index for the whole scope when its links have few names (a small
  // change); otherwise one per page, of the files sharing a name key with that
  // page's links (every file resolution can pick for them, the premise of
  // RelinkScope) and the sources of its self-links. An index of every file was
  // ~50 MB of the heap at 100k notes, held through the whole relink of a build.
  const whole = pending?.index ?? (scope.all ? wholeIndexIfSmall(db) : fileIndexForNames(db, from));
  const pageIndex = (rows: LinkRow[]) =>
    fileIndexForKeys(
      db,
      rows.map((r) => r.name_key),
      rows.filter((r) => r.name_key === '').map((r) => r.from_path),
    );
  const anchors = anchorLookupFromDb(db);
  const update = db.prepare('UPDATE links SET status = ?, target = ?, resolution = ? WHERE id = ?');
  let done = 0;
  for (let last = 0; ; ) {
    const rows = page.all(last) as LinkRow[];
    if (rows.length === 0) break;
    const index = whole ?? pageIndex(rows);
    for (const row of rows) {
      const r = resolveLink(index, { kind: row.kind, path: row.path, subpath: row.subpath }, row.from_path, anchors);
      const json = JSON.stringify(r);
      if (json === row.resolution) continue;
      update.run(r.status, r.target, json, row.id);
      if (changedTargets) {
        if (row.target !== null) changedTargets.add(row.target);
        if (r.target !== null) changedTargets.add(r.target);
      }
    }
    done += rows.length;
    last = rows[rows.length - 1]!.id;
    onProgress?.(done, total);
  }
  return done;
}
