/**
 * One walk over the lezer tree of the note body, turning nodes into the model's
 * plain elements. Lezer stops here: nothing past this file sees a syntax node.
 *
 * Positions: the tree was parsed from the body with CRLF turned into LF
 * (crlf.ts), so every node offset goes through `pos()`; text is always sliced
 * from the original note, never from the string lezer saw.
 */
import type { SyntaxNode, Tree } from '@lezer/common';
import { linesOf } from './lines.js';
import {
  parseMarkdownDestination,
  parseWikilinkInner,
  scanMarkdownLinks,
  scanWikilinks,
  splitImageAlt,
} from './link-parts.js';
import type { BlockId, Callout, Heading, Link, ProtectedKind, ProtectedRange, Range, Tag } from './types.js';

export interface BodyElements {
  headings: Heading[];
  links: Link[];
  tags: Tag[];
  blockIds: BlockId[];
  callouts: Callout[];
  protected: ProtectedRange[];
}

const PROTECTED: Record<string, ProtectedKind> = {
  FencedCode: 'code',
  CodeBlock: 'code',
  InlineCode: 'inline-code',
  Table: 'table',
  HTMLBlock: 'html',
  CommentBlock: 'html',
  Comment: 'html', // an inline <!-- … -->
  ProcessingInstructionBlock: 'html',
  MathBlock: 'math',
  InlineMath: 'math',
  ObsidianCommentBlock: 'comment',
  ObsidianComment: 'comment',
  Wikilink: 'link',
  Autolink: 'link',
  Embed: 'embed',
  // Link and Image are protected only when they are real links (see isRealLink).
};

/**
 * Lezer makes a Link node of any `[text]` (it does not check reference
 * definitions), which would turn `[!note]` or `[ ]` into links. Only an inline
 * destination `(…)` or a reference label `[…][ref]` makes a real link.
 */
function isRealLink(node: SyntaxNode): boolean {
  return node.getChild('URL') !== null || node.getChild('LinkLabel') !== null || node.getChildren('LinkMark').length > 2;
}

/**
 * Whether a link title lezer accepted is one CommonMark accepts. Lezer ends a
 * `(…)` title at its first `)` but lets an unescaped `(` through, which
 * CommonMark forbids (spec 0.31, "link title": parentheses inside only
 * backslash-escaped). So `[A](“B” ([C](zotero://x)) (…))` is no link at all in
 * CommonMark, while lezer read a link to `“B”`: a false broken link.
 */
function isCommonMarkTitle(title: string): boolean {
  if (!title.startsWith('(')) return true;
  for (let i = 1; i < title.length - 1; i++) {
    const c = title.charCodeAt(i);
    if (c === 92 /* \ */) i++;
    else if (c === 40 /* ( */) return false;
  }
  return true;
}

/**
 * A block id ends its paragraph: `text ^id`, `text\n^id` (its own line, no blank
 * line before it), or is the whole paragraph: `^id`. The `^` follows whitespace.
 */
const TRAILING_BLOCK_ID = /(?:^|\s)\^([A-Za-z0-9-]+)\s*$/;
/** Sticky, run at the quote's `>` in the note itself: no slicing per (possibly deeply nested) quote. `.` stops at `\r` and `\n`. */
const CALLOUT = />[ \t]*\[!([^\]\s]+)\]([+-]?)[ \t]*(.*)/y;
/** Blocks an id on its own line, after a blank line, names (Obsidian help: quotes, callouts, tables; code and lists alike). */
const NAMED_BY_NEXT_ID = new Set(['Blockquote', 'Table', 'FencedCode', 'MathBlock', 'BulletList', 'OrderedList']);
/** Containers whose paragraphs' ids name the container (a list item with its sub-items; a quote or callout whole). */
const NAMED_CONTAINER = new Set(['ListItem', 'Blockquote']);

const WS = /\s/;

/** Shrink a range past surrounding whitespace (for heading text). */
function trimRange(text: string, start: number, end: number): Range {
  while (start < end && WS.test(text[start] as string)) start++;
  while (end > start && WS.test(text[end - 1] as string)) end--;
  return { start, end };
}

export function collectElements(text: string, tree: Tree, pos: (p: number) => number, lineStarts: number[]): BodyElements {
  const out: BodyElements = { headings: [], links: [], tags: [], blockIds: [], callouts: [], protected: [] };
  const lines = (r: Range) => linesOf(lineStarts, r);
  const rangeOf = (n: SyntaxNode): Range => ({ start: pos(n.from), end: pos(n.to) });
  const slice = (r: Range) => text.slice(r.start, r.end);
  let linkDepth = 0;
  /** Start offsets of the real links entered and not yet left (links do not nest). */
  const realLinks = new Set<number>();
  let listDepth = 0;

  const pushLink = (link: Omit<Link, 'startLine' | 'endLine' | 'raw'>) =>
    out.links.push({ ...link, raw: slice(link.range), ...lines(link.range) });

  function heading(node: SyntaxNode, level: number, style: 'atx' | 'setext'): void {
    const range = rangeOf(node);
    const marks = node.getChildren('HeaderMark');
    let textRange: Range;
    if (style === 'atx') {
      const open = marks[0];
      const close = marks.length > 1 ? marks[marks.length - 1] : undefined;
      textRange = trimRange(text, open ? pos(open.to) : range.start, close ? pos(close.from) : range.end);
    } else {
      const underline = marks[marks.length - 1];
      textRange = trimRange(text, range.start, underline ? pos(underline.from) : range.end);
    }
    out.headings.push({
      level: level as Heading['level'],
      style,
      text: slice(textRange).replace(/\r\n/g, '\n'),
      range,
      textRange,
      ...lines(range),
    });
  }

  function markdownLink(node: SyntaxNode, image: boolean): void {
    const marks = node.getChildren('LinkMark');
    const url = node.getChild('URL');
    // `[t]` and `[t][ref]` have no destination here: reference links are not vault links.
    if (!url || marks.length < 3) return;
    const target = parseMarkdownDestination(text.slice(pos(url.from), pos(url.to)));
    if (!target) return;
    const labelFrom = pos((marks[0] as SyntaxNode).to);
    const labelTo = pos((marks[1] as SyntaxNode).from);
    const label = text.slice(labelFrom, labelTo);
    const { display, size } = image ? splitImageAlt(label) : { display: label === '' ? null : label, size: null };
    pushLink({ kind: image ? 'embed' : 'markdown', range: rangeOf(node), ...target, display, size, inComment: false });
  }

  /**
   * A link lezer read whose title CommonMark refuses (isCommonMarkTitle): the
   * brackets and parentheses are text, and links written inside that text are
   * links (`[C](Note.md)` in the example), found by the plain scan used for
   * comments. Only what lezer swallowed, from the destination on, is scanned:
   * the label's own content was parsed inline and is walked as usual.
   */
  function linksInRefusedLink(node: SyntaxNode): void {
    const url = node.getChild('URL');
    if (!url) return;
    const start = pos(url.from);
    const end = pos(node.to);
    for (const hit of scanWikilinks(text, start, end)) {
      const range = { start: hit.start, end: hit.end };
      out.protected.push({ kind: hit.embed ? 'embed' : 'link', range, ...lines(range) });
      pushLink({ kind: hit.embed ? 'embed' : 'wikilink', range, ...parseWikilinkInner(hit.inner, hit.embed), inComment: false });
    }
    for (const hit of scanMarkdownLinks(text, start, end)) {
      const target = parseMarkdownDestination(hit.dest);
      if (!target) continue;
      const range = { start: hit.start, end: hit.end };
      const { display, size } = hit.image ? splitImageAlt(hit.label) : { display: hit.label || null, size: null };
      out.protected.push({ kind: hit.image ? 'embed' : 'link', range, ...lines(range) });
      pushLink({ kind: hit.image ? 'embed' : 'markdown', range, ...target, display, size, inComment: false });
    }
  }

  /**
   * `| [[T#H|alias]] | x |`: GFM splits a table row at every unescaped `|`, the
   * one inside a wikilink too, so no cell holds the whole link and it vanished.
   * Obsidian's renderer splits it as well (its help and the table plugins ask
   * for `[[T#H\|alias]]` in tables: tgrosinger/advanced-tables-obsidian#52);
   * what its link index records for it is not documented. Decided: never drop
   * it silently: a wikilink of the row that spans a cell boundary is kept
   * whole, as written (path T, subpath H, display alias).
   */
  function linksAcrossCells(row: SyntaxNode): void {
    const bars = row.getChildren('TableDelimiter').map((d) => pos(d.from));
    if (bars.length === 0) return;
    const { start, end } = rangeOf(row);
    let b = 0;
    for (const hit of scanWikilinks(text, start, end)) {
      while (b < bars.length && (bars[b] as number) <= hit.start) b++;
      if (b === bars.length || (bars[b] as number) >= hit.end) continue; // inside one cell: lezer found it
      const range = { start: hit.start, end: hit.end };
      out.protected.push({ kind: hit.embed ? 'embed' : 'link', range, ...lines(range) });
      pushLink({ kind: hit.embed ? 'embed' : 'wikilink', range, ...parseWikilinkInner(hit.inner, hit.embed), inComment: false });
    }
  }

  function wikilink(node: SyntaxNode, embed: boolean): void {
    const range = rangeOf(node);
    const inner = text.slice(range.start + (embed ? 3 : 2), range.end - 2);
    pushLink({ kind: embed ? 'embed' : 'wikilink', range, ...parseWikilinkInner(inner, embed), inComment: false });
  }

  /** Links in `%%…%%`: Obsidian records them, so do we, flagged. */
  function commentLinks(node: SyntaxNode): void {
    const { start, end } = rangeOf(node);
    for (const hit of scanWikilinks(text, start, end)) {
      const range = { start: hit.start, end: hit.end };
      pushLink({ kind: hit.embed ? 'embed' : 'wikilink', range, ...parseWikilinkInner(hit.inner, hit.embed), inComment: true });
    }
    for (const hit of scanMarkdownLinks(text, start, end)) {
      const target = parseMarkdownDestination(hit.dest);
      if (!target) continue;
      const { display, size } = hit.image ? splitImageAlt(hit.label) : { display: hit.label || null, size: null };
      pushLink({ kind: hit.image ? 'embed' : 'markdown', range: { start: hit.start, end: hit.end }, ...target, display, size, inComment: true });
    }
  }

  /**
   * The block a paragraph's trailing `^id` names (obsidian-links.md "Subpaths";
   * the conformance rows of test/conformance/links-cases-subpath.ts give each
   * rule its source):
   * - an id that is a paragraph of its own names the block before it: a quote,
   *   callout, table, code or math block or list anywhere, a paragraph at the
   *   top level (`Para\n\n^id`);
   * - an id on a line of its own at column 0, continuing a paragraph inside a
   *   quote or list (`> quoted\n^id`, `- item\n^id`: a lazy continuation line),
   *   sits after that whole top-level quote or list, and names it;
   * - otherwise the id names the innermost list item or quote holding the
   *   paragraph (an item with its sub-items), or the paragraph itself.
   */
  function blockId(node: SyntaxNode): void {
    const range = rangeOf(node);
    // Only the tail can hold the id; slicing it keeps a 2 MB paragraph cheap.
    const tailStart = Math.max(range.start, range.end - 256);
    const tail = text.slice(tailStart, range.end);
    const m = TRAILING_BLOCK_ID.exec(tail);
    if (!m) return;
    const idStart = tailStart + m.index + m[0].indexOf('^');
    const idRange = { start: idStart, end: idStart + 1 + (m[1] as string).length };
    const parent = node.parent;
    const prev = node.prevSibling;
    const wholeParagraph = text.slice(range.start, idStart).trim() === '';
    const atColumn0 = idStart === 0 || text.charCodeAt(idStart - 1) === 10; /* \n */
    let block: SyntaxNode = node;
    if (wholeParagraph && prev && (NAMED_BY_NEXT_ID.has(prev.name) || (prev.name === 'Paragraph' && parent?.name === 'Document'))) {
      block = prev;
    } else if (atColumn0 && !wholeParagraph && parent && parent.name !== 'Document') {
      block = parent;
      while (block.parent && block.parent.name !== 'Document') block = block.parent;
    } else if (parent && NAMED_CONTAINER.has(parent.name)) {
      block = parent;
    }
    const blockRange = rangeOf(block);
    const blockLines = lines(blockRange);
    out.blockIds.push({
      id: m[1] as string,
      range: idRange,
      blockRange,
      blockStartLine: blockLines.startLine,
      blockEndLine: blockLines.endLine,
      ...lines(idRange),
    });
  }

  function callout(node: SyntaxNode): void {
    const range = rangeOf(node);
    CALLOUT.lastIndex = range.start;
    const m = CALLOUT.exec(text);
    if (!m) return;
    out.callouts.push({
      type: m[1] as string,
      fold: (m[2] ?? '') as Callout['fold'],
      title: (m[3] ?? '').trim(),
      range,
      ...lines(range),
    });
  }

  // Hot loop (every node of every note): a SyntaxNode is only materialised for
  // the few node types that need their children or parent.
  tree.iterate({
    enter: (ref) => {
      const name = ref.name;
      const kind = PROTECTED[name];
      if (kind) {
        const range = { start: pos(ref.from), end: pos(ref.to) };
        out.protected.push({ kind, range, ...lines(range) });
      }
      switch (name) {
        case 'Wikilink':
        case 'Embed':
          wikilink(ref.node, name === 'Embed');
          return false;
        case 'ObsidianComment':
        case 'ObsidianCommentBlock':
          commentLinks(ref.node);
          return false;
        case 'Link':
        case 'Image': {
          const node = ref.node;
          const title = node.getChild('LinkTitle');
          if (title && !isCommonMarkTitle(text.slice(pos(title.from), pos(title.to)))) {
            linksInRefusedLink(node);
            return undefined;
          }
          if (isRealLink(node)) {
            const range = rangeOf(node);
            out.protected.push({ kind: name === 'Image' ? 'embed' : 'link', range, ...lines(range) });
            markdownLink(node, name === 'Image');
            linkDepth++;
            realLinks.add(node.from);
          }
          return undefined;
        }
        case 'BulletList':
        case 'OrderedList':
          if (listDepth++ === 0) {
            const range = { start: pos(ref.from), end: pos(ref.to) };
            out.protected.push({ kind: 'list', range, ...lines(range) });
          }
          return undefined;
        case 'Tag':
          if (linkDepth === 0) {
            const range = { start: pos(ref.from), end: pos(ref.to) };
            out.tags.push({ name: slice(range).slice(1), source: 'inline', range, ...lines(range) });
          }
          return false;
        case 'Paragraph':
          blockId(ref.node);
          return undefined;
        case 'TableHeader':
        case 'TableRow':
          linksAcrossCells(ref.node);
          return undefined;
        case 'Blockquote':
          callout(ref.node);
          return undefined;
        case 'FencedCode':
        case 'CodeBlock':
        case 'InlineCode':
        case 'HTMLBlock':
        case 'MathBlock':
        case 'InlineMath':
        case 'Autolink':
          return false;
        case 'ATXHeading1':
        case 'ATXHeading2':
        case 'ATXHeading3':
        case 'ATXHeading4':
        case 'ATXHeading5':
        case 'ATXHeading6':
        case 'SetextHeading1':
        case 'SetextHeading2': {
          // Only top-level headings open sections; `> # x` and `- # x` do not.
          const node = ref.node;
          if (node.parent?.name === 'Document') {
            const atx = name.startsWith('ATX');
            heading(node, Number(name.slice(-1)), atx ? 'atx' : 'setext');
          }
          return undefined;
        }
      }
      return undefined;
    },
    leave: (ref) => {
      const name = ref.name;
      if ((name === 'Link' || name === 'Image') && realLinks.delete(ref.from)) linkDepth--;
      else if (name === 'BulletList' || name === 'OrderedList') listDepth--;
    },
  });
  return out;
}
