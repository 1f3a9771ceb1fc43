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
 * - Broken YAML: `data` null, `error` set, no frontmatter links, tags or aliases.
 */
export type * from './types.js';
export { parseNote } from './parse-note.js';
export { parseLinkSyntax } from './link-syntax.js';
export { computeLineStarts, lineOf, linesOf, columnOf } from './lines.js';
