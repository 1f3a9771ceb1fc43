/**
 * Conformance rows for what counts as a link: each row is one note (`N.md`)
 * and the links Obsidian records in it, resolved against the row's files.
 * obsidian-links.md "What counts as a link". Run by extract.test.ts, through
 * `noteLinks` and, for rows marked `cli`, the compiled `vaultgate links`.
 */

export interface ExtractExpect {
  raw: string;
  path: string;
  subpath: string | null;
  display: string | null;
  status: 'resolved' | 'unresolved' | 'ambiguous' | 'unindexed' | 'external';
}

export interface ExtractCase {
  /** A sentence: what Obsidian records. */
  name: string;
  /** The rule and its source (documented, observed, reverse-engineered, corpus or decided). */
  rule: string;
  /** Other files of the vault. */
  files: Record<string, string>;
  /** The text of `N.md`. */
  note: string;
  /** Its links in document order; [] when Obsidian records none. */
  links: ExtractExpect[];
  cli?: boolean;
}

const T = { 'T.md': '# T\n\n## H\n\nBody\n' };
const link = (raw: string, path: string, subpath: string | null, display: string | null, status: ExtractExpect['status'] = 'resolved'): ExtractExpect => ({
  raw,
  path,
  subpath,
  display,
  status,
});

export const CASES_EXTRACT: ExtractCase[] = [
  { name: 'a link that is the whole of a footnote definition is a link', rule: 'footnotes, observed (obsidianmd/obsidian-api#166: a footnote\'s [[link]] is in the metadata cache\'s links)',
    files: T, note: 'See this[^1].\n\n[^1]: [[T]]\n', links: [link('[[T]]', 'T', null, null)], cli: true },
  { name: 'a link after text in a footnote definition is a link', rule: 'footnotes, observed (obsidianmd/obsidian-api#166)',
    files: T, note: 'See this[^1].\n\n[^1]: see [[T]]\n', links: [link('[[T]]', 'T', null, null)] },
  { name: 'a footnote definition with a Markdown link and a title keeps the link', rule: 'footnotes, observed (obsidianmd/obsidian-api#166)',
    files: T, note: 'x[^n]\n\n[^n]: [T](T.md) "t"\n', links: [link('[T](T.md)', 'T.md', null, 'T')] },
  { name: 'a link reference definition is still no vault link', rule: 'what counts, decided (reference links are not vault links, docs/json.md)',
    files: T, note: '[t][r]\n\n[r]: T.md\n', links: [] },
  { name: 'text CommonMark does not accept as a link is no link', rule: 'what counts, documented (CommonMark 0.31 "link title": a parenthesised title holds ( only escaped)',
    files: T, note: 'Cite [A](“B” ([C](zotero://x)) (…)) here.\n', links: [], cli: true },
  { name: 'a vault link written inside such text is still a link', rule: 'what counts, documented (CommonMark 0.31: the inner [C](T.md) is an inline link)',
    files: T, note: 'Cite [A](“B” ([C](T.md)) (…)) here.\n', links: [link('[C](T.md)', 'T.md', null, 'C')] },
  { name: 'a parenthesised title without inner parentheses keeps its link', rule: 'what counts, documented (CommonMark 0.31 "link title")',
    files: T, note: '[A](T.md (a title))\n', links: [link('[A](T.md (a title))', 'T.md', null, 'A')] },
  { name: 'an escaped | in a table cell separates the display text', rule: 'tables, documented (Obsidian help "Advanced formatting syntax": escape | in tables)',
    files: T, note: '| a | b |\n|---|---|\n| [[T#H\\|alias]] | x |\n', links: [link('[[T#H\\|alias]]', 'T', 'H', 'alias')] },
  { name: 'an unescaped | in a table cell: the wikilink is kept whole, never dropped',
    rule: 'tables, decided (Obsidian renders the cell split: tgrosinger/advanced-tables-obsidian#52, kdnk/obsidian-automatic-linker#35; what its link index records is not documented, so the link is kept)',
    files: T, note: '| a | b |\n|---|---|\n| [[T#H|alias]] | x |\n', links: [link('[[T#H|alias]]', 'T', 'H', 'alias')], cli: true },
  { name: 'an unescaped | in a table header row keeps the wikilink too', rule: 'tables, decided (as above)',
    files: T, note: '| [[T|t]] | b | c |\n|---|---|---|\n| 1 | 2 | 3 |\n', links: [link('[[T|t]]', 'T', null, 't')] },
];
