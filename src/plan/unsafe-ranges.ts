import { lineBlocks, type LineBlocks, type NoteModel, type Range } from '../markdown/index.js';

/**
 * Every range of a note a planned insertion must not fall inside (DESIGN
 * §5.3): the model's protected ranges (frontmatter, code, inline code, tables,
 * lists, HTML, math, comments, links, embeds), headings (a setext heading
 * spans two lines), callouts and plain quotes (with
 * their lazy continuation lines), and managed blocks — the text between a
 * `%% NAME-managed %%` comment and its `%% /NAME-managed %%` (or
 * `%% end NAME-managed %%`), which a tool regenerates and would overwrite; an
 * opener without a closer protects to the end of the note.
 */
export type UnsafeKind =
  | 'frontmatter'
  | 'code'
  | 'inline-code'
  | 'table'
  | 'list'
  | 'html'
  | 'math'
  | 'comment'
  | 'link'
  | 'embed'
  | 'heading'
  | 'callout'
  | 'quote'
  | 'managed-block';

export interface UnsafeRange {
  kind: UnsafeKind;
  range: Range;
}

const MANAGED_OPEN = /^%%\s*(?:begin\s+|start\s+)?([\w.-]*managed[\w.-]*)\b[^%]*%%$/i;
const MANAGED_CLOSE = /^%%\s*(?:\/|end\s+)([\w.-]*managed[\w.-]*)\s*%%$/i;

export function unsafeRanges(text: string, model: NoteModel, blocks: LineBlocks = lineBlocks(text, model)): UnsafeRange[] {
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
  const comments = model.protected.filter((p) => p.kind === 'comment');
  for (let i = 0; i < comments.length; i++) {
    const open = MANAGED_OPEN.exec(text.slice(comments[i]!.range.start, comments[i]!.range.end).trim());
    if (!open || MANAGED_CLOSE.test(text.slice(comments[i]!.range.start, comments[i]!.range.end).trim())) continue;
    const name = open[1]!.toLowerCase();
    const start = comments[i]!.range.start;
    let end = text.length;
    for (let k = i + 1; k < comments.length; k++) {
      const close = MANAGED_CLOSE.exec(text.slice(comments[k]!.range.start, comments[k]!.range.end).trim());
      if (close && close[1]!.toLowerCase() === name) {
        end = comments[k]!.range.end;
        i = k;
        break;
      }
    }
    out.push({ kind: 'managed-block', range: { start, end } });
  }
  return out;
}

/** The unsafe ranges an insertion at `offset` would land strictly inside (at a range's edge is outside). */
export function unsafeAt(ranges: readonly UnsafeRange[], offset: number): UnsafeRange[] {
  return ranges.filter((r) => r.range.start < offset && offset < r.range.end);
}
