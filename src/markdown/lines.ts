import type { Lines, Range } from './types.js';

/**
 * Line bookkeeping: one sorted array of line-start offsets per note, and binary
 * search over it. Every element of the note model carries 1-based lines, so this
 * must stay O(log n) per lookup: a 2 MB note has few lines but a 40k-line note
 * has many elements.
 *
 * Only `\n` ends a line (a `\r\n` pair is one line ending; a lone `\r` is not),
 * matching both lezer and what editors show for CRLF files.
 */
export function computeLineStarts(text: string): number[] {
  const starts = [0];
  let i = text.indexOf('\n');
  while (i !== -1) {
    starts.push(i + 1);
    i = text.indexOf('\n', i + 1);
  }
  return starts;
}

/** 1-based line holding `offset` (an offset equal to the text length is on the last line). */
export function lineOf(lineStarts: readonly number[], offset: number): number {
  let lo = 0;
  let hi = lineStarts.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if ((lineStarts[mid] as number) <= offset) lo = mid;
    else hi = mid - 1;
  }
  return lo + 1;
}

/** 1-based column (UTF-16 units) of `offset` on its line. */
export function columnOf(lineStarts: readonly number[], offset: number): number {
  return offset - (lineStarts[lineOf(lineStarts, offset) - 1] as number) + 1;
}

/**
 * Lines spanned by a half-open range: the line of its first character and of its
 * last character (`end - 1`), so a range ending right after a `\n` does not claim
 * the next line. An empty range sits on the line of its start.
 */
export function linesOf(lineStarts: readonly number[], range: Range): Lines {
  const startLine = lineOf(lineStarts, range.start);
  const endLine = range.end > range.start ? lineOf(lineStarts, range.end - 1) : startLine;
  return { startLine, endLine };
}
