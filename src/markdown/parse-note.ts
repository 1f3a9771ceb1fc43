/**
 * parseNote: decoded note text in, plain {@link NoteModel} out. Pure, never
 * throws on any input text, linear in the text length.
 *
 * Steps: line index; frontmatter (found by its fences, parsed by `yaml` unless
 * simple-frontmatter.ts reads it); the body is parsed by lezer (CommonMark + GFM
 * tables, strikethrough, task lists + our Obsidian extension); one tree walk
 * collects the elements; sections follow from the headings.
 *
 * CRLF: lezer gets the body with `\r\n` turned into `\n` and its offsets are
 * mapped back (crlf.ts); text is always sliced from the original string, so no
 * `\r` leaks into heading text or link paths.
 */
import { findFrontmatter, readFrontmatter } from './frontmatter.js';
import { collectElements } from './collect-elements.js';
import { toLfBody } from './crlf.js';
import { computeLineStarts } from './lines.js';
import { obsidianSyntax } from './obsidian-syntax.js';
import { buildSections } from './sections.js';
import type { Link, NoteModel, ProtectedRange, Tag } from './types.js';
import { loadLezerMarkdown, once } from '../lazy-require.js';
import type { Tree } from '@lezer/common';
import type { BlockParser, MarkdownConfig } from '@lezer/markdown';

/**
 * GFM minus its bare-URL autolinks: those are never vault links, and scanning
 * for them at every `w`/`h` would only cost time on long lines. Configured on
 * the first parse: a read from an up-to-date index parses nothing.
 */
const markdownParser = once(() => {
  const { Strikethrough, Table, TaskList, parser: commonmark } = loadLezerMarkdown();
  return commonmark.configure([
    withPipeScan(Table),
    TaskList,
    Strikethrough,
    obsidianSyntax,
    // Emphasis feeds no element of the model, and lezer resolves its delimiters
    // in quadratic time when openers never meet closers ('*a ' x30k then 'b_ '
    // x30k: 3.4 s). Without it, `*` and `_` are plain text to the parser.
    { remove: ['Emphasis'] },
  ]);
});

/**
 * GFM tables, asking first whether the text holds a `|` at all: lezer's table
 * parser scans every paragraph's first line (and, inside paragraphs, every
 * line) character by character for a pipe outside code, ~45 ms of a 12 MB
 * proposal of one-line notes (issue 20 §8). `indexOf` answers "none" at
 * memory speed, and a text with no `|` has no pipe outside code either: the
 * same answers, so the same tree.
 */
function withPipeScan(table: MarkdownConfig): MarkdownConfig {
  const [spec] = table.parseBlock as [BlockParser];
  const { leaf, endLeaf } = spec;
  return {
    ...table,
    parseBlock: [
      {
        ...spec,
        leaf: (cx, block) => (block.content.indexOf('|') < 0 ? null : leaf!(cx, block)),
        endLeaf: (cx, line, block) => (line.text.indexOf('|', line.basePos) < 0 ? false : endLeaf!(cx, line, block)),
      },
    ],
  };
}

/** The lezer tree of a note body (LF line ends): parseNote's first step, open to tests of the guards. */
export function parseBodyTree(body: string): Tree {
  return markdownParser().parse(body);
}

const byPosition = (a: { range: { start: number; end: number } }, b: { range: { start: number; end: number } }) =>
  a.range.start - b.range.start || b.range.end - a.range.end;

export function parseNote(text: string): NoteModel {
  const lineStarts = computeLineStarts(text);
  const block = findFrontmatter(text);
  const fm = block ? readFrontmatter(text, block, lineStarts) : null;
  const bodyStart = block ? block.bodyStart : 0;

  const body = toLfBody(text, bodyStart);
  const tree = parseBodyTree(body.text);
  const els = collectElements(text, tree, body.toOriginal, lineStarts);

  const links: Link[] = fm ? [...fm.links, ...els.links] : els.links;
  const tags: Tag[] = fm ? [...fm.tags, ...els.tags] : els.tags;
  const protectedRanges: ProtectedRange[] = fm
    ? [{ kind: 'frontmatter', range: fm.frontmatter.range, startLine: fm.frontmatter.startLine, endLine: fm.frontmatter.endLine }, ...els.protected]
    : els.protected;
  links.sort(byPosition);
  protectedRanges.sort(byPosition);

  return {
    length: text.length,
    lineStarts,
    frontmatter: fm ? fm.frontmatter : null,
    headings: els.headings,
    sections: buildSections(text, els.headings, bodyStart, lineStarts),
    links,
    tags,
    aliases: fm ? fm.aliases : [],
    blockIds: els.blockIds,
    callouts: els.callouts,
    protected: protectedRanges,
  };
}
