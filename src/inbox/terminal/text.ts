import stringWidth from 'string-width';
import { visibleText } from '../../visible-text.js';

/**
 * Text as a terminal cell grid shows it. Everything the inbox draws comes from
 * agents (titles, paths, note text), so it is made inert first: a title holding
 * `ESC [2J` must not clear the person's screen, and a bidi override (U+202E)
 * must not make a diff line read differently from what it does ("Trojan
 * Source"). Then long lines are cut into rows of the screen's width, counted in
 * cells (a CJK character or an emoji takes two), only for the rows on screen:
 * measuring every line of a 40,000-line diff at once would take seconds.
 */

/** Spaces a tab becomes (no tab stops: a diff line's first column is its marker). */
const TAB = '    ';

/**
 * `s` with every control, format (bidi controls, marks, zero-width characters)
 * and line-separator character shown as its code (`<U+001B>`), by the one
 * function every face uses (src/visible-text.ts); tabs as spaces.
 */
export function printable(s: string): string {
  return visibleText(s).replace(/\t/g, TAB);
}

const ASCII_PRINTABLE = /^[\u0020-\u007e]*$/;

/** Terminal cells `s` takes (after {@link printable}). */
export function cellWidth(s: string): number {
  return ASCII_PRINTABLE.test(s) ? s.length : stringWidth(s);
}

const graphemes = new Intl.Segmenter(undefined, { granularity: 'grapheme' });

/**
 * Cut a line into rows of at most `width` cells, at word boundaries: a row
 * ends after a run of spaces, so a path or a word is never split between rows
 * (issue 21 §4) — unless it is longer than a whole row, which then breaks
 * where the screen ends, as `less` does. Nothing is dropped: the rows joined
 * are the line (the spaces a row ends with stay on it), so a column in the
 * line is a column in its rows. A character wider than the whole row (width 1,
 * an emoji) gets a row of its own. An empty line is one empty row.
 */
export function wrapRows(line: string, width: number): string[] {
  const w = Math.max(1, width);
  const ascii = ASCII_PRINTABLE.test(line);
  if (ascii ? line.length <= w : stringWidth(line) <= w) return [line];
  const rows: string[] = [];
  let row = '';
  let used = 0;
  // where the row may end: after the last space run, with the cells up to there
  let breakAt = 0;
  let usedAtBreak = 0;
  const parts: Iterable<string> = ascii ? line : (function* () {
    for (const { segment } of graphemes.segment(line)) yield segment;
  })();
  for (const g of parts) {
    const cells = ascii || ASCII_PRINTABLE.test(g) ? g.length : stringWidth(g);
    const space = g === ' ' || g === '\t';
    if (used + cells > w && row !== '') {
      if (!space && breakAt > 0 && breakAt < row.length) {
        // end the row after its last space run; the word being written moves down whole
        rows.push(row.slice(0, breakAt));
        row = row.slice(breakAt);
        used -= usedAtBreak;
      } else {
        // a space past the end (it starts the next row), or a word as long as the row
        rows.push(row);
        row = '';
        used = 0;
      }
      breakAt = 0;
      usedAtBreak = 0;
      if (used + cells > w && row !== '') {
        // a word longer than a whole row: broken where the screen ends
        rows.push(row);
        row = '';
        used = 0;
      }
    }
    row += g;
    used += cells;
    if (space) {
      breakAt = row.length;
      usedAtBreak = used;
    }
  }
  rows.push(row);
  return rows;
}

/** The first row of `s` cut hard at `width` cells (for a cut that ends in `…`: no word boundary to look for). */
function hardHead(s: string, width: number): string {
  let row = '';
  let used = 0;
  for (const { segment } of graphemes.segment(s)) {
    const cells = ASCII_PRINTABLE.test(segment) ? segment.length : stringWidth(segment);
    if (used + cells > width && row !== '') break;
    row += segment;
    used += cells;
  }
  return row;
}

/** `s` cut to `width` cells, ending in `…` when it was longer. */
export function truncate(s: string, width: number): string {
  if (width <= 0) return '';
  if (cellWidth(s) <= width) return s;
  // wrapRows gives a row at least one character wide (a wide character even two
  // cells): with no room for it (width 1, or a wide first character in 2) only `…` fits
  const head = width > 1 ? hardHead(s, width - 1) : '';
  return (cellWidth(head) <= width - 1 ? head : '') + '…';
}

/** `s` padded with spaces (or cut) to exactly `width` cells. */
export function fit(s: string, width: number): string {
  const t = truncate(s, width);
  return t + ' '.repeat(Math.max(0, width - cellWidth(t)));
}
