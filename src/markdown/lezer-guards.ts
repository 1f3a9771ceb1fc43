/**
 * Linear guards for lezer's superlinear paths. The inline guards are called
 * from the Obsidian inline dispatcher (obsidian-syntax.ts), which lezer tries
 * before its own parsers at every character; a guard either returns -1 (let
 * lezer parse as usual) or consumes the character as plain text / a simpler
 * node, in amortised linear time. Caches are per inline section
 * (`InlineContext`). The block guard ({@link guardDeepNesting}) bounds how deep
 * containers nest.
 *
 * Measured before the inline guards (one inline section): 20k `[a](b)` 2.5 s, 50k
 * `*a* ]` 22 s, 30k unclosed `<!--` 1 s, a 1 MB line of growing backtick runs
 * 7.9 s. After: 0.47 s, 0.35 s, 33 ms, 47 ms. Spaces and nesting: see
 * {@link guardSpaces} and {@link MAX_CONTAINER_DEPTH}.
 */
import type { BlockContext, InlineContext, Line } from '@lezer/markdown';

const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const BACKTICK = 96;
const SPACE = 32;
const NEWLINE = 10;

/**
 * Above this many `[` and `]` in one inline section (a paragraph, heading or
 * cell), lezer's own link machinery is switched off for that section: it is
 * quadratic in the brackets of a section (20k `[a](b)` in one paragraph: 2.5 s;
 * 50k `*a* ]`: 22 s; 40k nested `[`: 3 s). Such sections get the plain,
 * linear reading of `[text](dest)` below; other sections are untouched.
 */
const MAX_LEZER_BRACKETS = 1000;
const manyBrackets = new WeakMap<InlineContext, boolean>();

export function bracketsOff(cx: InlineContext): boolean {
  let off = manyBrackets.get(cx);
  if (off === undefined) {
    let n = 0;
    const t = cx.text;
    for (let i = 0; i < t.length && n <= MAX_LEZER_BRACKETS; i++) {
      const c = t.charCodeAt(i);
      if (c === OPEN_BRACKET || c === CLOSE_BRACKET) n++;
    }
    off = n > MAX_LEZER_BRACKETS;
    manyBrackets.set(cx, off);
  }
  return off;
}

/** `[text](dest "title")` / `![alt](dest)` without nesting; each try stops at the next bracket or line end. */
const SIMPLE_LINK = /!?\[([^\[\]\n]*)\]\((<[^<>\n]*>|[^()\s<>\[\]]*)(?:[ \t]+"[^"\n]*")?[ \t]*\)/y;

/** The linear stand-in for lezer's links in a bracket-heavy section: same node shape (marks, URL). */
export function parseSimpleLink(cx: InlineContext, pos: number): number {
  SIMPLE_LINK.lastIndex = pos - cx.offset;
  const m = SIMPLE_LINK.exec(cx.text);
  if (!m) return pos + 1; // a stray bracket is text
  const image = m[0].startsWith('!');
  const open = image ? 2 : 1;
  const labelEnd = pos + open + (m[1] as string).length;
  const urlFrom = labelEnd + 2;
  const urlTo = urlFrom + (m[2] as string).length;
  const end = pos + m[0].length;
  return cx.addElement(
    cx.elt(image ? 'Image' : 'Link', pos, end, [
      cx.elt('LinkMark', pos, pos + open),
      cx.elt('LinkMark', labelEnd, labelEnd + 1),
      cx.elt('LinkMark', labelEnd + 1, labelEnd + 2),
      cx.elt('URL', urlFrom, urlTo),
      cx.elt('LinkMark', end - 1, end),
    ]),
  );
}

/**
 * Per inline section and marker, the last search: the first `marker` at or
 * after `from` (an index in `cx.text`), or -1 for none.
 */
const markerSearch = new WeakMap<InlineContext, Map<string, { from: number; found: number }>>();

/** Whether `marker` occurs at or after `from`: amortised linear over a section's queries. */
function hasAhead(cx: InlineContext, marker: string, from: number): boolean {
  let searches = markerSearch.get(cx);
  if (!searches) markerSearch.set(cx, (searches = new Map()));
  const last = searches.get(marker);
  if (last && last.from <= from && (last.found === -1 || last.found >= from)) return last.found !== -1;
  const found = cx.text.indexOf(marker, from);
  searches.set(marker, { from, found });
  return found !== -1;
}

/**
 * Guard for lezer's inline HTML parser, which re-scans the rest of the section
 * at every `<`: an unclosed `<!--` (or `<?`, `<![CDATA[`) repeated 30k times
 * took 1-2 s. When the terminator the form needs is nowhere ahead, the `<` is
 * plain text and lezer never sees it; otherwise lezer parses as usual.
 */
export function guardHtml(cx: InlineContext, pos: number): number {
  const rel = pos - cx.offset;
  const t = cx.text;
  let terminator = '>';
  if (t.startsWith('<!--', rel)) terminator = '-->';
  else if (t.startsWith('<?', rel)) terminator = '?>';
  else if (t.startsWith('<![CDATA[', rel)) terminator = ']]>';
  return hasAhead(cx, terminator, rel + 2) ? -1 : pos + 1;
}

/** Per inline section: for each backtick-run length, the sorted start indices of such runs. */
const backtickRuns = new WeakMap<InlineContext, Map<number, number[]>>();

function runsOf(cx: InlineContext): Map<number, number[]> {
  let runs = backtickRuns.get(cx);
  if (!runs) {
    runs = new Map();
    const t = cx.text;
    for (let i = t.indexOf('`'); i !== -1; i = t.indexOf('`', i)) {
      let j = i;
      while (t.charCodeAt(j) === BACKTICK) j++;
      const list = runs.get(j - i);
      if (list) list.push(i);
      else runs.set(j - i, [i]);
      i = j;
    }
    backtickRuns.set(cx, runs);
  }
  return runs;
}

/**
 * Guard for lezer's inline code parser, which scans to the end of the section
 * for a closing run of the same length: runs of ever-growing length never
 * close, which made a 1 MB line take 8 s. A run with no equal run ahead is
 * plain text (as CommonMark says); otherwise lezer parses it as usual.
 */
export function guardInlineCode(cx: InlineContext, pos: number): number {
  const rel = pos - cx.offset;
  if (rel > 0 && cx.text.charCodeAt(rel - 1) === BACKTICK) return -1;
  let end = rel;
  while (cx.text.charCodeAt(end) === BACKTICK) end++;
  const starts = runsOf(cx).get(end - rel) ?? [];
  // Binary search for a run of the same length starting after this one.
  let lo = 0;
  let hi = starts.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if ((starts[mid] as number) <= rel) lo = mid + 1;
    else hi = mid;
  }
  return lo < starts.length ? -1 : cx.offset + end;
}

/**
 * Guard for lezer's hard-break parser, which at every space scans the run of
 * spaces after it for a line end: a run of n spaces cost n^2 (the indentation
 * of a deeply nested note, once it is plain text, has runs of thousands). A run
 * that ends a line with two or more spaces is left to lezer, from its first
 * space, so the hard break is the same node; any other run is plain text.
 */
export function guardSpaces(cx: InlineContext, pos: number): number {
  const t = cx.text;
  const rel = pos - cx.offset;
  let end = rel + 1;
  while (t.charCodeAt(end) === SPACE) end++;
  return t.charCodeAt(end) === NEWLINE && end - rel >= 2 ? -1 : cx.offset + end;
}

/**
 * Deepest container nesting lezer parses as containers: the block stack (the
 * document, each quote, each list and each list item count one) may hold this
 * many entries. Nesting is cheap up to here: real notes rarely go past ten list
 * levels, and 64 entries is 31 list levels or 63 quote levels.
 *
 * Why a bound: lezer re-checks every open container on every line, and a list
 * item finds its column by counting from the start of the line, so a note of
 * items each nested one level deeper costs depth^3 (issue 7 defect 4: a 4 MB
 * note of 2,000 levels took 27 s in `note`). Past the bound, a line that would
 * open one more quote or list, and the lines after it up to the next blank line
 * or the end of the enclosing container, are one paragraph of plain text: its
 * inline syntax (links, tags, code) is parsed as usual, its `>`, `-` and `1.`
 * markers are text.
 *
 * Measured with `npm run bench -- nesting` (parseNote alone, one process per
 * note; 2 shared cores under a load of ~12, so the figures are noisy; seconds):
 *   depth              500    1,000   2,000    3,000
 *   list   before      0.38   1.74    22.1     102
 *          after       0.23   0.31     0.33      0.80
 *   quote  before      1.19   4.22    14.6      52.8
 *          after       0.25   0.32     1.17      1.64
 *   mix    before      2.74   6.75    64.7      out of memory (4 GB heap)
 *          after       0.93   1.16     3.14      4.87
 * (a list 3,000 deep is 9 MB; after, time follows the length of the note).
 */
export const MAX_CONTAINER_DEPTH = 64;

/** Whether the line's next block would open a quote or a list (CommonMark's markers). */
function opensContainer(line: Line): boolean {
  const c = line.next;
  const t = line.text;
  const after = (i: number) => i >= t.length || t.charCodeAt(i) === 32 || t.charCodeAt(i) === 9;
  if (c === 62 /* > */) return true;
  if (c === 45 || c === 43 || c === 42 /* - + * */) return after(line.pos + 1);
  let i = line.pos;
  while (i < t.length && i - line.pos < 9 && t.charCodeAt(i) >= 48 && t.charCodeAt(i) <= 57) i++;
  if (i === line.pos) return false;
  const d = t.charCodeAt(i);
  return (d === 46 || d === 41) /* . ) */ && after(i + 1);
}

/**
 * Block parser run before lezer's container parsers: beyond
 * {@link MAX_CONTAINER_DEPTH}, a container opener starts a plain paragraph
 * instead (see there). Lines are taken while they continue every open
 * container and are not blank; the paragraph's text is the document's own
 * (outer `>` markers on later lines included), so every position stays a
 * document position.
 */
export function guardDeepNesting(cx: BlockContext, line: Line): boolean {
  if (cx.depth < MAX_CONTAINER_DEPTH || !opensContainer(line)) return false;
  const depth = cx.depth;
  const from = cx.lineStart + line.pos;
  let text = line.text.slice(line.pos);
  // `Line.depth` (contexts the line continues) is not in the typings; FencedCode reads it too.
  while (cx.nextLine() && (line as unknown as { depth: number }).depth >= depth && line.pos < line.text.length) {
    text += '\n' + line.text;
  }
  cx.addElement(cx.elt('Paragraph', from, from + text.length, cx.parser.parseInline(text, from)));
  return true;
}
