import { VaultgateError } from '../../errors.js';
import { blockAround, lineBlocks, linesOf, parseNote, type NoteModel, type Range } from '../../markdown/index.js';
import type { ManagedMarker } from '../../vault/index.js';
import { unsafeAt, unsafeRanges, type UnsafeRange } from './unsafe-ranges.js';

/**
 * Where a new link goes in the source note, exactly (DESIGN §5.3). Pure.
 *
 * A link is inserted as a paragraph of its own, with a blank line before and
 * after, right after a block: after the paragraph, list, table, quote or
 * callout holding the anchor fragment; at the end of a section
 * (`--after-heading`); or after a given line (`--line`). Appending a new item
 * at the end of a list is done only when asked (`listItem`). Everything else in
 * the note is kept byte for byte, and the result is re-parsed to check the new
 * link is a link, outside every protected structure (inside the list, for a
 * list item).
 *
 *   Entries expire after one hour.        Entries expire after one hour.
 *   The limit protects the origin.   →    The limit protects the origin.
 *                                          
 *   ## Next                                [[Origin load]]
 *                                          
 *                                          ## Next
 */
export type Position =
  | { kind: 'fragment'; range: Range; listItem: boolean }
  | { kind: 'heading'; path: string[] }
  | { kind: 'line'; line: number };

export interface Insertion {
  /** Where the new text goes: an empty range (start = end) in the old text. */
  range: Range;
  /** The lines of the old text shown in `before` (1-based, inclusive). */
  lines: [number, number];
  /** Those lines before the change… */
  before: string;
  /** …and after it. */
  after: string;
  /** Exactly the text inserted. */
  text: string;
  mode: 'paragraph' | 'list_item';
}

function refuse(reason: string, message: string, details: Record<string, unknown> = {}): VaultgateError {
  return new VaultgateError('POSITION_REFUSED', message, {
    details: { reason, ...details },
    hint: 'Pick a place outside frontmatter, code, tables, lists, quotes, callouts, links, math, comments and managed blocks: --at FRAGMENT_ID, --after-heading "A > B" or --line L.',
  });
}

/** The note an insertion goes into: its text, its model, and the vault's managed-block markers. */
export interface InsertionNote {
  text: string;
  model: NoteModel;
  managedMarkers?: readonly ManagedMarker[];
}

export function planInsertion(note: InsertionNote, position: Position, linkText: string): { insertion: Insertion; newText: string } {
  const { text, model, managedMarkers = [] } = note;
  const blocks = lineBlocks(text, model);
  const unsafe = unsafeRanges(text, model, blocks, managedMarkers);
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  const lineCount = model.lineStarts.length;
  let afterLine: number;
  let listItem: { indent: string; marker: string } | null = null;

  if (position.kind === 'line') {
    if (position.line < 1 || position.line > lineCount) throw refuse('line_out_of_range', `line ${position.line} is not in the note (1–${lineCount})`, { line: position.line });
    afterLine = position.line;
    if (blocks.kinds[afterLine - 1] === 'prose' && blocks.kinds[afterLine] === 'prose') {
      const [, end] = blockAround(blocks, afterLine);
      throw refuse('inside_paragraph', `line ${afterLine} is inside a paragraph (it goes on to line ${end})`, { line: afterLine, paragraph_ends: end });
    }
  } else if (position.kind === 'heading') {
    afterLine = sectionEnd(model, blocks, position.path);
  } else {
    const line = linesOf(model.lineStarts, position.range).startLine;
    const kind = blocks.kinds[line - 1];
    if (kind === 'list' || kind === 'table') {
      const container = model.protected.find((p) => p.kind === kind && p.range.start <= position.range.start && position.range.end <= p.range.end);
      if (!container) throw refuse(`inside_${kind}`, `cannot find the ${kind} around line ${line}`);
      afterLine = linesOf(model.lineStarts, container.range).endLine;
      if (position.listItem && kind === 'list') listItem = listMarker(text, model, container.range);
    } else if (kind === 'prose' || kind === 'quote') {
      afterLine = blockAround(blocks, line)[1];
    } else {
      throw refuse(`inside_${kind}`, `the anchor at line ${line} is in a ${kind} line, not in prose, a list, a table or a quote`);
    }
    if (position.listItem && !listItem) throw refuse('not_in_list', `a list item can be appended only to a list; the anchor at line ${line} is not in one`);
  }

  const offset = model.lineStarts[afterLine - 1]! + lineText({ text, model, blocks }, afterLine).length;
  const inside = unsafeAt(unsafe, offset);
  if (inside.length > 0) throw insideRefusal(inside, afterLine);
  const blank = (l: number) => l >= 1 && l <= lineCount && blocks.kinds[l - 1] === 'blank';
  const nextExists = afterLine < lineCount;
  let inserted: string;
  if (listItem) inserted = `${eol}${listItem.indent}${listItem.marker} ${linkText}`;
  // A blank line before the link's paragraph (the line itself, when blank) and after it (the next line, when blank;
  // at the very end of a note that ends with a line break, keep ending with one).
  else inserted = (blank(afterLine) ? '' : eol) + eol + linkText + (nextExists ? (blank(afterLine + 1) ? '' : eol) : blank(afterLine) && offset > 0 ? eol : '');

  const newText = text.slice(0, offset) + inserted + text.slice(offset);
  checkResult({ text, model, managedMarkers }, { newText, offset, inserted, linkText, asListItem: listItem !== null });
  const regionStart = model.lineStarts[afterLine - 1]!;
  const lastLine = Math.min(afterLine + 1, lineCount);
  const regionEnd = lastLine < lineCount ? model.lineStarts[lastLine]! : text.length;
  return {
    newText,
    insertion: {
      range: { start: offset, end: offset },
      lines: [afterLine, lastLine],
      before: text.slice(regionStart, regionEnd),
      after: newText.slice(regionStart, regionEnd + inserted.length),
      text: inserted,
      mode: listItem ? 'list_item' : 'paragraph',
    },
  };
}

function lineText({ text, model, blocks }: { text: string; model: NoteModel; blocks: ReturnType<typeof lineBlocks> }, line: number): string {
  return text.slice(model.lineStarts[line - 1]!, blocks.lineEnds[line - 1]!);
}

function insideRefusal(inside: UnsafeRange[], line: number): VaultgateError {
  // Name the outermost structure: "inside a list" says more than "inside a link inside a list".
  const outer = [...inside].sort((a, b) => a.range.start - b.range.start || b.range.end - a.range.end)[0]!;
  const kind = outer.kind.replace('-', '_');
  return refuse(`inside_${kind}`, `after line ${line} is inside ${outer.kind === 'inline-code' ? 'inline code' : `a ${outer.kind.replace('-', ' ')}`}; nothing may be inserted there`, {
    line,
    structure: { kind: outer.kind, range: outer.range },
  });
}

/** The last non-blank line of the section whose heading path is `path` (exact, else case-insensitive); refused when several match. */
function sectionEnd(model: NoteModel, blocks: ReturnType<typeof lineBlocks>, path: string[]): number {
  const norm = (p: string[]) => p.map((h) => h.trim());
  const want = norm(path);
  let matches = model.sections.filter((s) => norm(s.headingPath).join('\u0000') === want.join('\u0000'));
  if (matches.length === 0) matches = model.sections.filter((s) => norm(s.headingPath).join('\u0000').toLowerCase() === want.join('\u0000').toLowerCase());
  if (matches.length === 0) {
    throw new VaultgateError('HEADING_NOT_FOUND', `no section ${JSON.stringify(path.join(' > '))} in the note`, {
      details: { headings: model.sections.filter((s) => s.heading).map((s) => s.headingPath.join(' > ')) },
      hint: 'Write the heading path with " > " between levels, as in `vaultgate note PATH` sections.',
    });
  }
  if (matches.length > 1) {
    throw refuse('heading_ambiguous', `${matches.length} sections are called ${JSON.stringify(path.join(' > '))} (lines ${matches.map((s) => s.startLine).join(', ')})`, {
      lines: matches.map((s) => s.startLine),
    });
  }
  const s = matches[0]!;
  let line = s.endLine;
  while (line > s.startLine && blocks.kinds[line - 1] === 'blank') line--;
  return line;
}

/** The indentation and marker of a new item at the end of a list: the list's first item's indent and bullet, or the next number. */
function listMarker(text: string, model: NoteModel, range: Range): { indent: string; marker: string } {
  const { startLine, endLine } = linesOf(model.lineStarts, range);
  const ITEM = /^([ \t]*(?:>[ \t]?)*[ \t]*)([-*+]|(\d{1,9})([.)]))(?:[ \t]|$)/;
  const first = ITEM.exec(text.slice(model.lineStarts[startLine - 1]!, range.end));
  if (!first) throw refuse('inside_list', `cannot read the list marker at line ${startLine}`);
  const indent = first[1]!;
  if (first[3] === undefined) return { indent, marker: first[2]! };
  let last = Number(first[3]);
  for (let l = startLine; l <= endLine; l++) {
    const m = ITEM.exec(text.slice(model.lineStarts[l - 1]!, model.lineStarts[l] ?? text.length));
    if (m && m[1] === indent && m[3] !== undefined) last = Number(m[3]);
  }
  return { indent, marker: `${last + 1}${first[4]}` };
}

/**
 * Re-parse the new text: the inserted link must read as one link, outside
 * everything protected (inside the list, for an item), and every other
 * structure of the note — protected ranges, headings, callouts, sections —
 * must be exactly what it was, text for text. This is the guarantee; the rules
 * above only pick the place.
 */
function checkResult(
  before: { text: string; model: NoteModel; managedMarkers: readonly ManagedMarker[] },
  after: { newText: string; offset: number; inserted: string; linkText: string; asListItem: boolean },
): void {
  const { text: oldText, model: oldModel, managedMarkers } = before;
  const { newText, offset, inserted, linkText, asListItem } = after;
  const model = parseNote(newText);
  const linkStart = offset + inserted.indexOf(linkText);
  const link = model.links.find((l) => l.range.start === linkStart && l.range.end === linkStart + linkText.length);
  if (!link) throw refuse('not_a_link_there', `the inserted text would not read as a link at that place`, { text: inserted });
  const around = unsafeRanges(newText, model, undefined, managedMarkers).filter((r) => r.range.start < linkStart + linkText.length && linkStart < r.range.end && !(r.range.start === link.range.start && r.range.end === link.range.end));
  const allowed = asListItem ? around.filter((r) => r.kind !== 'list') : around;
  if (allowed.length > 0) throw refuse(`inside_${allowed[0]!.kind.replace('-', '_')}`, `the inserted link would be read as part of a ${allowed[0]!.kind}`, { text: inserted });
  if (asListItem && !around.some((r) => r.kind === 'list')) throw refuse('not_in_list', 'the new item would not continue the list', { text: inserted });
  const skip = asListItem ? 'list' : null;
  const expected = [...signature(oldText, oldModel, skip), `link:${linkText}`].sort();
  const actual = signature(newText, model, skip);
  if (JSON.stringify(actual) !== JSON.stringify(expected)) {
    throw refuse('would_change_structure', 'inserting there would change how the rest of the note reads (a quote, list, heading or other structure around it)', { text: inserted });
  }
}

/** The note's structures, text for text (a list's text changes when an item is appended: `skip` leaves it out). */
function signature(text: string, model: NoteModel, skip: 'list' | null): string[] {
  return [
    ...model.protected.filter((p) => p.kind !== skip).map((p) => `${p.kind}:${text.slice(p.range.start, p.range.end)}`),
    ...model.headings.map((h) => `heading:${h.level}:${h.text}`),
    ...model.callouts.map((c) => `callout:${text.slice(c.range.start, c.range.end)}`),
  ].sort();
}
