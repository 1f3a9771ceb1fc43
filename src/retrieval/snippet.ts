import type { QueryTerm } from './query.js';
import { lineWords, normalizeText, stemWord } from '../index/index.js';

/** Longest snippet, in UTF-16 units. */
export const SNIPPET_CHARS = 200;
/** Lines longer than this are looked at only in their first part (a 2 MB base64 line has no words). */
const MAX_LINE_SCAN = 20_000;
const WORD = /[\p{L}\p{N}\p{M}]+/gu;

/**
 * A short excerpt of a section around the first line that holds a query token,
 * preferring body lines over the heading. FTS5's own snippet() cannot be used:
 * the FTS columns hold stemmed tokens, not the note's text.
 */
export function makeSnippet(text: string, terms: QueryTerm[]): string {
  const exact = new Set<string>();
  const prefixes: string[] = [];
  for (const t of terms) {
    t.tokens.forEach((tok, k) => (t.prefix && k === t.tokens.length - 1 ? prefixes.push(tok) : exact.add(tok)));
  }
  const hits = (stem: string) => exact.has(stem) || prefixes.some((p) => stem.startsWith(p));
  const lines = text.split('\n');
  let fallback: string | null = null;
  let headingHit: string | null = null;
  for (const raw of lines) {
    const line = raw.length > MAX_LINE_SCAN ? raw.slice(0, MAX_LINE_SCAN) : raw;
    const isHeading = /^\s{0,3}#{1,6}\s/.test(line);
    if (fallback === null && !isHeading && line.trim() !== '' && !/^---\s*$/.test(line)) fallback = line;
    const words = lineWords(normalizeText(line));
    if (!words.some((w) => hits(stemWord(w)))) continue;
    if (isHeading) {
      headingHit ??= line;
      continue;
    }
    return window(line, firstHit(line, hits));
  }
  return window(headingHit ?? fallback ?? lines[0] ?? '', 0);
}

function firstHit(line: string, hits: (stem: string) => boolean): number {
  for (const m of line.matchAll(WORD)) {
    const words = lineWords(normalizeText(m[0]));
    if (words.some((w) => hits(stemWord(w)))) return m.index ?? 0;
  }
  return 0;
}

/** Cut a line to {@link SNIPPET_CHARS} around `at`, collapsing whitespace and marking cuts with `…`. */
function window(line: string, at: number): string {
  let start = Math.max(0, at - 60);
  let end = Math.min(line.length, start + SNIPPET_CHARS);
  start = Math.max(0, Math.min(start, end - SNIPPET_CHARS));
  // Do not split a surrogate pair.
  if (start > 0 && /[\uDC00-\uDFFF]/.test(line[start] ?? '')) start--;
  if (end < line.length && /[\uD800-\uDBFF]/.test(line[end - 1] ?? '')) end--;
  const body = line.slice(start, end).replace(/\s+/g, ' ').trim();
  return (start > 0 ? '…' : '') + body + (end < line.length ? '…' : '');
}
