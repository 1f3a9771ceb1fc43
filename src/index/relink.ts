import { buildFileIndex, type FileIndex } from '../links/index.js';
import { resolveLink, type AnchorLookup } from '../links/index.js';
import type { AnchorSource } from '../links/index.js';
import type { LinkKind } from '../markdown/index.js';
import type { Db } from './db.js';

/**
 * Which stored links must be resolved again after a refresh changed some files.
 *
 * A link's answer depends on (a) the set of files whose name it could match and
 * (b) the headings/blocks of its target. So after a change we recompute:
 * - links never resolved yet (just inserted with their note);
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

interface LinkRow {
  id: number;
  kind: LinkKind;
  path: string;
  subpath: string | null;
  from_path: string;
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
  const rows = db.prepare('SELECT path, kind FROM files').all() as { path: string; kind: string }[];
  return buildFileIndex(rows.map((r) => ({ path: r.path, indexed: r.kind !== 'excluded' })));
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

/** Links resolved per batch: bounded memory however many links a vault has (100k notes ≈ 350k links). */
const RELINK_BATCH = 5000;

export function relinkIndex(db: Db, scope: RelinkScope, onProgress?: (done: number, total: number) => void): number {
  const from = `FROM links l JOIN files f ON f.id = l.file_id WHERE l.external = 0${
    scope.all
      ? ''
      : ` AND (l.status IS NULL
           OR l.name_key IN (SELECT value FROM json_each(?))
           OR l.target IN (SELECT value FROM json_each(?)))`
  }`;
  const params = scope.all ? [] : [JSON.stringify([...scope.nameKeys]), JSON.stringify([...scope.targets])];
  const total = db.prepare(`SELECT count(*) ${from}`).pluck().get(...params) as number;
  if (total === 0) return 0;
  const page = db.prepare(`SELECT l.id, l.kind, l.path, l.subpath, f.path AS from_path ${from} AND l.id > ? ORDER BY l.id LIMIT ${RELINK_BATCH}`);
  const index = fileIndexFromDb(db);
  const anchors = anchorLookupFromDb(db);
  const update = db.prepare('UPDATE links SET status = ?, target = ?, resolution = ? WHERE id = ?');
  let done = 0;
  for (let last = 0; ; ) {
    const rows = page.all(...params, last) as LinkRow[];
    if (rows.length === 0) break;
    for (const row of rows) {
      const r = resolveLink(index, { kind: row.kind, path: row.path, subpath: row.subpath }, row.from_path, anchors);
      update.run(r.status, r.target, JSON.stringify(r), row.id);
    }
    done += rows.length;
    last = rows[rows.length - 1]!.id;
    onProgress?.(done, total);
  }
  return done;
}
