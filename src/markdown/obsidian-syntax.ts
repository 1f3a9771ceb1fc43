/**
 * The small lezer extension that teaches CommonMark+GFM the Obsidian syntax the
 * note model needs. Nodes it adds (read back by collect-elements.ts):
 *
 * - `Wikilink` `[[…]]` and `Embed` `![[…]]`: one node each, so lezer's own link
 *   parser never sees the brackets and `[[x\|y]]` in a table stays whole (the
 *   GFM table splitter already skips `\|`).
 * - `ObsidianCommentBlock` lines from a `%%` line to the line holding the closing `%%`
 *   (unclosed: to the end of the container), and `ObsidianComment` `%%…%%` inside a
 *   paragraph. Their text is not parsed here; links inside are found by a plain
 *   scan and flagged `inComment` (Obsidian records them).
 * - `MathBlock` `$$ … $$` and `InlineMath` `$…$` / `$$…$$`: no links, no tags inside.
 * - `Tag` `#tag` after whitespace or at the start of inline text.
 *
 * Every scan is bounded by the line or by the next opener, so a 2 MB line stays
 * linear. Inline parsers run on lezer's inline text, where container markers
 * (`>`) are already blanked out, so positions are document positions.
 */
import type { BlockContext, InlineContext, Line, MarkdownConfig } from '@lezer/markdown';
import { findWikilinkClose } from './link-parts.js';

const BANG = 33;
const HASH = 35;
const DOLLAR = 36;
const PERCENT = 37;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const LESS_THAN = 60;
const BACKTICK = 96;
const NEWLINE = 10;

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13;
}

/** Index (in `s`) of `marker` after `from`, or -1. */
function indexIn(s: string, marker: string, from: number): number {
  return s.indexOf(marker, from);
}

/**
 * A block opened by a line starting with `marker` (`%%`, `$$`): closed on the same
 * line when only whitespace follows the closing marker; text after it means the
 * line is ordinary inline content (`%%a%% b`), left to the paragraph parser.
 */
function delimitedBlock(name: string, marker: string) {
  return (cx: BlockContext, line: Line): boolean => {
    if (!line.text.startsWith(marker, line.pos)) return false;
    const from = cx.lineStart + line.pos;
    const sameLine = indexIn(line.text, marker, line.pos + marker.length);
    let to: number;
    if (sameLine !== -1) {
      if (line.text.slice(sameLine + marker.length).trim() !== '') return false;
      to = cx.lineStart + sameLine + marker.length;
      cx.nextLine();
    } else {
      to = cx.lineStart + line.text.length;
      // Stop where the container (quote, list item) ends, as lezer's fenced code
      // does; `Line.depth` is not in the typings but is what FencedCode reads.
      const depth = cx.depth;
      while (cx.nextLine() && (line as unknown as { depth: number }).depth >= depth) {
        const close = indexIn(line.text, marker, line.pos);
        if (close !== -1) {
          to = cx.lineStart + close + marker.length;
          cx.nextLine();
          break;
        }
        to = cx.lineStart + line.text.length;
      }
    }
    cx.addElement(cx.elt(name, from, to));
    return true;
  };
}

/** `[[…]]` and `![[…]]` as single nodes. Empty `[[ ]]` is left to CommonMark, as Obsidian does. */
function parseWikilink(cx: InlineContext, next: number, pos: number): number {
  const embed = next === BANG;
  const open = embed ? pos + 1 : pos;
  if (embed ? cx.char(pos + 1) !== OPEN_BRACKET : next !== OPEN_BRACKET) return -1;
  if (cx.char(open + 1) !== OPEN_BRACKET) return -1;
  const rel = open - cx.offset;
  const close = findWikilinkClose(cx.text, rel, cx.end - cx.offset);
  if (close === -1 || cx.text.slice(rel + 2, close).trim() === '') return -1;
  return cx.addElement(cx.elt(embed ? 'Embed' : 'Wikilink', pos, cx.offset + close + 2));
}

/** `%%…%%` inside inline text (may span the lines of one paragraph). */
function parseInlineComment(cx: InlineContext, next: number, pos: number): number {
  if (next !== PERCENT || cx.char(pos + 1) !== PERCENT) return -1;
  const close = cx.text.indexOf('%%', pos - cx.offset + 2);
  if (close === -1) return -1;
  return cx.addElement(cx.elt('ObsidianComment', pos, cx.offset + close + 2));
}

/** Longest inline math we look for a closing `$` across; bounds the scan per opener. */
const MAX_INLINE_MATH = 4096;

/**
 * Per inline section, a stretch `[from, to)` (indices in `cx.text`) known to hold
 * no closing `$`. Whether a `$` can close does not depend on the opener, so a
 * later opener resumes where a failed scan stopped: `$a $a $a …` stays linear.
 */
const noCloser = new WeakMap<InlineContext, { from: number; to: number }>();

/** `$` at `j` can close inline math: not after a space, not before a digit. */
function closesMath(text: string, j: number): boolean {
  const before = text.charCodeAt(j - 1);
  const after = text.charCodeAt(j + 1);
  return !isSpace(before) && before !== 92 /* \ */ && !(after >= 48 && after <= 57);
}

/**
 * `$x$` (Pandoc rule, as Obsidian: no space just inside the dollars, and the
 * closing `$` is not followed by a digit, so `$5 and $10` is not math) and `$$x$$`.
 * Neither crosses a blank line.
 */
function parseInlineMath(cx: InlineContext, next: number, pos: number): number {
  if (next !== DOLLAR) return -1;
  const text = cx.text;
  const rel = pos - cx.offset;
  if (cx.char(pos + 1) === DOLLAR) {
    // Display math may be long; an unclosed `$$` scans once, the next `$$` pairs.
    const close = text.indexOf('$$', rel + 2);
    if (close === -1 || close === rel + 2) return -1;
    return cx.addElement(cx.elt('InlineMath', pos, cx.offset + close + 2));
  }
  const first = text.charCodeAt(rel + 1);
  if (Number.isNaN(first) || isSpace(first)) return -1;
  const limit = Math.min(text.length, rel + MAX_INLINE_MATH);
  let j = rel + 1;
  const known = noCloser.get(cx);
  if (known && known.from <= j && known.to > j) j = known.to;
  for (; j < limit; j++) {
    const c = text.charCodeAt(j);
    if (c === NEWLINE && text.charCodeAt(j + 1) === NEWLINE) break;
    if (c === DOLLAR && closesMath(text, j)) return cx.addElement(cx.elt('InlineMath', pos, cx.offset + j + 1));
  }
  noCloser.set(cx, { from: rel + 1, to: j });
  return -1;
}

/**
 * Characters allowed in a tag: letters and digits of any script (`#标签`, `#тег`),
 * combining marks, emoji, `_`, `-`, `/`. Anything else ends the tag.
 */
const TAG_CHAR = /[\p{L}\p{N}\p{M}\p{Extended_Pictographic}\u200d_\-/]/u;
const DIGITS = /^[0-9]+$/;

/** Length of the tag name starting at `from` in `text` (0 when there is none). */
export function tagNameLength(text: string, from: number): number {
  let j = from;
  while (j < text.length) {
    const cp = text.codePointAt(j) as number;
    const ch = String.fromCodePoint(cp);
    if (!TAG_CHAR.test(ch)) break;
    j += ch.length;
  }
  return j - from;
}

/** `#tag` only after whitespace or at the start (`not#tag` is not a tag), and not all digits (`#123`). */
function parseTag(cx: InlineContext, next: number, pos: number): number {
  if (next !== HASH) return -1;
  if (pos > cx.offset && !isSpace(cx.char(pos - 1))) return -1;
  const rel = pos - cx.offset + 1;
  const len = tagNameLength(cx.text, rel);
  if (len === 0 || DIGITS.test(cx.text.slice(rel, rel + len))) return -1;
  return cx.addElement(cx.elt('Tag', pos, pos + 1 + len));
}

/**
 * Above this many `[` and `]` in one inline section (a paragraph, heading or
 * cell), lezer's own link machinery is switched off for that section: it is
 * quadratic in the brackets of a section (20k `[a](b)` in one paragraph: 2.5 s;
 * 50k `*a* ]`: 22 s; 40k nested `[`: 3 s). Such sections get the plain,
 * linear reading of `[text](dest)` below; other sections are untouched.
 */
const MAX_LEZER_BRACKETS = 1000;
const manyBrackets = new WeakMap<InlineContext, boolean>();

function bracketsOff(cx: InlineContext): boolean {
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
function parseSimpleLink(cx: InlineContext, pos: number): number {
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
function guardHtml(cx: InlineContext, pos: number): number {
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
function guardInlineCode(cx: InlineContext, pos: number): number {
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

function parseObsidianInline(cx: InlineContext, next: number, pos: number): number {
  switch (next) {
    case BACKTICK:
      return guardInlineCode(cx, pos);
    case LESS_THAN:
      return guardHtml(cx, pos);
    case OPEN_BRACKET:
    case BANG: {
      const wikilink = parseWikilink(cx, next, pos);
      if (wikilink !== -1) return wikilink;
      if ((next === OPEN_BRACKET || cx.char(pos + 1) === OPEN_BRACKET) && bracketsOff(cx)) return parseSimpleLink(cx, pos);
      return -1;
    }
    case CLOSE_BRACKET:
      return bracketsOff(cx) ? pos + 1 : -1;
    case PERCENT:
      return parseInlineComment(cx, next, pos);
    case DOLLAR:
      return parseInlineMath(cx, next, pos);
    case HASH:
      return parseTag(cx, next, pos);
    default:
      return -1;
  }
}

export const obsidianSyntax: MarkdownConfig = {
  defineNodes: [
    // lezer's own `CommentBlock`/`Comment` are HTML comments, hence the prefix.
    { name: 'ObsidianCommentBlock', block: true },
    { name: 'MathBlock', block: true },
    { name: 'Wikilink' },
    { name: 'Embed' },
    { name: 'ObsidianComment' },
    { name: 'InlineMath' },
    { name: 'Tag' },
  ],
  parseBlock: [
    { name: 'ObsidianComment', parse: delimitedBlock('ObsidianCommentBlock', '%%'), before: 'Blockquote' },
    { name: 'ObsidianMath', parse: delimitedBlock('MathBlock', '$$'), before: 'Blockquote' },
  ],
  // One dispatcher instead of four parsers: lezer calls every inline parser at
  // every character, so this saves three calls per character of every note.
  parseInline: [{ name: 'Obsidian', parse: parseObsidianInline, before: 'Escape' }],
};
