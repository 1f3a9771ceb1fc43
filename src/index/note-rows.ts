import { linesOf, type NoteModel } from '../markdown/index.js';
import { cleanLinkPath, linkFoldKey } from '../links/index.js';
import { exactKeyOf } from './query.js';
import { splitSection } from './split-section.js';
import { indexText } from './text-pipeline.js';

/**
 * Turn one parsed note into the rows the index stores. Pure: no SQL, no disk.
 *
 * Sections are the unit of retrieval (DESIGN §4). Each FTS row carries the note's
 * title and aliases as well as its own heading path and body, so a title match
 * lifts the note and the body decides which of its sections is shown.
 */

/**
 * Characters of a section's body that are searchable. A 2 MB single-line base64
 * image note must not cost seconds per refresh; beyond this the section is still
 * stored and shown whole, but only its first part is searchable (`body_capped`).
 */
export const MAX_INDEXED_BODY_CHARS = 200_000;

export interface SectionRow {
  idx: number;
  headingPath: string[];
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
  fts: { title: string; aliases: string; heading: string; body: string };
}

export interface PropertyRow {
  key: string;
  value: string;
  raw: string;
}

export interface NoteRows {
  title: string;
  sections: SectionRow[];
  aliases: { alias: string; key: string }[];
  tags: { tag: string; name: string; line: number; source: string }[];
  properties: PropertyRow[];
  anchors: string;
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

/** Plain string values of the frontmatter: searchable with the note's first section. */
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
  const ftsTitle = indexText(title);
  const ftsAliases = indexText(model.aliases.join('\n'));
  const extra = propertyText(properties);
  const sections: SectionRow[] = [];
  const source = model.sections.length > 0 ? model.sections : [wholeNote(text, model)];
  for (const s of source) {
    const parts = splitSection(text, s.range, model.protected);
    const heading = indexText(s.headingPath.join('\n'));
    parts.forEach((range, k) => {
      // The heading line is indexed in its own column; the body is what follows it.
      const bodyStart = k === 0 && s.heading ? s.heading.range.end : range.start;
      let body = text.slice(bodyStart, range.end);
      const bodyCapped = body.length > MAX_INDEXED_BODY_CHARS;
      if (bodyCapped) body = body.slice(0, MAX_INDEXED_BODY_CHARS);
      if (sections.length === 0 && extra) body = `${extra}\n${body}`;
      const lines = parts.length === 1 ? s : linesOf(model.lineStarts, range);
      sections.push({
        idx: sections.length,
        headingPath: s.headingPath,
        level: s.heading?.level ?? 0,
        startLine: k === 0 ? s.startLine : lines.startLine,
        endLine: k === parts.length - 1 ? s.endLine : lines.endLine,
        startOffset: range.start,
        endOffset: range.end,
        text: text.slice(range.start, range.end),
        part: k + 1,
        parts: parts.length,
        bodyCapped,
        fts: { title: ftsTitle, aliases: ftsAliases, heading, body: indexText(body) },
      });
    });
  }
  const tags = model.tags.map((t) => ({ tag: t.name.toLowerCase(), name: t.name, line: t.startLine, source: t.source }));
  const anchors = JSON.stringify({
    headings: model.headings,
    blockIds: model.blockIds,
    lineCount: model.lineStarts.length,
    lastLineStart: model.lineStarts[model.lineStarts.length - 1] ?? 0,
    length: model.length,
  });
  return { title, sections, aliases, tags, properties, anchors };
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
