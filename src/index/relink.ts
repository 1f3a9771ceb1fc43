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

/** Headings and block ids of indexed notes, read from the stored JSON (no file is re-read). */
export function anchorLookupFromDb(db: Db): AnchorLookup {
  const get = db.prepare(`SELECT anchors FROM files WHERE path = ? AND kind = 'note'`).pluck();
  const cache = new Map<string, AnchorSource | null>();
  return (path) => {
    if (cache.has(path)) return cache.get(path)!;
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

export function relinkIndex(db: Db, scope: RelinkScope, onProgress?: (done: number, total: number) => void): number {
  const select = `SELECT l.id, l.kind, l.path, l.subpath, f.path AS from_path FROM links l JOIN files f ON f.id = l.file_id WHERE l.external = 0`;
  const rows = (
    scope.all
      ? db.prepare(select).all()
      : db
          .prepare(
            `${select} AND (l.status IS NULL
               OR l.name_key IN (SELECT value FROM json_each(?))
               OR l.target IN (SELECT value FROM json_each(?)))`,
          )
          .all(JSON.stringify([...scope.nameKeys]), JSON.stringify([...scope.targets]))
  ) as LinkRow[];
  if (rows.length === 0) return 0;
  const index = fileIndexFromDb(db);
  const anchors = anchorLookupFromDb(db);
  const update = db.prepare('UPDATE links SET status = ?, target = ?, resolution = ? WHERE id = ?');
  let done = 0;
  for (const row of rows) {
    const r = resolveLink(index, { kind: row.kind, path: row.path, subpath: row.subpath }, row.from_path, anchors);
    update.run(r.status, r.target, JSON.stringify(r), row.id);
    if (++done % 1000 === 0) onProgress?.(done, rows.length);
  }
  onProgress?.(done, rows.length);
  return rows.length;
}
