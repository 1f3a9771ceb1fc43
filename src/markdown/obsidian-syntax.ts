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
 * - Footnote definitions `[^1]: …` stay paragraphs (never link reference definitions).
 *
 * Every scan is bounded by the line or by the next opener, so a 2 MB line stays
 * linear; the same dispatcher also runs the guards for lezer's own quadratic
 * inline paths (lezer-guards.ts). Inline parsers run on lezer's inline text, where container markers
 * (`>`) are already blanked out, so positions are document positions.
 */
import type { BlockContext, InlineContext, LeafBlock, LeafBlockParser, Line, MarkdownConfig } from '@lezer/markdown';
import { findWikilinkClose } from './link-parts.js';
import { bracketsOff, guardDeepNesting, guardHtml, guardInlineCode, guardSpaces, parseSimpleLink } from './lezer-guards.js';

const BANG = 33;
const HASH = 35;
const DOLLAR = 36;
const PERCENT = 37;
const OPEN_BRACKET = 91;
const CLOSE_BRACKET = 93;
const LESS_THAN = 60;
const BACKTICK = 96;
const NEWLINE = 10;
const SPACE = 32;

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

/** Occurrences of `%%` in `s`. */
function countMarkers(s: string): number {
  let n = 0;
  for (let i = s.indexOf('%%'); i !== -1; i = s.indexOf('%%', i + 2)) n++;
  return n;
}

/**
 * A `%%` line that opens a multi-line comment ends the paragraph above it
 * (`text\n%%\nhidden\n\nmore\n%%`), unless the paragraph has an open inline
 * `%%` this line closes (`text %%\nhidden\n%%`). Obsidian hides both.
 */
function commentEndsParagraph(cx: BlockContext, line: Line, leaf: LeafBlock): boolean {
  if (!line.text.startsWith('%%', line.pos) || line.text.includes('%%', line.pos + 2)) return false;
  return countMarkers(leaf.content) % 2 === 0;
}

/** `[^label]:` opening a footnote definition (Obsidian's footnotes, as Pandoc's). */
const FOOTNOTE_DEFINITION = /^\[\^[^\]\s]+\]:/;

/** Remove the leaf parsers after `parser` (lezer's link reference, setext heading, table). */
function dropLaterLeafParsers(leaf: LeafBlock, parser: LeafBlockParser): false {
  const at = leaf.parsers.indexOf(parser);
  if (at !== -1) leaf.parsers.splice(at + 1);
  return false;
}

/**
 * A footnote definition is a paragraph. CommonMark would read `[^1]: [[T]]` as
 * a link reference definition (label `^1`, destination `[[T]]`) whose text is
 * never parsed inline, so its link was lost; Obsidian records links in
 * footnotes (obsidianmd/obsidian-api#166: `[^1]: Here is [[The link]]` is in
 * the metadata cache's links). This leaf parser runs before LinkReference and,
 * on the leaf's next line or at its end, drops the leaf parsers after it, so
 * lezer finishes the leaf as an ordinary paragraph (its loops over
 * `leaf.parsers` see the shortened array).
 */
function footnoteDefinition(_cx: BlockContext, leaf: LeafBlock): LeafBlockParser | null {
  if (!FOOTNOTE_DEFINITION.test(leaf.content)) return null;
  const parser: LeafBlockParser = {
    nextLine: (_cx, _line, l) => dropLaterLeafParsers(l, parser),
    finish: (_cx, l) => dropLaterLeafParsers(l, parser),
  };
  return parser;
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
 * Letters and digits (ASCII or not) start no inline syntax: every inline parser
 * in use (lezer's, GFM's strikethrough, ours) triggers on an ASCII punctuation
 * mark or a space. Consuming a run of them at once is what every parser's -1
 * would have amounted to, one character at a time.
 */
function isPlain(c: number): boolean {
  return c >= 0x80 || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);
}

/**
 * Past the run of plain characters starting at `pos` (which is plain), and on
 * through single runs of spaces between plain runs: words and the spaces
 * between them are one step of lezer's inline loop, not two per word (~0.1 s
 * of a 12 MB parse; issue 20 §8). The same positions come out as stepping word
 * by word: this dispatcher runs first, so the next step at a plain character
 * would skip it here anyway, and at a space it would skip the spaces
 * ({@link guardSpaces}) unless two or more of them end the line (a hard break,
 * lezer's own: the run stops before them).
 */
function skipPlain(cx: InlineContext, pos: number): number {
  const text = cx.text;
  const end = cx.end - cx.offset;
  let i = pos - cx.offset + 1;
  for (;;) {
    while (i < end && isPlain(text.charCodeAt(i))) i++;
    if (i >= end || text.charCodeAt(i) !== SPACE) break;
    let after = i + 1;
    while (after < end && text.charCodeAt(after) === SPACE) after++;
    // a word after the spaces continues the run; anything else is where the next step starts (past the spaces, as guardSpaces says)
    if (after < end && isPlain(text.charCodeAt(after))) i = after;
    else {
      if (!(text.charCodeAt(after) === NEWLINE && after - i >= 2)) i = after;
      break;
    }
  }
  return cx.offset + i;
}

function parseObsidianInline(cx: InlineContext, next: number, pos: number): number {
  if (isPlain(next)) return skipPlain(cx, pos);
  switch (next) {
    case SPACE:
      return guardSpaces(cx, pos);
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
    { name: 'DeepNesting', parse: guardDeepNesting, before: 'Blockquote' },
    { name: 'FootnoteDefinition', leaf: footnoteDefinition, before: 'LinkReference' },
    {
      name: 'ObsidianComment',
      parse: delimitedBlock('ObsidianCommentBlock', '%%'),
      endLeaf: commentEndsParagraph,
      before: 'Blockquote',
    },
    { name: 'ObsidianMath', parse: delimitedBlock('MathBlock', '$$'), before: 'Blockquote' },
  ],
  // One dispatcher instead of four parsers, run first: lezer calls every inline
  // parser at every character it does not consume, and this one consumes runs of
  // plain characters (a third of a cold index's parse time went to those calls).
  parseInline: [{ name: 'Obsidian', parse: parseObsidianInline, before: 'Escape' }],
};
