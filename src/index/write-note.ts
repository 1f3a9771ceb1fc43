import type Database from 'better-sqlite3';
import type { VaultFile } from '../vault/index.js';
import type { Db } from './db.js';
import { nameKey, noteTitle } from './note-rows.js';
import type { Prepared } from './prepare-note.js';
import { exactKeyOf } from './exact-key.js';
import type { InsertResolver } from './relink.js';
import { FTS_BIGRAMS, FTS_WORDS, sectionId, sectionRange } from './schema.js';

/** One file to (re)insert: a note (prepared, or with the warning why it could not be), or an attachment. */
export interface NoteWrite {
  file: VaultFile;
  kind: 'note' | 'attachment' | 'excluded';
  /** For notes: the prepared rows or a warning; null for attachments and excluded files. */
  prepared: Prepared | null;
}

/**
 * Statements are prepared once per connection: better-sqlite3 compiles SQL on
 * `prepare`, and a cold index inserts hundreds of thousands of rows. Ids come from
 * `lastInsertRowid`, not `RETURNING`: with better-sqlite3 12 a `RETURNING` insert
 * through `.get()` measured 8× slower per row (1.96 s vs 0.24 s for 34k sections).
 */
const cache = new WeakMap<Db, ReturnType<typeof prepare>>();

function prepare(db: Db) {
  return {
    file: db.prepare(
      `INSERT INTO files(path, disk_path, name_key, size, mtime_ms, ctime_ms, ino, dev, kind, sha256, title, title_key, anchors, description, frontmatter_error, warning)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    section: db.prepare(
      `INSERT INTO sections(id, file_id, idx, heading_path, level, start_line, end_line, start_offset, end_offset, text, part, parts, body_capped, empty, fts)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    fts: db.prepare('INSERT INTO sections_fts(rowid, title, aliases, heading, path, body) VALUES (?, ?, ?, ?, ?, ?)'),
    noteWords: db.prepare('INSERT INTO notes_fts(rowid, words) VALUES (?, ?)'),
    bigrams: db.prepare('INSERT INTO bigrams_fts(rowid, grams) VALUES (?, ?)'),
    link: db.prepare(
      `INSERT INTO links(file_id, ord, kind, raw, path, subpath, display, start_line, end_line, start_offset, end_offset,
                         in_comment, property, external, name_key, status, target, resolution)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    ),
    tag: db.prepare('INSERT INTO tags(file_id, tag, name, line, source) VALUES (?, ?, ?, ?, ?)'),
    alias: db.prepare('INSERT INTO aliases(file_id, alias, key) VALUES (?, ?, ?)'),
    property: db.prepare('INSERT INTO properties(file_id, key, value, raw) VALUES (?, ?, ?, ?)'),
  };
}

/**
 * Insert a file and everything derived from it; returns the number of sections.
 * The caller deleted any previous row for the path. Links are stored unresolved
 * (the refresh's relink resolves them) unless `resolve` answers for them now.
 */
export function insertNote(db: Db, w: NoteWrite, resolve?: InsertResolver): number {
  let st = cache.get(db);
  if (!st) cache.set(db, (st = prepare(db)));
  const { file } = w;
  const isNote = w.kind === 'note';
  const note = w.prepared && 'note' in w.prepared ? w.prepared.note : null;
  const warning = w.prepared && 'warning' in w.prepared ? w.prepared.warning : null;
  const kind = isNote && !note ? 'unreadable' : w.kind;
  const rows = isNote && note ? note.rows : null;
  const fm = note?.frontmatterError ?? null;
  const fileId = Number(
    st.file.run(
      file.path,
      file.diskPath,
      rows?.nameKey ?? nameKey(file.path),
      file.size,
      file.mtimeMs,
      file.ctimeMs,
      file.ino,
      file.dev,
      kind,
      note?.sha256 ?? null,
      isNote ? (rows?.title ?? noteTitle(file.path)) : null,
      isNote ? (rows?.titleKey ?? exactKeyOf(noteTitle(file.path))) : null,
      rows?.anchors ?? null,
      rows?.description || null,
      fm ? JSON.stringify(fm) : null,
      warning ? JSON.stringify(warning) : null,
    ).lastInsertRowid,
  );
  if (!rows || !note) return 0;
  for (const s of rows.sections) {
    const id = sectionId(fileId, s.idx);
    const fts = (s.fts ? FTS_WORDS : 0) | (s.bigrams ? FTS_BIGRAMS : 0);
    st.section.run(id, fileId, s.idx, s.headingPath, s.level, s.startLine, s.endLine, s.startOffset, s.endOffset, s.text, s.part, s.parts, s.bodyCapped ? 1 : 0, s.empty ? 1 : 0, fts);
    if (s.fts) st.fts.run(id, s.fts.title, s.fts.aliases, s.fts.heading, s.fts.path, s.fts.body);
    if (s.bigrams) st.bigrams.run(id, s.bigrams);
  }
  if (rows.noteWords !== null) st.noteWords.run(fileId, rows.noteWords);
  note.links.forEach((l, ord) => {
    const r = resolve?.({ kind: l[0], path: l[2], subpath: l[3], external: l[11] === 1 }, file.path) ?? null;
    st.link.run(fileId, ord, ...l, r?.status ?? null, r?.target ?? null, r ? JSON.stringify(r) : null);
  });
  for (const t of rows.tags) st.tag.run(fileId, t.tag, t.name, t.line, t.source);
  for (const a of rows.aliases) st.alias.run(fileId, a.alias, a.key);
  for (const p of rows.properties) st.property.run(fileId, p.key, p.value, p.raw);
  return rows.sections.length;
}

/**
 * Delete a file and everything derived from it: its sections and their FTS rows
 * by id range (one range per note, see schema.ts), the rest through the foreign
 * keys' cascades. Anchor rows of the note go too; the notes it linked to keep
 * theirs until the refresh rebuilds them (anchors.ts). Returns the number of
 * sections deleted.
 */
export function deleteFile(db: Db, fileId: number): number {
  let st = deletes.get(db);
  if (!st) {
    st = {
      rows: db.prepare('SELECT id, fts FROM sections WHERE id BETWEEN ? AND ?'),
      anchors: db.prepare('SELECT id FROM anchor_rows WHERE id BETWEEN ? AND ?'),
      words: db.prepare('DELETE FROM sections_fts WHERE rowid = ?'),
      noteWords: db.prepare('DELETE FROM notes_fts WHERE rowid = ?'),
      bigrams: db.prepare('DELETE FROM bigrams_fts WHERE rowid = ?'),
      anchor: db.prepare('DELETE FROM anchors_fts WHERE rowid = ?'),
      anchorRows: db.prepare('DELETE FROM anchor_rows WHERE id BETWEEN ? AND ?'),
      sections: db.prepare('DELETE FROM sections WHERE id BETWEEN ? AND ?'),
      file: db.prepare('DELETE FROM files WHERE id = ?'),
    };
    deletes.set(db, st);
  }
  const [lo, hi] = sectionRange(fileId);
  // Exact rowids: a rowid range in a contentless FTS5 table walks far more than the range.
  let words = false;
  for (const [id, fts] of st.rows.raw().all(lo, hi) as [number, number][]) {
    if (fts & FTS_WORDS) st.words.run(id);
    if (fts & FTS_BIGRAMS) st.bigrams.run(id);
    words ||= (fts & FTS_WORDS) !== 0;
  }
  // The note has a notes_fts row exactly when a section has a sections_fts row (note-rows.ts noteWords).
  if (words) st.noteWords.run(fileId);
  for (const id of st.anchors.pluck().all(lo, hi) as number[]) st.anchor.run(id);
  st.anchorRows.run(lo, hi);
  const sections = st.sections.run(lo, hi).changes;
  st.file.run(fileId);
  return sections;
}

type Statement = Database.Statement<unknown[]>;
const deletes = new WeakMap<Db, Record<'rows' | 'anchors' | 'words' | 'noteWords' | 'bigrams' | 'anchor' | 'anchorRows' | 'sections' | 'file', Statement>>();
