import { lineBlocks, type LineBlocks, type NoteModel, type ProtectedKind, type Range } from '../../markdown/index.js';
import { findManagedBlocks } from '../../policy/index.js';
import type { ManagedMarker } from '../../vault/index.js';

/**
 * Every range of a note a planned insertion must not fall inside (DESIGN
 * §5.3): the model's protected ranges (frontmatter, code, inline code, tables,
 * lists, HTML, math, comments, links, embeds), headings (a setext heading
 * spans two lines), callouts and plain quotes (with
 * their lazy continuation lines), and managed blocks as review sees them
 * (policy's `findManagedBlocks`: `%%NAME-managed%%` … `%%/NAME-managed%%` and the
 * vault config's extra marker pairs; a start without its end runs to the end
 * of the note).
 */
export type UnsafeKind = ProtectedKind | 'heading' | 'callout' | 'quote' | 'managed-block';

export interface UnsafeRange {
  kind: UnsafeKind;
  range: Range;
}


export function unsafeRanges(text: string, model: NoteModel, blocks: LineBlocks = lineBlocks(text, model), managedMarkers: readonly ManagedMarker[] = []): UnsafeRange[] {
  const out: UnsafeRange[] = model.protected.map((p) => ({ kind: p.kind, range: p.range }));
  // A setext heading spans lines: nothing may go between them.
  for (const h of model.headings) out.push({ kind: 'heading', range: h.range });
  for (const c of model.callouts) out.push({ kind: 'callout', range: c.range });
  // Quote runs (callouts are quotes too; a callout range already covers its own).
  for (let l = 0; l < blocks.kinds.length; l++) {
    if (blocks.kinds[l] !== 'quote') continue;
    let m = l;
    while (m + 1 < blocks.kinds.length && blocks.kinds[m + 1] === 'quote') m++;
    out.push({ kind: 'quote', range: { start: model.lineStarts[l]!, end: blocks.lineEnds[m]! } });
    l = m;
  }
  for (const m of findManagedBlocks(text, managedMarkers)) out.push({ kind: 'managed-block', range: { start: m.start, end: m.end } });
  return out;
}

/** The unsafe ranges an insertion at `offset` would land strictly inside (at a range's edge is outside). */
export function unsafeAt(ranges: readonly UnsafeRange[], offset: number): UnsafeRange[] {
  return ranges.filter((r) => r.range.start < offset && offset < r.range.end);
}
