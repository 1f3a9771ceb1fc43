import { linesOf } from './lines.js';
import type { NoteModel, Range } from './types.js';

/**
 * What each line of a note is, block by block: the view a planner needs to say
 * where a new paragraph may go and an extractor to say which lines are prose.
 * Built from the note model (so lezer's reading of lists, tables, code and
 * comments is the one used) plus what the model does not record as ranges:
 * blank lines, heading lines, thematic breaks, and quotes (callouts are quotes
 * too) with their lazy continuation lines.
 *
 *   ---            frontmatter      > [!tip] A     quote
 *   a: 1           frontmatter      > body         quote
 *   ---            frontmatter      lazy line      quote   (continues the quote)
 *   # Title        heading                         blank
 *                  blank            - item         list
 *   Text…          prose            ```            code
 */
export type LineKind =
  | 'blank'
  | 'prose'
  | 'heading'
  | 'thematic'
  | 'quote'
  | 'list'
  | 'table'
  | 'frontmatter'
  | 'code'
  | 'html'
  | 'math'
  | 'comment';

const QUOTE_LINE = /^[ \t]{0,3}>/;
const THEMATIC_BREAK = /^ {0,3}([-*_])(?:[ \t]*\1){2,}[ \t]*$/;
/** Protected kinds that fill whole lines when they stand alone on them. */
const BLOCK_KINDS = new Set(['code', 'html', 'math', 'comment', 'frontmatter'] as const);

export interface LineBlocks {
  /** Kind of each line, 0-based (`kinds[l - 1]` for 1-based line l). */
  kinds: LineKind[];
  /** Offset of each line's end (before `\n` or `\r\n`). */
  lineEnds: number[];
}

export function lineBlocks(text: string, model: NoteModel): LineBlocks {
  const starts = model.lineStarts;
  const n = starts.length;
  const lineEnds = starts.map((s, i) => {
    let e = i + 1 < n ? starts[i + 1]! - 1 : text.length;
    if (e > s && text.charCodeAt(e - 1) === 13) e--;
    return e;
  });
  const kinds: LineKind[] = new Array(n).fill('prose');
  const mark = (r: Range, kind: LineKind) => {
    const { startLine, endLine } = linesOf(starts, r);
    for (let l = startLine; l <= endLine; l++) kinds[l - 1] = kind;
  };
  for (let i = 0; i < n; i++) {
    const line = text.slice(starts[i]!, lineEnds[i]!);
    if (line.trim() === '') kinds[i] = 'blank';
    else if (QUOTE_LINE.test(line)) kinds[i] = 'quote';
    else if (THEMATIC_BREAK.test(line)) kinds[i] = 'thematic';
  }
  for (const h of model.headings) mark(h.range, 'heading');
  for (const p of model.protected) {
    if (p.kind === 'table' || p.kind === 'list') mark(p.range, p.kind);
  }
  // Code, math or a comment nested in a list or quote is still what it is: marked after the containers.
  for (const p of model.protected) {
    if ((BLOCK_KINDS as Set<string>).has(p.kind) && standsAlone(text, p.range, starts, lineEnds)) mark(p.range, p.kind as LineKind);
  }
  // A line right after a quote line that would continue a paragraph continues the quote (lazy
  // continuation): prose, or a one-line comment, math or HTML span (inline to the parser).
  const oneLine = new Set<number>();
  for (const p of model.protected) {
    const { startLine, endLine } = linesOf(starts, p.range);
    if (startLine === endLine && (p.kind === 'comment' || p.kind === 'math' || p.kind === 'html')) oneLine.add(startLine - 1);
  }
  for (let i = 1; i < n; i++) {
    if (kinds[i - 1] !== 'quote') continue;
    if (kinds[i] === 'prose' || ((kinds[i] === 'comment' || kinds[i] === 'math' || kinds[i] === 'html') && oneLine.has(i))) kinds[i] = 'quote';
  }
  return { kinds, lineEnds };
}

/** A protected block that fills its lines: only whitespace (or quote markers) around it. */
function standsAlone(text: string, r: Range, starts: number[], lineEnds: number[]): boolean {
  const { startLine, endLine } = linesOf(starts, r);
  const before = text.slice(starts[startLine - 1]!, r.start);
  const after = text.slice(r.end, lineEnds[endLine - 1]!);
  return /^[ \t>]*$/.test(before) && after.trim() === '';
}

/** The 1-based line span of the run of `kind` lines around line `line`. */
export function blockAround(blocks: LineBlocks, line: number): [number, number] {
  const kind = blocks.kinds[line - 1]!;
  let a = line;
  let b = line;
  while (a > 1 && blocks.kinds[a - 2] === kind) a--;
  while (b < blocks.kinds.length && blocks.kinds[b] === kind) b++;
  return [a, b];
}
