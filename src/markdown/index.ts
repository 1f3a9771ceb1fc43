/**
 * markdown: the note parser. Text in, plain data with exact offsets out; lezer
 * never leaves this module.
 *
 * - {@link parseNote}: a note's frontmatter, headings, sections, links, tags,
 *   aliases, block ids, callouts and protected ranges ({@link NoteModel}).
 *   Every element has a half-open UTF-16 `range` into the text and 1-based lines.
 * - {@link parseLinkSyntax}: one link as typed on the command line ({@link LinkSyntax}).
 * - {@link lineOf} / {@link linesOf} / {@link computeLineStarts}: offsets to lines.
 *
 * Decisions (see docs/architecture.md and the doc comments of each file):
 * - The preamble section exists only when the body before the first heading has
 *   non-whitespace text.
 * - Markdown links with a URI scheme (`https:`, `mailto:`, `obsidian:`, `data:`)
 *   are not vault links: not in `links`, still protected. `![alt](x.png)` is an
 *   `embed`.
 * - Only top-level headings (not inside quotes or lists) are headings.
 * - Text inside `%%…%%`, code and math yields no tags or headings; links inside
 *   `%%…%%` are reported with `inComment: true`.
 * - Broken YAML: `data` null, `error` set (code, message, line and column in the
 *   note). A syntax error also drops frontmatter links, tags and aliases (Obsidian
 *   shows no properties then); a duplicate key or a collection used as a key
 *   (`created: {{date}}` → `NON_SCALAR_KEY`) keeps them, the syntax being sound.
 * - Frontmatter links are wikilinks inside string values (`up: "[[P]]"`, list
 *   items), with `property` set to the top-level key; unquoted `[[P]]` is a YAML
 *   list, not a link. Frontmatter tags: `tags`/`tag`, list or comma/space string.
 * - `%%…%%` opened mid-paragraph must close in the same paragraph; a comment
 *   spanning blank lines must start its own line (`%%` block, to the closing
 *   `%%` or the end of the container), which may sit right under a paragraph.
 * - Emphasis is not parsed (no element needs it, and lezer's delimiter
 *   resolution is quadratic); lezer's other quadratic inline paths are guarded
 *   (lezer-guards.ts), so parse time stays linear in the note's length (deeply
 *   nested quotes or lists still cost lezer O(depth) per line).
 * - Inline math follows the Pandoc rule (`$5 and $10` is not math).
 * - Block ids: the trailing `^id` of a paragraph names it (or its list item or
 *   quote); a `^id` paragraph after a quote, callout, table, code, math or list
 *   names that block. Reference-style links `[t][r]` are not vault links.
 */
export type { BlockId, Callout, Frontmatter, Heading, Lines, Link, LinkKind, LinkSyntax, NoteModel, ProtectedKind, ProtectedRange, Range, Section, Tag, YamlError } from './types.js';
export { parseNote } from './parse-note.js';
export { parseLinkSyntax } from './link-syntax.js';
export { computeLineStarts, lineOf, linesOf, columnOf } from './lines.js';
export { lineBlocks, blockAround, type LineBlocks, type LineKind } from './line-blocks.js';
