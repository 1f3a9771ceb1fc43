import type { Tone } from './format.js';
import { wrapRows } from './text.js';

/**
 * The scrolling body of the proposal view: the proposal's facts, its checks
 * and the whole unified diff, as lines that wrap to the screen's width. A
 * position is a line and a row inside it (a long paragraph of a note is one
 * diff line, and may be taller than the screen). Every function here wraps only
 * the lines it passes over, never the whole diff.
 */

export interface BodyLine {
  /** Printable text (see text.ts `printable`). */
  text: string;
  tone: Tone;
  /** [start, end) ranges of `text` to emphasise: the words that changed in a changed diff line (src/word-emphasis.ts). */
  em?: ReadonlyArray<readonly [number, number]>;
}

export interface BodyPos {
  line: number;
  row: number;
}

export const TOP: BodyPos = { line: 0, row: 0 };

/** A wrapped row, with the tone of its line; `cont` marks the rows after a line's first. */
export interface BodyRow {
  text: string;
  tone: Tone;
  cont: boolean;
  /** The line's emphasis that falls in this row, as [start, end) of the row's text. */
  em?: Array<[number, number]>;
}

/** The part of `em` (ranges of a line) inside the row that starts at `from` and is `length` long, relative to the row. */
function rowEmphasis(em: ReadonlyArray<readonly [number, number]> | undefined, from: number, length: number): Array<[number, number]> | undefined {
  if (!em) return undefined;
  const out: Array<[number, number]> = [];
  for (const [s, e] of em) {
    const a = Math.max(s, from);
    const b = Math.min(e, from + length);
    if (b > a) out.push([a - from, b - from]);
  }
  return out.length ? out : undefined;
}

function rowsOf(lines: readonly BodyLine[], i: number, width: number): string[] {
  return wrapRows(lines[i]!.text, width);
}

/** The position whose screenful ends with the body's last row (the bottom; `TOP` when it all fits). */
export function endPos(lines: readonly BodyLine[], width: number, height: number): BodyPos {
  let left = Math.max(1, height);
  for (let i = lines.length - 1; i >= 0; i--) {
    const n = rowsOf(lines, i, width).length;
    if (n >= left) return { line: i, row: n - left };
    left -= n;
  }
  return TOP;
}

function before(a: BodyPos, b: BodyPos): boolean {
  return a.line < b.line || (a.line === b.line && a.row < b.row);
}

/** `pos` moved by `delta` rows (down when positive), kept between the top and the bottom. */
export function scrollBy(lines: readonly BodyLine[], pos: BodyPos, delta: number, width: number, height: number): BodyPos {
  const end = endPos(lines, width, height);
  let { line, row } = before(end, pos) ? end : pos;
  if (delta > 0) {
    for (let k = 0; k < delta && before({ line, row }, end); k++) {
      const n = rowsOf(lines, line, width).length;
      if (row + 1 < n) row++;
      else (line++, (row = 0));
    }
    return before(end, { line, row }) ? end : { line, row };
  }
  for (let k = 0; k < -delta && (line > 0 || row > 0); k++) {
    if (row > 0) row--;
    else {
      line--;
      row = rowsOf(lines, line, width).length - 1;
    }
  }
  return { line, row };
}

/** Clamp a position after the lines or the width changed. */
export function clampPos(lines: readonly BodyLine[], pos: BodyPos, width: number, height: number): BodyPos {
  if (lines.length === 0) return TOP;
  const end = endPos(lines, width, height);
  if (before(end, pos)) return end;
  const n = rowsOf(lines, pos.line, width).length;
  return pos.row < n ? pos : { line: pos.line, row: n - 1 };
}

/** The rows a screen of `height` shows from `pos`. */
export function visibleRows(lines: readonly BodyLine[], pos: BodyPos, width: number, height: number): BodyRow[] {
  const out: BodyRow[] = [];
  for (let i = pos.line; i < lines.length && out.length < height; i++) {
    const rows = rowsOf(lines, i, width);
    // the rows joined are the line (text.ts wrapRows), so a row's place in the line is the length of those before it
    let from = 0;
    for (let r = 0; r < (i === pos.line ? pos.row : 0); r++) from += rows[r]!.length;
    for (let r = i === pos.line ? pos.row : 0; r < rows.length && out.length < height; r++) {
      const em = rowEmphasis(lines[i]!.em, from, rows[r]!.length);
      out.push({ text: rows[r]!, tone: lines[i]!.tone, cont: r > 0, ...(em ? { em } : {}) });
      from += rows[r]!.length;
    }
  }
  return out;
}
