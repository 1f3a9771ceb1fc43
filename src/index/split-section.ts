import type { ProtectedRange, Range } from '../markdown/index.js';

/**
 * Oversized sections are split at paragraph boundaries (DESIGN §4), so a long
 * section can be retrieved, cited and fitted into a context budget piece by
 * piece. A boundary is the start of a line that follows a blank line; one inside
 * a table, list, code block, HTML block, math block or comment is not a boundary,
 * so those are never cut — a part may then be longer than the target.
 *
 *   ## Big            ← part 1 starts at the section start
 *   para one…
 *                     (blank line)
 *   para two…         ← a boundary: part 2 may start here
 */

/** Sections longer than this (UTF-16 units) are split into parts of about this size. */
export const MAX_SECTION_CHARS = 4000;

/** Multi-line structures a split must not enter. Inline kinds (links, inline code) never span a blank line. */
const UNCUTTABLE = new Set(['table', 'list', 'code', 'html', 'math', 'comment', 'frontmatter']);

/**
 * The parts of `text.slice(range.start, range.end)`, as half-open offset ranges
 * covering it exactly, in order. One part when the section is short or has no
 * usable boundary.
 */
export function splitSection(text: string, range: Range, protectedRanges: readonly ProtectedRange[], max = MAX_SECTION_CHARS): Range[] {
  if (range.end - range.start <= max) return [range];
  const blocks = protectedRanges.filter((p) => UNCUTTABLE.has(p.kind) && p.range.end > range.start && p.range.start < range.end);
  const inside = (offset: number) => blocks.some((p) => p.range.start < offset && offset < p.range.end);
  const boundaries: number[] = [];
  const blankLine = /\n[ \t]*\r?\n/g;
  blankLine.lastIndex = range.start;
  for (let m = blankLine.exec(text); m !== null && m.index < range.end; m = blankLine.exec(text)) {
    // The boundary is right after the blank line; runs of blank lines stay with the previous part.
    let at = m.index + m[0].length;
    while (at < range.end && /^[ \t]*\r?\n/.test(text.slice(at, at + 3))) {
      const nl = text.indexOf('\n', at);
      if (nl === -1) break;
      at = nl + 1;
    }
    blankLine.lastIndex = at;
    if (at > range.start && at < range.end && !inside(at)) boundaries.push(at);
  }
  const parts: Range[] = [];
  let start = range.start;
  let lastFit = -1;
  for (const b of boundaries) {
    if (b - start <= max) {
      lastFit = b;
      continue;
    }
    // `b` would overflow the part: cut at the last boundary that fit…
    if (lastFit > start) {
      parts.push({ start, end: lastFit });
      start = lastFit;
    }
    // …and if even then it overflows (one long paragraph or table), the part is long: cut at `b`.
    if (b - start <= max) lastFit = b;
    else {
      parts.push({ start, end: b });
      start = b;
      lastFit = -1;
    }
  }
  if (range.end - start > max && lastFit > start) {
    parts.push({ start, end: lastFit });
    start = lastFit;
  }
  parts.push({ start, end: range.end });
  return parts;
}
