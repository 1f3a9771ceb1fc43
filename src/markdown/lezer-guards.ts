/**
 * Linear guards for lezer's quadratic inline paths. Each is called from the
 * Obsidian inline dispatcher (obsidian-syntax.ts), which lezer tries before its
 * own parsers at every character; a guard either returns -1 (let lezer parse
 * as usual) or consumes the character as plain text / a simpler node, in
 * amortised linear time. Caches are per inline section (`InlineContext`).
 *
 * Measured before the guards (one inline section): 20k `[a](b)` 2.5 s, 50k
 * `*a* ]` 22 s, 30k unclosed `<!--` 1 s, a 1 MB line of growing backtick runs
 * 7.9 s. After: 0.47 s, 0.35 s, 33 ms, 47 ms.
 */
import type { InlineContext } from '@lezer/markdown';

const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const BACKTICK = 96;

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
