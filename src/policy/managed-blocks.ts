import { computeLineStarts, lineOf } from '../markdown/index.js';
import type { ManagedMarker, VaultConfig } from '../vault/index.js';
import type { ProposedFile, ReviewCheck } from './types.js';

/**
 * Managed blocks (DESIGN §5.2): text between `%%NAME-managed%%` and
 * `%%/NAME-managed%%` — or between any extra start/end markers listed in the
 * vault config's `managed_blocks` — belongs to a plugin or importer that
 * rewrites it. A proposal may change a note around such a block but not the
 * block: every block (markers included) must come through unchanged, in order.
 *
 * Decided, to be safe rather than clever: markers count wherever they stand
 * (also inside code); a start marker without its end runs to the end of the
 * note; a proposal that adds a new block, or deletes a note holding one, is
 * blocked too (it would forge or destroy a block its owner manages).
 */
export interface ManagedBlock {
  /** `NAME` of `%%NAME-managed%%`, or the start marker of a configured pair. */
  name: string;
  /** Half-open UTF-16 offsets of the whole block, markers included. */
  start: number;
  end: number;
  /** 1-based line of the start marker. */
  line: number;
  /** Whether the end marker was found. */
  closed: boolean;
}

const BUILTIN_START = /%%\s*([A-Za-z0-9_.:-]+)-managed\s*%%/g;

function endMarkerOf(name: string): RegExp {
  return new RegExp(`%%\\s*/${name.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}-managed\\s*%%`, 'g');
}

/** The managed blocks of a text, in order. */
export function findManagedBlocks(text: string, extra: readonly ManagedMarker[] = []): ManagedBlock[] {
  const blocks: ManagedBlock[] = [];
  let lineStarts: number[] | null = null;
  let from = 0;
  for (;;) {
    // the earliest start marker of any kind at or after `from`
    let best: { at: number; len: number; name: string; end: RegExp | string } | null = null;
    BUILTIN_START.lastIndex = from;
    const m = BUILTIN_START.exec(text);
    if (m) best = { at: m.index, len: m[0].length, name: m[1]!, end: endMarkerOf(m[1]!) };
    for (const pair of extra) {
      const at = text.indexOf(pair.start, from);
      if (at >= 0 && (best === null || at < best.at)) best = { at, len: pair.start.length, name: pair.start, end: pair.end };
    }
    if (best === null) return blocks;
    const searchFrom = best.at + best.len;
    let endAt = -1;
    let endLen = 0;
    if (typeof best.end === 'string') {
      endAt = text.indexOf(best.end, searchFrom);
      endLen = best.end.length;
    } else {
      best.end.lastIndex = searchFrom;
      const e = best.end.exec(text);
      if (e) (endAt = e.index), (endLen = e[0].length);
    }
    lineStarts ??= computeLineStarts(text);
    const end = endAt < 0 ? text.length : endAt + endLen;
    blocks.push({ name: best.name, start: best.at, end, line: lineOf(lineStarts, best.at), closed: endAt >= 0 });
    from = end;
  }
}

const stripBom = (t: string) => (t.charCodeAt(0) === 0xfeff ? t.slice(1) : t);

/** The `managed_blocks` check over a proposal's files. */
export function checkManagedBlocks(files: readonly ProposedFile[], config: VaultConfig): ReviewCheck[] {
  const out: ReviewCheck[] = [];
  for (const f of files) {
    if (f.action === 'move') continue; // the text moves unchanged
    const oldText = f.old_text === null ? '' : stripBom(f.old_text);
    const newText = f.new_text === null ? '' : stripBom(f.new_text);
    const before = findManagedBlocks(oldText, config.managed_blocks);
    const after = findManagedBlocks(newText, config.managed_blocks);
    const oldTexts = before.map((b) => oldText.slice(b.start, b.end));
    const newTexts = after.map((b) => newText.slice(b.start, b.end));
    if (oldTexts.length === newTexts.length && oldTexts.every((t, i) => t === newTexts[i])) continue;
    // Name what went wrong: blocks of the old text not found unchanged, then blocks that appeared.
    const kept = new Set(newTexts);
    const changed = before.filter((_, i) => !kept.has(oldTexts[i]!));
    const known = new Set(oldTexts);
    const added = after.filter((_, i) => !known.has(newTexts[i]!));
    const what =
      f.action === 'delete'
        ? `deleting ${f.path} would delete managed block${before.length > 1 ? 's' : ''} ${before.map((b) => `${b.name} (line ${b.line})`).join(', ')}`
        : changed.length > 0
          ? `the change edits managed block ${changed.map((b) => `${b.name} (line ${b.line})`).join(', ')}`
          : added.length > 0
            ? `the change adds managed block ${added.map((b) => `${b.name} (line ${b.line} of the new text)`).join(', ')}`
            : 'the change reorders managed blocks';
    out.push({
      name: 'managed_blocks',
      ok: false,
      severity: 'block',
      path: f.path,
      message: `${what}; a plugin or importer owns that text: change the note around it`,
      details: { changed: changed.map((b) => ({ name: b.name, line: b.line })), added: added.map((b) => ({ name: b.name, line: b.line })) },
    });
  }
  if (out.length === 0) out.push({ name: 'managed_blocks', ok: true, severity: 'block', message: 'no managed block is changed' });
  return out;
}
