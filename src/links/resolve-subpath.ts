import type { NoteModel } from '../markdown/index.js';
import { blockKey, headingKey } from './strip-heading.js';

/** What resolving a subpath needs from a parsed note. */
export type AnchorSource = Pick<NoteModel, 'headings' | 'blockIds' | 'lineStarts'> & {
  /** Text length; when given, an empty line after a final newline is not counted in a section. */
  length?: number;
};

export interface SubpathResult {
  kind: 'heading' | 'block';
  /** Headings: the segments as written, joined by `#` (empty ones dropped). Blocks: the id without `^`. */
  value: string;
  /**
   * Whether the anchor exists in the target. `null` when it was not checked: the
   * link did not resolve to one file, or the target is not a Markdown note
   * (`![[X.base#View]]`, `[[doc.pdf#page=3]]`: those subpaths belong to other
   * viewers, and we do not read those files).
   */
  exists: boolean | null;
  /** Where the anchor is, `[from, to]` (1-based, inclusive, like every `lines` in vaultgate's output): a heading's whole section (subsections included), or the whole block an id names (a paragraph, a list item with its sub-items, a quote, callout or table). */
  lines?: [number, number];
}

/**
 * Parse a link's subpath (the text after its first `#`, without it) into a kind
 * and value. Empty segments are dropped (`[[N##H]]` = `[[N#H]]`, documented for
 * headings); a subpath with nothing left is no subpath (`[[N#]]` links to N).
 *
 * Decided: the drop-empty rule applies before the block test, so `[[N##^id]]`
 * is the block `^id`, like `[[N#^id]]` (vaultofknowledge uses that form three
 * times, each naming an id that exists).
 */
export function parseSubpath(subpath: string | null): { kind: 'heading' | 'block'; segments: string[]; value: string } | null {
  if (subpath === null) return null;
  const segments = subpath.split('#').filter((s) => s !== '');
  if (segments.length === 0) return null;
  if (segments[0]!.startsWith('^')) {
    // A block id never contains `#`; anything after one is ignored, as Obsidian reads only the id.
    return { kind: 'block', segments: [segments[0]!.slice(1)], value: segments[0]!.slice(1) };
  }
  return { kind: 'heading', segments, value: segments.join('#') };
}

/**
 * Find a subpath in a parsed note (obsidian-links.md "Subpaths"):
 * - heading path `A#B`: each segment matches, by {@link headingKey}, the first
 *   heading after the previous match that is still inside the previous match's
 *   section (a deeper level, before any heading of the same or a higher level);
 * - block `^id`: the first block id equal case-insensitively.
 * A segment that strips to nothing (`#!!!`) can match only a heading that also
 * strips to nothing.
 */
export function resolveSubpath(note: AnchorSource, subpath: string | null): SubpathResult | null {
  const parsed = parseSubpath(subpath);
  if (parsed === null) return null;
  if (parsed.kind === 'block') {
    const want = blockKey(parsed.value);
    const id = note.blockIds.find((b) => blockKey(b.id) === want);
    // The whole block the id names, not the line carrying `^id` (Obsidian embeds the element).
    const lines: [number, number] | undefined = id ? [id.blockStartLine, id.blockEndLine] : headingBlock(note, want);
    return lines ? { kind: 'block', value: parsed.value, exists: true, lines } : { kind: 'block', value: parsed.value, exists: false };
  }
  const matched = matchHeadingPath(note, parsed.segments);
  if (matched === null) return { kind: 'heading', value: parsed.value, exists: false };
  const headings = note.headings;
  const found = matched[matched.length - 1]!;
  const h = headings[found]!;
  // The last line of the note; an empty line after a final newline does not count.
  const lineCount = note.lineStarts.length;
  const trailingEmpty = note.length !== undefined && lineCount > 1 && note.lineStarts[lineCount - 1] === note.length;
  let endLine = trailingEmpty ? lineCount - 1 : lineCount;
  for (let i = found + 1; i < headings.length; i++) {
    if (headings[i]!.level <= h.level) {
      endLine = headings[i]!.startLine - 1;
      break;
    }
  }
  return { kind: 'heading', value: parsed.value, exists: true, lines: [h.startLine, endLine] };
}

/**
 * The heading each segment of a heading path matches (indexes into
 * `note.headings`, one per segment), or null when one does not match: each
 * segment matches, by {@link headingKey}, the first heading after the previous
 * match that is still inside the previous match's section. What a heading
 * rename needs to know which links name the renamed heading, and through which
 * segment.
 */
export function matchHeadingPath(note: Pick<AnchorSource, 'headings'>, segments: readonly string[]): number[] | null {
  const headings = note.headings;
  const out: number[] = [];
  let from = 0;
  let parentLevel = 0; // 0: the whole note
  for (const segment of segments) {
    const want = headingKey(segment);
    let found = -1;
    for (let i = from; i < headings.length; i++) {
      const h = headings[i]!;
      if (parentLevel > 0 && h.level <= parentLevel) break; // left the previous match's section
      if (headingKey(h.text) === want) {
        found = i;
        break;
      }
    }
    if (found < 0) return null;
    out.push(found);
    from = found + 1;
    parentLevel = headings[found]!.level;
  }
  return out;
}

/** A block id at the end of a heading line: `## Title ^id`. */
const HEADING_ID = /(?:^|\s)\^([A-Za-z0-9-]+)$/;

/**
 * Decided: a `^id` ending a heading line names that heading as a block. The note
 * model records block ids on paragraphs, list items and after quotes/tables only;
 * Obsidian treats a heading as a block too, and vaultofknowledge links to such ids
 * (`[[Arguments against religion##^heaven-without-test-for-obedience]]`).
 */
function headingBlock(note: AnchorSource, want: string): [number, number] | undefined {
  for (const h of note.headings) {
    const m = HEADING_ID.exec(h.text);
    if (m && blockKey(m[1]!) === want) return [h.startLine, h.endLine];
  }
  return undefined;
}
