import { linesOf, type Link, type NoteModel } from '../markdown/index.js';
import { cleanLinkPath, isExternalLink, linkFoldKey } from '../links/index.js';
import { exactKeyOf } from './exact-key.js';
import { MAX_SECTIONS_PER_NOTE } from './schema.js';
import { splitSection } from './split-section.js';
import { cjkBigrams, distinctTokens, hasCjk, indexText, normalizeText, tokenGeneration, tokenList, type TokenList } from './text-pipeline.js';

/**
 * Turn one parsed note into the rows the index stores. Pure: no SQL, no disk.
 *
 * Sections are the unit of retrieval (DESIGN §4). Each FTS row carries the note's
 * title and aliases, the section's own heading apart from the headings above it
 * (a deep section is about its own heading first; the path is context), and its
 * body. So a title match lifts the note, and the heading and body decide which
 * of its sections is shown.
 *
 * A section with no words of its own gets no FTS row, so it is never a hit or
 * evidence: a heading directly followed by a subheading has nothing to read, and
 * its heading is searchable in the `path` column of each subsection.
 */

/**
 * Characters of a section's body that are searchable. A 2 MB single-line base64
 * image note must not cost seconds per refresh; beyond this the section is still
 * stored and shown whole, but only its first part is searchable (`body_capped`).
 */
export const MAX_INDEXED_BODY_CHARS = 200_000;

export interface SectionToStore {
  idx: number;
  /** The heading path as stored: a JSON array of heading texts, outermost first. */
  headingPath: string;
  level: number;
  startLine: number;
  endLine: number;
  startOffset: number;
  endOffset: number;
  text: string;
  /** 1-based part number and number of parts, when an oversized section was split (else 1 of 1). */
  part: number;
  parts: number;
  bodyCapped: boolean;
  /** No words of its own (the heading line at most). */
  empty: boolean;
  /** The FTS row; null for an empty section (see {@link noteRows}). */
  fts: { title: string; aliases: string; heading: string; path: string; body: string } | null;
  /** Character bigrams of its CJK text (title, heading, body), or null when it has none. */
  bigrams: string | null;
}

export interface PropertyRow {
  key: string;
  value: string;
  raw: string;
}

export interface NoteRows {
  title: string;
  /** The title's exact-match key (`files.title_key`) and the path's name key (`files.name_key`). */
  titleKey: string;
  nameKey: string;
  sections: SectionToStore[];
  aliases: { alias: string; key: string }[];
  tags: { tag: string; name: string; line: number; source: string }[];
  properties: PropertyRow[];
  anchors: string;
  /** Pipeline tokens of the frontmatter's string values (note-level anchor text, anchors.ts), or ''. */
  description: string;
  /**
   * The distinct tokens of every FTS row of its sections (all five columns): the
   * note's `notes_fts` row (schema.ts), or null when no section has an FTS row.
   */
  noteWords: string | null;
}


/** `notes/My Note.md` → `My Note`. */
export function noteTitle(path: string): string {
  const base = path.slice(path.lastIndexOf('/') + 1);
  return base.replace(/\.md$/i, '');
}

/** The key a link's path part and a file's name share when the link may point at the file. */
export function nameKey(pathOrLink: string): string {
  const trimmed = cleanLinkPath(pathOrLink).replace(/\/+$/, '');
  const base = trimmed.slice(trimmed.lastIndexOf('/') + 1);
  return linkFoldKey(base).replace(/\.md$/, '');
}

function propertyRows(data: unknown): PropertyRow[] {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) return [];
  const out: PropertyRow[] = [];
  for (const [k, v] of Object.entries(data as Record<string, unknown>)) {
    const key = k.normalize('NFC').toLowerCase();
    const values = Array.isArray(v) ? v : [v];
    for (const item of values) {
      if (item === null || item === undefined) continue;
      const text = typeof item === 'object' ? JSON.stringify(item) : String(item);
      out.push({ key, value: text.normalize('NFC').toLowerCase(), raw: JSON.stringify(item) ?? 'null' });
    }
  }
  return out;
}

/**
 * Plain string values of the frontmatter (description, summary, aliases, tags,
 * status…): how the note describes itself, searchable as note-level anchor text
 * (anchors.ts) rather than as words of one section, which would make a heading
 * with nothing under it look like it had words.
 */
function propertyText(rows: PropertyRow[]): string {
  return rows
    .filter((r) => r.raw.startsWith('"'))
    .map((r) => JSON.parse(r.raw) as string)
    .join('\n');
}

export function noteRows(path: string, text: string, model: NoteModel): NoteRows {
  const title = noteTitle(path);
  const aliases = model.aliases.map((a) => ({ alias: a, key: exactKeyOf(a) }));
  const properties = propertyRows(model.frontmatter?.data ?? null);
  // The stem table's generation the note's token lists are taken in (distinctTokens).
  const generation = tokenGeneration();
  const titleWords = tokenList(title);
  const aliasWords = tokenList(model.aliases.join('\n'));
  const ftsTitle = titleWords.words.join(' ');
  const ftsAliases = aliasWords.words.join(' ');
  // Each section's own tokens (heading, headings above, body), for the note's distinct words.
  const tokens: TokenList[][] = [];
  const titleCjk = hasCjk(title) ? normalizeText(title) : '';
  const sections: SectionToStore[] = [];
  const headingOnly = new Set<number>();
  const source = model.sections.length > 0 ? model.sections : [wholeNote(text, model)];
  source.forEach((s, n) => {
    const parts = splitSection(text, s.range, model.protected);
    const ownWords = s.heading ? tokenList(s.headingPath[s.headingPath.length - 1] ?? '') : NO_TOKENS;
    const aboveWords = tokenList(s.headingPath.slice(0, -1).join('\n'));
    const headingJson = JSON.stringify(s.headingPath);
    const own = ownWords.words.join(' ');
    const above = aboveWords.words.join(' ');
    // The content of a bare heading is in its subsections when the next section is deeper.
    const next = source[n + 1];
    const hasSubsections = s.heading !== null && next?.heading != null && next.heading.level > s.heading.level;
    parts.forEach((range, k) => {
      // The heading line is indexed in its own column; the body is what follows it.
      const bodyStart = k === 0 && s.heading ? s.heading.range.end : range.start;
      let body = text.slice(bodyStart, range.end);
      const bodyCapped = body.length > MAX_INDEXED_BODY_CHARS;
      if (bodyCapped) body = body.slice(0, MAX_INDEXED_BODY_CHARS);
      const lines = parts.length === 1 ? s : linesOf(model.lineStarts, range);
      const bodyWords = tokenList(body);
      const bodyTokens = bodyWords.words.join(' ');
      const empty = bodyTokens === '';
      tokens.push([ownWords, aboveWords, bodyWords]);
      const cjk = `${titleCjk}\n${hasCjk(s.headingPath[s.headingPath.length - 1] ?? '') ? normalizeText(s.headingPath[s.headingPath.length - 1]!) : ''}\n${hasCjk(body) ? normalizeText(body) : ''}`;
      const grams = cjk.length > 2 ? cjkBigrams(cjk).join(' ') : '';
      sections.push({
        idx: sections.length,
        headingPath: headingJson,
        level: s.heading?.level ?? 0,
        startLine: k === 0 ? s.startLine : lines.startLine,
        endLine: k === parts.length - 1 ? s.endLine : lines.endLine,
        startOffset: range.start,
        endOffset: range.end,
        text: text.slice(range.start, range.end),
        part: k + 1,
        parts: parts.length,
        bodyCapped,
        empty,
        fts: { title: ftsTitle, aliases: ftsAliases, heading: own, path: above, body: bodyTokens },
        bigrams: grams === '' ? null : grams,
      });
      if (empty && hasSubsections) headingOnly.add(sections.length - 1);
    });
  });
  // A section with no words is never a hit: not in the FTS tables. Its heading is
  // searchable in its subsections' path column; a heading with nothing under it
  // at all keeps its row only in a note where no section has words (so that the
  // note can still be found by its headings).
  const anyWords = sections.some((x) => !x.empty);
  sections.forEach((x, k) => {
    if (x.empty && (anyWords || headingOnly.has(k))) {
      x.fts = null;
      x.bigrams = null;
    }
  });
  capSections(sections, text, model);
  const noteWords = distinctWords(sections, [titleWords, aliasWords], tokens, generation);
  const tags = model.tags.map((t) => ({ tag: t.name.toLowerCase(), name: t.name, line: t.startLine, source: t.source }));
  const anchors = JSON.stringify({
    headings: model.headings,
    blockIds: model.blockIds,
    lineCount: model.lineStarts.length,
    lastLineStart: model.lineStarts[model.lineStarts.length - 1] ?? 0,
    length: model.length,
  });
  return {
    title,
    titleKey: exactKeyOf(title),
    nameKey: nameKey(path),
    sections,
    aliases,
    tags,
    properties,
    anchors,
    description: indexText(propertyText(properties)),
    noteWords,
  };
}

/**
 * A link as its `links` row holds it, from `kind` to `name_key` (write-note.ts):
 * plain values, computed where the note is parsed (a parse worker), so the
 * writing thread only binds them, and cheaper to clone across than the link objects.
 */
export type LinkRow = [
  kind: Link['kind'],
  raw: string,
  path: string,
  subpath: string | null,
  display: string | null,
  startLine: number,
  endLine: number,
  startOffset: number,
  endOffset: number,
  inComment: 0 | 1,
  property: string | null,
  external: 0 | 1,
  nameKey: string,
];

export function linkRows(links: readonly Link[]): LinkRow[] {
  return links.map((l) => [
    l.kind,
    l.raw,
    l.path,
    l.subpath,
    l.display,
    l.startLine,
    l.endLine,
    l.range.start,
    l.range.end,
    l.inComment ? 1 : 0,
    l.property ?? null,
    isExternalLink(l) ? 1 : 0,
    nameKey(l.path),
  ]);
}

/**
 * The distinct tokens of the sections that keep an FTS row (the same lists
 * their columns were joined from), or null when none does. Note-wide tokens
 * (title, aliases) count once.
 */
function distinctWords(sections: SectionToStore[], noteWide: TokenList[], tokens: TokenList[][], generation: number): string | null {
  const kept = sections.filter((s) => s.fts !== null);
  if (kept.length === 0) return null;
  const lists = [...noteWide];
  for (const s of kept) lists.push(...tokens[s.idx]!);
  return distinctTokens(lists, generation).join(' ');
}

const NO_TOKENS: TokenList = { words: [], stems: [] };

/**
 * A note with more sections than a note's id range holds (a million headings:
 * adversarial, not a real note) keeps the first ones; the last kept section is
 * stretched to the end of the note so every line still belongs to a section.
 */
function capSections(sections: SectionToStore[], text: string, model: NoteModel): void {
  if (sections.length <= MAX_SECTIONS_PER_NOTE) return;
  sections.length = MAX_SECTIONS_PER_NOTE;
  const last = sections[sections.length - 1]!;
  last.endOffset = text.length;
  last.endLine = Math.max(1, model.lineStarts.length);
  last.text = text.slice(last.startOffset);
}

/** A note the parser gave no sections (empty, or only frontmatter): one section so its title stays findable. */
function wholeNote(text: string, model: NoteModel): NoteModel['sections'][number] {
  const start = model.frontmatter?.range.end ?? 0;
  return {
    index: 0,
    heading: null,
    headingPath: [],
    range: { start, end: text.length },
    startLine: Math.min(model.frontmatter ? model.frontmatter.endLine + 1 : 1, Math.max(1, model.lineStarts.length)),
    endLine: Math.max(1, model.lineStarts.length),
  };
}
