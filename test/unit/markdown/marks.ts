/**
 * Marked-up source for range tests (lezer's style): `«` opens and `»` closes a
 * range, the marks are stripped to get the input, so expected offsets cannot
 * drift from the text. Ranges are returned in the order they open.
 */
import type { NoteModel, Range } from '../../../src/markdown/index.js';

export function marked(source: string): { text: string; ranges: Range[] } {
  let text = '';
  const ranges: Range[] = [];
  const open: Range[] = [];
  for (const ch of source) {
    if (ch === '«') {
      const r = { start: text.length, end: -1 };
      ranges.push(r);
      open.push(r);
    } else if (ch === '»') {
      const r = open.pop();
      if (!r) throw new Error('unbalanced » in marked source');
      r.end = text.length;
    } else {
      text += ch;
    }
  }
  if (open.length) throw new Error('unbalanced « in marked source');
  return { text, ranges };
}

/** `\n` to `\r\n`, for CRLF twins of a test text. */
export function crlf(text: string): string {
  return text.replace(/\n/g, '\r\n');
}

/** Every element of a note model that carries a range and lines: what the slice invariants are checked on. */
export function rangedElements(m: NoteModel): { range: Range; startLine: number; endLine: number }[] {
  return [
    ...m.headings,
    ...m.sections,
    ...m.links,
    ...m.tags,
    ...m.blockIds,
    ...m.callouts,
    ...m.protected,
    ...(m.frontmatter ? [m.frontmatter] : []),
  ];
}
