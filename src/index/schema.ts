/**
 * The index schema. The database is a disposable cache (DESIGN §3): any change
 * here bumps {@link SCHEMA_VERSION}, and a file with another version is rebuilt
 * from the vault rather than migrated.
 *
 * `sections_fts` is a contentless FTS5 table (`contentless_delete=1`) whose rowid
 * is `sections.id`: its columns hold pipeline tokens (text-pipeline.ts), which are
 * of no use for display, so storing them a second time as external content would
 * only double the file. The original section text lives in `sections.text` and
 * snippets are cut from it in JS.
 */

/** Bump on any change to tables, columns or the text pipeline's output. */
export const SCHEMA_VERSION = 9;

/** `PRAGMA application_id`: 'VGIX'. A SQLite file without it is not ours and is never trusted. */
export const APPLICATION_ID = 0x56474958;

/** BM25 weights of the FTS columns, in column order: title, aliases, heading path, body. */
export const BM25_WEIGHTS = { title: 8, aliases: 6, heading: 3, body: 1 } as const;

export const SCHEMA_SQL = `
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
  kind      TEXT NOT NULL,                -- 'note' | 'attachment' | 'excluded' | 'unreadable'
  sha256    TEXT,                         -- notes only: hash of the bytes indexed
  title     TEXT,                         -- notes: basename without .md
  title_key TEXT,                         -- notes: normalized words of the title, for exact matches
  anchors   TEXT,                         -- notes: JSON {headings, blockIds, lineCount} for subpath checks
  frontmatter_error TEXT,                 -- JSON YamlError, or null
  warning   TEXT                          -- why an unreadable note is not indexed
) STRICT;

CREATE INDEX files_by_title_key ON files(title_key);
-- Re-resolving the links of a small change reads only the files sharing their names (relink.ts).
CREATE INDEX files_by_name ON files(name_key);
-- No index on kind: with two common values it is never selective, and without
-- statistics SQLite picked it over files_by_title_key (an exact-title lookup
-- scanned every note: 26 of the 10k-note search's milliseconds).
-- Unreadable notes are listed on every read (as warnings): a partial index finds
-- them without reading the table, and it is never a candidate for other queries.
CREATE INDEX files_unreadable ON files(path) WHERE kind = 'unreadable';

CREATE TABLE sections (
  id           INTEGER PRIMARY KEY,       -- also the rowid in sections_fts
  file_id      INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
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
  body_capped  INTEGER NOT NULL DEFAULT 0 -- 1 when only a prefix of the body is searchable
) STRICT;
CREATE INDEX sections_by_file ON sections(file_id, idx);

CREATE VIRTUAL TABLE sections_fts USING fts5(
  title, aliases, heading, body,
  content='', contentless_delete=1,
  tokenize='unicode61 remove_diacritics 2'
);
CREATE TRIGGER sections_fts_delete AFTER DELETE ON sections BEGIN
  DELETE FROM sections_fts WHERE rowid = old.id;
END;

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
CREATE INDEX links_by_file ON links(file_id, ord);
CREATE INDEX links_by_name ON links(name_key);
CREATE INDEX links_by_target ON links(target);

CREATE TABLE tags (
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  tag     TEXT NOT NULL,                  -- lower case, without '#'
  name    TEXT NOT NULL,                  -- as written
  line    INTEGER NOT NULL,
  source  TEXT NOT NULL
) STRICT;
CREATE INDEX tags_by_tag ON tags(tag);
CREATE INDEX tags_by_file ON tags(file_id);

CREATE TABLE aliases (
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  alias   TEXT NOT NULL,
  key     TEXT NOT NULL                   -- normalized words, for exact matching
) STRICT;
CREATE INDEX aliases_by_key ON aliases(key);
CREATE INDEX aliases_by_file ON aliases(file_id);

-- Frontmatter properties: one row per scalar, one per list element.
CREATE TABLE properties (
  file_id INTEGER NOT NULL REFERENCES files(id) ON DELETE CASCADE,
  key     TEXT NOT NULL,                  -- lower case
  value   TEXT NOT NULL,                  -- lower case, NFC; objects as JSON
  raw     TEXT NOT NULL                   -- JSON of the value as parsed
) STRICT;
CREATE INDEX properties_by_key ON properties(key, value);
CREATE INDEX properties_by_file ON properties(file_id);
`;
