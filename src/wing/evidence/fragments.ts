import { computeLineStarts, lineBlocks, linesOf, type NoteModel, type ProtectedRange, type Range } from '../../markdown/index.js';

/**
 * The fragments of a note an evidence catalog hands out: sentences of
 * paragraphs (and of quotes and callouts), list items, and table rows. Each is
 * an exact substring of the note (`text.slice(range.start, range.end)`), trimmed
 * of surrounding whitespace, and never crosses a protected structure: a
 * sentence boundary inside a link, an embed, inline code or math is not a
 * boundary, and code blocks, HTML, math blocks, comments and frontmatter yield
 * no fragments at all (they are not prose a claim can rest on).
 *
 *   Caches expire after an hour. See [[v1.2 notes]] for why.   → 2 sentences
 *   - [ ] renew the certificate                                → "renew the certificate"
 *   | TTL | 3600 |                                             → "| TTL | 3600 |"
 */
export type FragmentKind = 'sentence' | 'list_item' | 'table_row';

export interface NoteFragment {
  kind: FragmentKind;
  /** Half-open UTF-16 range into the note text (BOM stripped). */
  range: Range;
  /** 1-based inclusive line span. */
  lines: [number, number];
  /** Heading path of the section the fragment starts in ([] before the first heading). */
  heading_path: string[];
  /** Exactly `noteText.slice(range.start, range.end)`. */
  text: string;
  /** The same text occurs more than once in the note: citing it would not say which place is meant. */
  ambiguous: boolean;
}

/** Inline structures a sentence boundary must not fall inside. */
const INLINE_KINDS = new Set(['link', 'embed', 'inline-code', 'math', 'comment', 'html']);

const QUOTE_PREFIX = /^[ \t]{0,3}(?:>[ \t]?)+/;
const CALLOUT_HEAD = /^\[![^\]\s]+\][+-]?[ \t]*/;
const LIST_ITEM = /^([ \t]*(?:>[ \t]?)*[ \t]*)([-*+]|\d{1,9}[.)])(?:[ \t]+(?:\[[^\]\n]\][ \t]+)?|$)/;
const TABLE_DELIMITER = /^[ \t>]*\|?[ \t]*:?-+:?[ \t]*(?:\|[ \t]*:?-+:?[ \t]*)*\|?[ \t]*$/;
const TRAILING_BLOCK_ID = /[ \t]+\^[A-Za-z0-9-]+$/;
const BLOCK_ID_ONLY = /^\^[A-Za-z0-9-]+$/;
const HAS_WORD = /[\p{L}\p{N}]/u;

let sentenceSegmenter: Intl.Segmenter | undefined;

export function noteFragments(text: string, model: NoteModel): NoteFragment[] {
  const lineStarts = model.lineStarts.length ? model.lineStarts : computeLineStarts(text);
  const lineCount = lineStarts.length;
  const { kinds, lineEnds } = lineBlocks(text, { ...model, lineStarts });
  const lineEnd = (i: number) => lineEnds[i]!;
  const inline = model.protected.filter((p) => INLINE_KINDS.has(p.kind));
  const quoteContent = (l: number) => {
    const line = text.slice(lineStarts[l]!, lineEnd(l));
    return line.slice(QUOTE_PREFIX.exec(line)?.[0].length ?? 0);
  };
  const spans: { kind: FragmentKind; start: number; end: number }[] = [];
  let i = 0;
  while (i < lineCount) {
    const kind = kinds[i]!;
    if (kind === 'prose') {
      let j = i;
      while (j + 1 < lineCount && kinds[j + 1] === 'prose') j++;
      sentences(text, lineStarts[i]!, lineEnd(j), inline, spans);
      i = j + 1;
    } else if (kind === 'quote') {
      // A callout's head line is its title, a sentence of its own; the rest of the
      // quote (with lazy continuation lines) is one paragraph, so a sentence or an
      // inline structure may run across its lines (the `>` markers stay inside).
      const line = text.slice(lineStarts[i]!, lineEnd(i));
      const start = lineStarts[i]! + (QUOTE_PREFIX.exec(line)?.[0].length ?? 0);
      const head = CALLOUT_HEAD.exec(text.slice(start, lineEnd(i)));
      if (head) {
        sentences(text, start + head[0].length, lineEnd(i), inline, spans);
        i++;
        continue;
      }
      let j = i;
      while (j + 1 < lineCount && (kinds[j + 1] === 'prose' || (kinds[j + 1] === 'quote' && !CALLOUT_HEAD.test(quoteContent(j + 1))))) j++;
      sentences(text, start, lineEnd(j), inline, spans);
      i = j + 1;
    } else if (kind === 'table') {
      const line = text.slice(lineStarts[i]!, lineEnd(i));
      if (!TABLE_DELIMITER.test(line)) pushTrimmed(text, lineStarts[i]! + (QUOTE_PREFIX.exec(line)?.[0].length ?? 0), lineEnd(i), 'table_row', spans);
      i++;
    } else if (kind === 'list') {
      const m = LIST_ITEM.exec(text.slice(lineStarts[i]!, lineEnd(i)));
      if (!m) {
        i++; // a continuation line whose item started inside a skipped block
        continue;
      }
      let j = i;
      while (j + 1 < lineCount && kinds[j + 1] === 'list' && !LIST_ITEM.test(text.slice(lineStarts[j + 1]!, lineEnd(j + 1)))) j++;
      pushTrimmed(text, lineStarts[i]! + m[0].length, lineEnd(j), 'list_item', spans);
      i = j + 1;
    } else i++;
  }

  spans.sort((a, b) => a.start - b.start);
  // The guarantee, checked rather than assumed: no fragment cuts into a protected
  // structure (a list or table holds its items and rows; anything else is whole or outside).
  const cutting = model.protected.filter((p) => p.kind !== 'list' && p.kind !== 'table');
  const cuts = (s: { start: number; end: number }) =>
    cutting.some((p) => (p.range.start < s.start && s.start < p.range.end) || (p.range.start < s.end && s.end < p.range.end));
  return spans.filter((s) => !cuts(s)).map((s) => {
    const fragmentText = text.slice(s.start, s.end);
    const { startLine, endLine } = linesOf(lineStarts, { start: s.start, end: s.end });
    return {
      kind: s.kind,
      range: { start: s.start, end: s.end },
      lines: [startLine, endLine],
      heading_path: headingPathAt(model, s.start),
      text: fragmentText,
      ambiguous: occursTwice(text, fragmentText),
    };
  });
}

/**
 * Sentences of `text[start, end)`. Line breaks inside a paragraph are soft
 * (the segmenter would treat each as a paragraph end), so they are seen as
 * spaces — same length, so offsets stay exact. A boundary inside an inline
 * structure is dropped: `[[v1.2 notes]]` stays in one sentence.
 */
function sentences(text: string, start: number, end: number, inline: ProtectedRange[], out: { kind: FragmentKind; start: number; end: number }[]): void {
  if (end <= start) return;
  const inside = inline.filter((p) => p.range.start < end && p.range.end > start);
  const flat = text.slice(start, end).replace(/[\r\n]/g, ' ');
  sentenceSegmenter ??= new Intl.Segmenter('und', { granularity: 'sentence' });
  let from = start;
  for (const seg of sentenceSegmenter.segment(flat)) {
    const boundary = start + seg.index + seg.segment.length;
    if (boundary < end && inside.some((p) => p.range.start < boundary && boundary < p.range.end)) continue;
    pushTrimmed(text, from, boundary, 'sentence', out);
    from = boundary;
  }
  if (from < end) pushTrimmed(text, from, end, 'sentence', out);
}

function pushTrimmed(text: string, start: number, end: number, kind: FragmentKind, out: { kind: FragmentKind; start: number; end: number }[]): void {
  while (start < end && /\s/.test(text[start]!)) start++;
  while (end > start && /\s/.test(text[end - 1]!)) end--;
  const body = text.slice(start, end);
  if (BLOCK_ID_ONLY.test(body)) return;
  const id = TRAILING_BLOCK_ID.exec(body);
  if (id) end -= id[0].length;
  if (end <= start || !HAS_WORD.test(text.slice(start, end))) return;
  out.push({ kind, start, end });
}

function headingPathAt(model: NoteModel, offset: number): string[] {
  for (const s of model.sections) if (s.range.start <= offset && offset < s.range.end) return s.headingPath;
  return [];
}

function occursTwice(text: string, needle: string): boolean {
  const first = text.indexOf(needle);
  return first !== -1 && text.indexOf(needle, first + 1) !== -1;
}
