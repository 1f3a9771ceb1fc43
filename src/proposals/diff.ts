import { diffArrays } from 'diff';
import type { StoredChange } from './types.js';

/**
 * Unified diffs of a proposal's files (git style: `diff --git`, `---`/`+++`,
 * hunks, `\ No newline at end of file`), computed with jsdiff: its Myers diff
 * over the texts' lines (`diffArrays` of the lines as `diffLines` tokenises
 * them), made into hunks as its `structuredPatch` makes them ({@link hunksOf});
 * the lines are cut once, not split, joined and split again (issue 20 §8).
 *
 * Deterministic on purpose: jsdiff's `timeout` depends on the machine's speed,
 * so the same proposal could show a different diff on a slower day. Line diffs
 * are bounded by edit length instead (`maxEditLength`), and a file too large or
 * too different for that is shown as one hunk replacing every line — still
 * exact, only less pointed.
 */

/** Most line edits the Myers diff explores before falling back to a whole-file hunk. */
export const MAX_DIFF_EDITS = 1000;
/** Sides larger than this (UTF-16 units) skip the line diff: a whole-file hunk, in linear time. */
export const MAX_DIFF_CHARS = 2 * 1024 * 1024;
/** Lines of context around each change. */
export const DIFF_CONTEXT = 3;
/**
 * Edits the line diff is tried with first, before the linear check of whether
 * it would give up at MAX_DIFF_EDITS: a few changed lines in a long note (the
 * common case) are found at once, and that check — counting every line of both
 * sides — cost three times the diff itself (issue 20 §8). Myers' search meets
 * the end at the same edit count whatever its bound, so a diff found within
 * this bound is the one the full bound finds.
 */
export const QUICK_DIFF_EDITS = 64;

type Hunk = { oldStart: number; oldLines: number; newStart: number; newLines: number; lines: string[] };

/** Lines of a text for a hunk: each ending's line break dropped, a marker after a last line without one. */
function hunkLines(text: string, sign: '-' | '+'): string[] {
  if (text === '') return [];
  const parts = text.split('\n');
  const last = parts.pop()!; // '' when the text ends with a line break
  const out = parts.map((l) => sign + l);
  if (last !== '') out.push(sign + last, '\\ No newline at end of file');
  return out;
}

function lineCount(text: string): number {
  if (text === '') return 0;
  const n = text.split('\n').length;
  return text.endsWith('\n') ? n - 1 : n;
}

/** One hunk replacing every line: what a diff too large to compute exactly is shown as. */
function wholeFileHunk(oldText: string, newText: string): Hunk[] {
  const oldLines = lineCount(oldText);
  const newLines = lineCount(newText);
  return [{ oldStart: oldLines ? 1 : 0, oldLines, newStart: newLines ? 1 : 0, newLines, lines: [...hunkLines(oldText, '-'), ...hunkLines(newText, '+')] }];
}

/**
 * A text's lines as jsdiff's line diff tokenises it: each line with its own break
 * (`\n` or `\r\n`, which also ends in `\n`): the text cut after every `\n`. Cut
 * with indexOf rather than split on a regular expression: three times faster on
 * a 2,000-line note (issue 20 §8).
 */
export function lineTokens(text: string): string[] {
  const out: string[] = [];
  let at = 0;
  for (;;) {
    const nl = text.indexOf('\n', at);
    if (nl === -1) {
      if (at < text.length) out.push(text.slice(at));
      return out;
    }
    out.push(text.slice(at, nl + 1));
    at = nl + 1;
  }
}

/**
 * Whether the line diff is certain to give up (more than MAX_DIFF_EDITS edits),
 * known in linear time: every line not matched by an equal line on the other
 * side is an edit, so at least old + new − 2 × (lines the sides share, counted
 * with repeats) edits are needed. jsdiff would reach the same answer only after
 * exploring every path up to the bound — 80 ms for one rewritten note of 2,000
 * lines (issue 20 §8); the whole-file hunk it falls back to is the same.
 */
function surelyOverEditBound(a: readonly string[], b: readonly string[]): boolean {
  if (Math.abs(a.length - b.length) > MAX_DIFF_EDITS) return true;
  if (a.length + b.length <= MAX_DIFF_EDITS) return false;
  const count = new Map<string, number>();
  for (const l of a) count.set(l, (count.get(l) ?? 0) + 1);
  let shared = 0;
  for (const l of b) {
    const n = count.get(l);
    if (n) (count.set(l, n - 1), shared++);
  }
  return a.length + b.length - 2 * shared > MAX_DIFF_EDITS;
}

/** At most one line (a line break, if any, only at the end). */
function oneLine(text: string): boolean {
  const at = text.indexOf('\n');
  return at === -1 || at === text.length - 1;
}

function hunksOf(oldText: string, newText: string): Hunk[] {
  if (oldText === newText) return [];
  if (oldText.length > MAX_DIFF_CHARS || newText.length > MAX_DIFF_CHARS) return wholeFileHunk(oldText, newText);
  // two different sides of at most one line each: the line diff can only replace it (what jsdiff
  // answers too, after splitting, tokenising and aligning a 200 KB line; issue 20 §8)
  if (oneLine(oldText) && oneLine(newText)) return wholeFileHunk(oldText, newText);
  const a = lineTokens(oldText);
  const b = lineTokens(newText);
  let parts = diffArrays(a, b, { maxEditLength: QUICK_DIFF_EDITS });
  if (!parts) {
    if (surelyOverEditBound(a, b)) return wholeFileHunk(oldText, newText);
    parts = diffArrays(a, b, { maxEditLength: MAX_DIFF_EDITS });
  }
  if (!parts) return wholeFileHunk(oldText, newText);
  // jsdiff keeps start 1 for an empty side; unified diffs write 0 there (as its own formatPatch does)
  return patchHunks(parts, DIFF_CONTEXT).map((h) => ({ ...h, oldStart: h.oldLines === 0 ? h.oldStart - 1 : h.oldStart, newStart: h.newLines === 0 ? h.newStart - 1 : h.newStart }));
}

type Part = { value: string[]; added: boolean; removed: boolean };

/**
 * The hunks of a line diff, exactly as jsdiff's `structuredPatch` builds them
 * from `diffLines`: each run of changes with up to `context` unchanged lines
 * before and after, runs closer than twice that joined into one hunk; then each
 * line's break dropped, and a line without one followed by the marker.
 */
function patchHunks(parts: readonly Part[], context: number): Hunk[] {
  const hunks: Hunk[] = [];
  let oldStart = 0; // 0: no hunk open
  let newStart = 0;
  let lines: string[] = [];
  let oldLine = 1;
  let newLine = 1;
  // one empty unchanged part after the last closes the hunk still open
  for (let i = 0; i <= parts.length; i++) {
    const part = parts[i] ?? { value: [], added: false, removed: false };
    const tokens = part.value;
    if (part.added || part.removed) {
      if (!oldStart) {
        oldStart = oldLine;
        newStart = newLine;
        const before = parts[i - 1];
        if (before) {
          lines = context > 0 ? before.value.slice(-context).map((l) => ' ' + l) : [];
          oldStart -= lines.length;
          newStart -= lines.length;
        }
      }
      const sign = part.added ? '+' : '-';
      for (const l of tokens) lines.push(sign + l);
      if (part.added) newLine += tokens.length;
      else oldLine += tokens.length;
      continue;
    }
    if (oldStart) {
      if (tokens.length <= context * 2 && i < parts.length - 1) {
        for (const l of tokens) lines.push(' ' + l);
      } else {
        const size = Math.min(tokens.length, context);
        for (let k = 0; k < size; k++) lines.push(' ' + tokens[k]!);
        hunks.push({ oldStart, oldLines: oldLine - oldStart + size, newStart, newLines: newLine - newStart + size, lines });
        oldStart = 0;
        newStart = 0;
        lines = [];
      }
    }
    oldLine += tokens.length;
    newLine += tokens.length;
  }
  for (const h of hunks) {
    const out: string[] = [];
    for (const l of h.lines) {
      if (l.endsWith('\n')) out.push(l.slice(0, -1));
      else out.push(l, '\\ No newline at end of file');
    }
    h.lines = out;
  }
  return hunks;
}

/** The unified diff of one change; a move is a rename header, with the hunks of the links it rewrites inside the moved note. */
export function changeDiff(c: StoredChange): string {
  const a = `a/${c.path}`;
  const target = c.to ?? c.path;
  const b = `b/${target}`;
  const header = [`diff --git ${a} ${b}`];
  if (c.action === 'move') {
    header.push(`rename from ${c.path}`, `rename to ${target}`);
    if (c.new_text === null || c.old_text === null) return header.join('\n') + '\n';
  }
  const oldText = c.old_text;
  const newText = c.action === 'delete' ? '' : c.new_text;
  if (c.capture) {
    // the bytes are the source's, unchanged: what the person needs is where from, how many, and which
    return [...header, 'new file', `captured from ${c.capture.source} (${c.capture.bytes.byteLength} bytes, sha256 ${c.new_sha256})`].join('\n') + '\n';
  }
  if (c.base_sha256 === null) header.push('new file');
  if (c.action === 'delete') header.push('deleted file');
  if ((oldText === null && c.base_sha256 !== null) || newText === null) {
    return [...header, `Binary files ${c.base_sha256 === null ? '/dev/null' : a} and ${c.action === 'delete' ? '/dev/null' : b} differ`].join('\n') + '\n';
  }
  const hunks = hunksOf(oldText ?? '', newText);
  const lines = [...header, `--- ${c.base_sha256 === null ? '/dev/null' : a}`, `+++ ${c.action === 'delete' ? '/dev/null' : b}`];
  for (const h of hunks) {
    lines.push(`@@ -${h.oldStart},${h.oldLines} +${h.newStart},${h.newLines} @@`, ...h.lines);
  }
  return lines.join('\n') + '\n';
}
