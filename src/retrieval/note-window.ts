import crypto from 'node:crypto';
import { VaultgateError } from '../errors.js';
import type { NoteReadResult } from './note-read.js';

/**
 * A window of a long note: `note --max-chars N` returns at most N characters of
 * the text, cut at the end of a line, and a cursor that continues after it (a
 * note that fits is returned whole, with no `window`).
 * Agents' tool results are capped by their clients (an MCP client typically at
 * ~25k tokens), so a 300 KB note must come in pieces that say where they are.
 *
 * The cursor binds the offset to the file's hash and the requested heading: if
 * the note changed between two windows, continuing is refused (STALE_HASH) —
 * stitching windows of two versions together would give text that never existed.
 */

export interface NoteWindow {
  /** Offset of the window in the full text (or section), in characters (UTF-16 units). */
  from_char: number;
  /** Offset just after the window. */
  to_char: number;
  /** Characters of the full text (or section). */
  total_chars: number;
  /** Pass as `cursor` (same path and heading) for the next window; null at the end. */
  next_cursor: string | null;
}

/** The window size when only a cursor is given. */
export const DEFAULT_WINDOW_CHARS = 10_000;

const CURSOR = /^(\d{1,12})-([0-9a-f]{12})-([0-9a-f]{6})$/;

function headingTag(heading: string | undefined): string {
  return crypto.createHash('sha256').update(heading ?? '').digest('hex').slice(0, 6);
}

function cursorOf(offset: number, sha256: string, heading: string | undefined): string {
  return `${offset}-${sha256.slice(0, 12)}-${headingTag(heading)}`;
}

function countNewlines(s: string): number {
  let n = 0;
  for (let i = s.indexOf('\n'); i !== -1; i = s.indexOf('\n', i + 1)) n++;
  return n;
}

/**
 * Cut `read` to the window `cursor`/`maxChars` ask for. Without either, `read`
 * is returned unchanged (no `window` field). `heading` is the heading the read
 * was asked for, bound into the cursor.
 */
export function windowNote(read: NoteReadResult, opts: { maxChars?: number | undefined; cursor?: string | undefined; heading?: string | undefined }): NoteReadResult & { window?: NoteWindow } {
  if (opts.maxChars === undefined && opts.cursor === undefined) return read;
  const text = read.text;
  // A text that fits is returned whole, without a window: `window` means "this is part of it".
  if (opts.cursor === undefined && text.length <= opts.maxChars!) return read;
  let from = 0;
  if (opts.cursor !== undefined) {
    const m = CURSOR.exec(opts.cursor);
    if (!m || m[3] !== headingTag(opts.heading)) {
      throw new VaultgateError('USAGE', `${JSON.stringify(opts.cursor)} is not a cursor of ${read.path}${opts.heading ? ` #${opts.heading}` : ''}`, {
        hint: 'Pass window.next_cursor of the previous call, with the same path and heading.',
        details: { param: 'cursor' },
      });
    }
    if (m[2] !== read.sha256.slice(0, 12)) {
      throw new VaultgateError('STALE_HASH', `${read.path} changed since the previous window was read`, {
        path: read.path,
        hint: 'Read it again from the start (without cursor) and use the new sha256.',
        details: { sha256: read.sha256 },
      });
    }
    from = Number(m[1]);
    if (from > text.length) {
      throw new VaultgateError('USAGE', `cursor offset ${from} is past the end of ${read.path} (${text.length} characters)`, { details: { param: 'cursor' } });
    }
  }
  const max = opts.maxChars ?? DEFAULT_WINDOW_CHARS;
  let to = Math.min(text.length, from + max);
  if (to < text.length) {
    // End at a line end when one falls in the second half of the window; never split a surrogate pair.
    const nl = text.lastIndexOf('\n', to - 1);
    if (nl >= from + Math.floor(max / 2)) to = nl + 1;
    else if (to > from + 1 && /[\ud800-\udbff]/.test(text[to - 1]!)) to--;
  }
  const slice = text.slice(from, to);
  const startLine = read.lines[0] + countNewlines(text.slice(0, from));
  const endLine = startLine + countNewlines(slice.endsWith('\n') ? slice.slice(0, -1) : slice);
  return {
    ...read,
    text: slice,
    lines: [startLine, Math.min(endLine, read.lines[1])],
    window: { from_char: from, to_char: to, total_chars: text.length, next_cursor: to < text.length ? cursorOf(to, read.sha256, opts.heading) : null },
  };
}
