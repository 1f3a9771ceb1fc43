/**
 * The note model: a plain data structure describing one Markdown note, with exact
 * source positions. It is the only view of Markdown other modules get (lezer
 * stays inside `markdown/`).
 *
 * Positions: a {@link Range} is half-open `[start, end)` in UTF-16 code units of
 * the decoded note text (BOM stripped, line endings untouched), so
 * `text.slice(r.start, r.end)` is exactly the element's source. Lines are 1-based;
 * a `\r\n` ends one line.
 */
export interface Range {
  start: number;
  end: number;
}

/** 1-based inclusive line span. */
export interface Lines {
  startLine: number;
  endLine: number;
}

export interface YamlError {
  /** `yaml` library error code, e.g. `BAD_INDENT`, `DUPLICATE_KEY`; or ours: `NON_SCALAR_KEY` (a `{{date}}`-style placeholder used as a key), `FRONTMATTER_TOO_LARGE`. */
  code: string;
  message: string;
  /** 1-based position in the note (not in the frontmatter block). */
  line: number;
  column: number;
}

export interface Frontmatter extends Lines {
  /** The whole block, both `---` fences included. */
  range: Range;
  /** The YAML text between the fences. */
  contentRange: Range;
  /** Parsed value (usually an object) or null when the YAML is broken or empty. */
  data: unknown;
  /** Set when the YAML does not parse: a note with broken frontmatter is still a note. */
  error: YamlError | null;
}

export interface Heading extends Lines {
  level: 1 | 2 | 3 | 4 | 5 | 6;
  style: 'atx' | 'setext';
  /**
   * Heading text as written, markers and closing `#`s stripped, trimmed. A
   * setext heading may span lines; its line breaks are `\n` even in a CRLF
   * note, so a note's headings do not depend on its line endings.
   */
  text: string;
  /** The whole heading (`## Title` line, or both setext lines). */
  range: Range;
  /** Just the text part (what `text` was sliced from, before `\r\n` → `\n`). */
  textRange: Range;
}

export interface Section extends Lines {
  /** Position of this section in the note, 0-based. */
  index: number;
  /** The heading that opens it; null for the preamble before the first heading. */
  heading: Heading | null;
  /** Texts of the enclosing headings, outermost first, ending with this section's own. */
  headingPath: string[];
  /** From the heading's start (or the body's start, after frontmatter) to the next heading of any level. */
  range: Range;
}

export type LinkKind = 'wikilink' | 'embed' | 'markdown' | 'frontmatter';

export interface Link extends Lines {
  kind: LinkKind;
  /** Exactly `text.slice(range.start, range.end)`: `[[A#B|c]]`, `![[x.png|100]]`, `[t](a%20b.md)`. */
  raw: string;
  range: Range;
  /** Path part as Obsidian reads it: display text removed, `\|` unescaped, percent-decoded for Markdown links. May be '' (`[[#H]]`). */
  path: string;
  /** The part after the first `#`, without that `#` (`A#B` → `B`, `^id` for blocks), or null. */
  subpath: string | null;
  /** Display text (`|c` or `[t]`), or null. For embeds, a size such as `100x145` is in `size`, not here. */
  display: string | null;
  /** Embed size (`![[x.png|100]]`), or null. */
  size: string | null;
  /** Whether the link sits inside a `%%comment%%` (Obsidian still records it). */
  inComment: boolean;
  /** Frontmatter links: the property key they sit under, e.g. `up`. */
  property?: string;
}

export interface Tag extends Lines {
  /** Tag without `#`, as written (`project/alpha`). */
  name: string;
  source: 'inline' | 'frontmatter';
  range: Range;
}

export interface BlockId extends Lines {
  /** Block id without `^`. */
  id: string;
  /** The `^id` marker itself. */
  range: Range;
  /** The block the id names (paragraph, list item, or the quote/table/callout before it). */
  blockRange: Range;
  /** Lines of `blockRange` (1-based, inclusive): what a block link cites. `startLine`/`endLine` are the marker's. */
  blockStartLine: number;
  blockEndLine: number;
}

export interface Callout extends Lines {
  /** Callout type as written, e.g. `note`, `warning`. */
  type: string;
  /** `+`, `-` or '' (foldable state). */
  fold: '' | '+' | '-';
  title: string;
  range: Range;
}

export type ProtectedKind =
  | 'frontmatter'
  | 'code' // fenced or indented
  | 'inline-code'
  | 'table'
  | 'list'
  | 'html'
  | 'math'
  | 'comment'
  | 'link'
  | 'embed';

/** A range a planner must not cut into or rewrite piecemeal. */
export interface ProtectedRange extends Lines {
  kind: ProtectedKind;
  range: Range;
}

export interface NoteModel {
  /** Length of the text in UTF-16 units. */
  length: number;
  /** Offsets where each line starts; `lineStarts[0] === 0`. */
  lineStarts: number[];
  frontmatter: Frontmatter | null;
  headings: Heading[];
  sections: Section[];
  links: Link[];
  tags: Tag[];
  /** From the `aliases` (or `alias`) property; strings only. */
  aliases: string[];
  blockIds: BlockId[];
  callouts: Callout[];
  protected: ProtectedRange[];
}

/** A link as written by itself (not inside a note): what `vaultgate resolve LINK` accepts. */
export interface LinkSyntax {
  kind: LinkKind;
  path: string;
  subpath: string | null;
  display: string | null;
  size: string | null;
}
