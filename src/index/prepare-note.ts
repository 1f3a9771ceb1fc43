import { isVaultgateError } from '../errors.js';
import { parseNote, type YamlError } from '../markdown/index.js';
import { decodeUtf8, readVaultBytes, readWalkedBytes, sha256Hex, type WalkedFile } from '../vault/index.js';
import { linkRows, noteRows, type LinkRow, type NoteRows } from './note-rows.js';

/**
 * Everything indexing needs from one note, computed without the database: read,
 * hash, parse, and the rows to insert. Pure data (structured-cloneable), so it can
 * be computed in a worker thread (parse-pool.ts) while the main thread writes.
 */

export interface PreparedNote {
  sha256: string;
  rows: NoteRows;
  /** The note's links in order, as their rows hold them. */
  links: LinkRow[];
  frontmatterError: YamlError | null;
}

export interface PrepareWarning {
  path: string;
  code: string;
  message: string;
}

export type Prepared = { note: PreparedNote } | { warning: PrepareWarning };

/**
 * Read a note's bytes as text with their hash; a bad file becomes a warning
 * (reads go on past it). A note the stat walk has just found (a
 * {@link WalkedFile}) is read where the walk saw it when it is still that
 * inode (readWalkedBytes), else like any other path.
 */
export function readNoteText(root: string, note: string | WalkedFile): { text: string; sha256: string } | { warning: PrepareWarning } {
  const path = typeof note === 'string' ? note : note.path;
  try {
    const bytes = (typeof note === 'string' ? null : readWalkedBytes(root, note)) ?? readVaultBytes(root, path).bytes;
    const { text } = decodeUtf8(bytes, path);
    return { text, sha256: sha256Hex(bytes) };
  } catch (e) {
    if (isVaultgateError(e)) return { warning: { path, code: e.code, message: e.message } };
    const err = e as NodeJS.ErrnoException;
    return { warning: { path, code: 'UNREADABLE', message: err.message ?? String(e) } };
  }
}

/** Parse decoded text into rows; a parser failure becomes a warning rather than stopping the whole index. */
export function prepareText(path: string, text: string, sha256: string): Prepared {
  try {
    const model = parseNote(text);
    return { note: { sha256, rows: noteRows(path, text, model), links: linkRows(model.links), frontmatterError: model.frontmatter?.error ?? null } };
  } catch (e) {
    return { warning: { path, code: 'PARSE_FAILED', message: `could not parse: ${(e as Error)?.message ?? String(e)}` } };
  }
}

export function prepareNote(root: string, note: string | WalkedFile): Prepared {
  const read = readNoteText(root, note);
  return 'warning' in read ? read : prepareText(typeof note === 'string' ? note : note.path, read.text, read.sha256);
}
