/**
 * The index schema. The database is a disposable cache (DESIGN §3): any change
 * here bumps {@link SCHEMA_VERSION}, and a file with another version is rebuilt
 * from the vault rather than migrated.
 *
 * Four contentless FTS5 tables (`contentless_delete=1`) hold pipeline tokens
 * (text-pipeline.ts), which are of no use for display, so storing them a second
 * time as external content would only double the file; the original section
 * text lives in `sections.text` and snippets are cut from it in JS:
 *
 * - `sections_fts`: what a section says (title, aliases, own heading, the
 *   headings above it, body), one row per section that has words of its own;
 * - `anchors_fts`: what other notes say about a section or a note (the text and
 *   target of the links into it) and the string values of the note's frontmatter;
 * - `bigrams_fts`: character bigrams of a section's CJK text, searched only when
 *   the words of a question find nothing (retrieval/query.ts);
 * - `notes_fts`: which words a note holds in any of its sections (the distinct
 *   tokens of its `sections_fts` rows), with `detail=none`: rowids only, no
 *   positions. A common word's doclist there is a few bytes per note, so
 *   counting the notes a question matches (`total`) and checking which notes
 *   hold each word (coverage, retrieval/rank.ts) read it instead of walking every
 *   section's positions (at 100k notes, four common words: 5 ms instead of
 *   10; with the anchor rows, `total` takes 13 ms instead of 19).
 *
 * Row ids: a section's id is `file id × 2^20 + its index in the note`
 * ({@link sectionId}). So the sections of a note are one id range (deleted,
 * scored and counted by range, with no join), and a query can count the notes
 * matching it from FTS rowids alone (`rowid >> 20`). The note-level anchor row
 * of a note is the last id of its range ({@link NOTE_SLOT}).
 */

/**
 * Bump on any change to tables, columns or the text pipeline's output.
 * (Not bumped when the unused `term_neighbours` table left the schema with the
 * term-association experiment, eval/README.md: nothing reads or writes it, so a
 * version-13 file that still has it is as good as one without it.)
 */
export const SCHEMA_VERSION = 13;

/** `PRAGMA application_id`: 'VGIX'. A SQLite file without it is not ours and is never trusted. */
export const APPLICATION_ID = 0x56474958;

/** Bits of a section id that hold its index in the note. */
export const SECTION_BITS = 20;
/** The index in a note's id range reserved for its note-level anchor row. */
export const NOTE_SLOT = 2 ** SECTION_BITS - 1;
/** Sections per note: the rest of an (absurd) note is merged into its last section. */
export const MAX_SECTIONS_PER_NOTE = NOTE_SLOT;

/** The id of section `idx` of the file with id `fileId`. */
export function sectionId(fileId: number, idx: number): number {
  return fileId * 2 ** SECTION_BITS + idx;
}

/** The FTS5 tables (merge settings, optimize and integrity checks go through each). */
export const FTS_TABLES = ['sections_fts', 'notes_fts', 'anchors_fts', 'bigrams_fts'] as const;

/** `sections.fts` bits: the section has a row in sections_fts / in bigrams_fts. */
export const FTS_WORDS = 1;
export const FTS_BIGRAMS = 2;

/** The id range [lo, hi] of a file's sections, note-level anchor row included. */
export function sectionRange(fileId: number): [number, number] {
  return [sectionId(fileId, 0), sectionId(fileId, NOTE_SLOT)];
}

/**
 * Tables, without their secondary indexes ({@link INDEXES_SQL}). A brand-new
 * index is bulk-loaded first and indexed after (refresh.ts): building a B-tree
 * from sorted keys once is cheaper than keeping it ordered through 100k inserts.
 */
export const TABLES_SQL = `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;

-- Every file the scanner sees (notes and attachments): link resolution needs them all.
CREATE TABLE files (
  id        INTEGER PRIMARY KEY,
  path      TEXT NOT NULL UNIQUE,         -- canonical vault path, NFC
  disk_path TEXT NOT NULL,                -- as spelled on disk
  name_key  TEXT NOT NULL,                -- folded basename without .md: which links may point here
  size      INTEGER NOT NULL,             -- bytes
  mtime_ms  REAL NOT NULL,
  -- With size and mtime, the unchanged-file test (refresh.ts): an mtime put back
  -- (touch -r, cp -p, rsync -t) still changes ctime, a file put in its place has
  -- another inode. REAL, not INTEGER: a 64-bit inode or device number comes
  -- from fs.Stats as a double, and is compared as one.
  ctime_ms  REAL NOT NULL,
  ino       REAL NOT NULL,
  dev       REAL NOT NULL,
  kind      TEXT NOT NULL,                -- 'note' | 'attachment' | 'excluded' | 'unreadable'
  sha256    TEXT,                         -- notes only: hash of the bytes indexed
  title     TEXT,                         -- notes: basename without .md
  title_key TEXT,                         -- notes: normalized words of the title, for exact matches
  anchors   TEXT,                         -- notes: JSON {headings, blockIds, lineCount} for subpath checks
  description TEXT,                       -- notes: pipeline tokens of the frontmatter's string values (anchors.ts), or null
  frontmatter_error TEXT,                 -- JSON YamlError, or null
  warning   TEXT                          -- why an unreadable note is not indexed
) STRICT;

-- Deleted with their file by id range (refresh.ts), not by a foreign key: a
-- cascade would need an index on file_id, which the id ranges make unnecessary.
CREATE TABLE sections (
  id           INTEGER PRIMARY KEY,       -- file_id * 2^20 + idx (schema.ts sectionId); the rowid in the FTS tables
  file_id      INTEGER NOT NULL,
  idx          INTEGER NOT NULL,          -- position in the note, 0-based
  heading_path TEXT NOT NULL,             -- JSON array of heading texts, outermost first
  level        INTEGER NOT NULL,          -- heading level, 0 for the preamble
  start_line   INTEGER NOT NULL,          -- 1-based, inclusive
  end_line     INTEGER NOT NULL,
  start_offset INTEGER NOT NULL,          -- UTF-16 units in the decoded note, half-open
  end_offset   INTEGER NOT NULL,
  text         TEXT NOT NULL,             -- the section's source text, for display
  part         INTEGER NOT NULL,          -- an oversized section split at paragraphs: part k of parts
  parts        INTEGER NOT NULL,
  body_capped  INTEGER NOT NULL DEFAULT 0, -- 1 when only a prefix of the body is searchable
  -- 1 when the section has no words of its own (a heading whose content is all in
  -- subsections, or nothing at all): never a hit or evidence; it has no sections_fts row
  empty        INTEGER NOT NULL DEFAULT 0,
  -- which FTS rows it has (FTS_WORDS | FTS_BIGRAMS): deleted by exact rowid, which
  -- is ~70x cheaper than a rowid range in a contentless FTS5 table
  fts          INTEGER NOT NULL DEFAULT 0
) STRICT;

-- The rows of anchors_fts (anchors.ts), so they are deleted by exact rowid too.
CREATE TABLE anchor_rows (
  id INTEGER PRIMARY KEY
) STRICT;

CREATE VIRTUAL TABLE sections_fts USING fts5(
  title, aliases, heading, path, body,
  content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE anchors_fts USING fts5(
  text,
  content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2'
);
-- The terms of sections_fts with the number of rows holding each (read-only,
-- kept by FTS5 itself): the vocabulary a question's words are checked against (retrieval/bridge.ts).
CREATE VIRTUAL TABLE sections_vocab USING fts5vocab(sections_fts, 'row');
-- One row per note with a sections_fts row (rowid: the file id); no phrases, no bm25.
CREATE VIRTUAL TABLE notes_fts USING fts5(
  words,
  content='', contentless_delete=1, detail=none,
  tokenize='unicode61 remove_diacritics 2'
);
CREATE VIRTUAL TABLE bigrams_fts USING fts5(
  grams,
  content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 0'
);

CREATE TABLE links (
  id           INTEGER PRIMARY KEY,
  file_id      INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  ord          INTEGER NOT NULL,          -- order in the note
  kind         TEXT NOT NULL,             -- wikilink | embed | markdown | frontmatter
  raw          TEXT NOT NULL,
  path         TEXT NOT NULL,
  subpath      TEXT,
  display      TEXT,
  start_line   INTEGER NOT NULL,
  end_line     INTEGER NOT NULL,
  start_offset INTEGER NOT NULL,
  end_offset   INTEGER NOT NULL,
  in_comment   INTEGER NOT NULL,
  property     TEXT,
  external     INTEGER NOT NULL,          -- a Markdown link with a URL scheme: not a vault link
  name_key     TEXT NOT NULL,             -- folded basename of the path part without .md
  status       TEXT,                      -- resolved | ambiguous | unresolved | unindexed (null: external)
  target       TEXT,
  resolution   TEXT                       -- JSON LinkResolution
) STRICT;

CREATE TABLE tags (
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  tag     TEXT NOT NULL,                  -- lower case, without '#'
  name    TEXT NOT NULL,                  -- as written
  line    INTEGER NOT NULL,
  source  TEXT NOT NULL
) STRICT;

CREATE TABLE aliases (
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  alias   TEXT NOT NULL,
  key     TEXT NOT NULL                   -- normalized words, for exact matching
) STRICT;

-- Frontmatter properties: one row per scalar, one per list element.
CREATE TABLE properties (
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  key     TEXT NOT NULL,                  -- lower case
  value   TEXT NOT NULL,                  -- lower case, NFC; objects as JSON
  raw     TEXT NOT NULL                   -- JSON of the value as parsed
) STRICT;
`;

/**
 * Secondary indexes, created once the first load of a new index is in (or at
 * the end of its first refresh, whatever it held); `meta.indexes` says whether
 * they exist.
 */
export const INDEXES_SQL = `
CREATE INDEX files_by_title_key ON files(title_key);
-- Re-resolving the links of a small change reads only the files sharing their names (relink.ts).
CREATE INDEX files_by_name ON files(name_key);
-- No index on kind: with two common values it is never selective, and without
-- statistics SQLite picked it over files_by_title_key (an exact-title lookup
-- scanned every note: 26 of the 10k-note search's milliseconds).
-- Unreadable notes are listed on every read (as warnings): a partial index finds
-- them without reading the table, and it is never a candidate for other queries.
CREATE INDEX files_unreadable ON files(path) WHERE kind = 'unreadable';
CREATE INDEX links_by_file ON links(file_id, ord);
CREATE INDEX links_by_name ON links(name_key);
CREATE INDEX links_by_target ON links(target);
CREATE INDEX tags_by_tag ON tags(tag);
CREATE INDEX tags_by_file ON tags(file_id);
CREATE INDEX aliases_by_key ON aliases(key);
CREATE INDEX aliases_by_file ON aliases(file_id);
CREATE INDEX properties_by_key ON properties(key, value);
CREATE INDEX properties_by_file ON properties(file_id);
`;
