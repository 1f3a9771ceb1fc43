import { diffArrays } from 'diff';
import { anchorLookupFromDb, fileIndexForKeys, nameKey, type Db } from '../index/index.js';
import { buildFileIndex, isExternalLink, resolveLink, type AnchorLookup, type FileIndex, type LinkResolution } from '../links/index.js';
import { parseNote, type BlockId, type Heading, type Link as ParsedLink, type NoteModel, type YamlError } from '../markdown/index.js';
import type { ReviewCheck } from '../policy/index.js';
import { isExcluded, isMarkdownPath, type VaultConfig } from '../vault/index.js';
import type { BrokenLink, LinkChange, LinkChangeReason, ReviewLink, RewrittenLink, StoredChange } from './types.js';

/**
 * Two review checks about links, both resolved exactly as Obsidian would
 * *after* the change. The vault after the change is a view, never a write: the
 * index's file list with the proposal's deletes, moves and creates applied, and
 * the headings of every changed note taken from its new text.
 *
 * `links` (issue #8 §2): the links a change adds. A new link that is
 * ambiguous, or names a heading or block its target does not have, blocks; a
 * new link to a note that does not exist warns (people link to notes they mean
 * to write); a kept link whose heading or block the change removes warns.
 *
 * `link_stability` (issue #12 §2): every existing link whose resolution the
 * change would move — it resolved to X and would resolve to Y, or become
 * unresolved or ambiguous. Only links whose answer *can* change are resolved
 * again (as the index's incremental relink does): those sharing the folded
 * name of a file the change adds or removes, those pointing into a changed
 * note, and the links of the notes the change writes or moves. So the check
 * costs a few indexed queries, not a pass over the vault.
 *
 * Intended changes are listed and never block: a link the proposal rewrites
 * (it follows a move or a renamed heading), a link that still names a moved
 * file, a dangling link the change fills, a link that was ambiguous. A link to
 * a note the proposal deletes that would dangle blocks unless the proposal says
 * `--allow-broken-links`; any other change (a link stolen by a new same-name
 * note, a link a delete sends to another file, …) blocks unless it says
 * `--allow-relink` — then both are warnings. Links inside `%%comments%%` never
 * block (a move does not rewrite them, issue #12 §1): they are listed with a
 * warning.
 */

export interface FileLinks {
  links_added: ReviewLink[];
  links_removed: ReviewLink[];
  links_rewritten: RewrittenLink[];
  links_broken: BrokenLink[];
}

export interface LinkReview {
  checks: ReviewCheck[];
  /** Per change, in order. */
  files: FileLinks[];
  /** Every existing link whose resolution the change moves, intended or not, by source and line. */
  changes: LinkChange[];
  /** How many existing links were resolved again to find them. */
  checked: number;
}

export interface LinkReviewOptions {
  /** The proposal says `--allow-relink`: unintended changes warn instead of blocking. */
  allowRelink?: boolean;
  /** The proposal says `--allow-broken-links`: links left dangling by a delete warn instead of blocking. */
  allowBrokenLinks?: boolean;
  /** The flag that allowed them, for the message (issue 8's `--allow-shrink` allows a delete with backlinks too). */
  allowBrokenLinksFlag?: string;
}

const stripBom = (t: string) => (t.charCodeAt(0) === 0xfeff ? t.slice(1) : t);

/** A link as review reads it: everything a parse gives but an embed's size (which the index does not keep). */
export type ReviewedLink = Omit<ParsedLink, 'size'>;
type Link = ReviewedLink;

/**
 * What review reads of a note: its links, its anchors (headings, block ids,
 * lines), and its frontmatter's error. A parse gives it (a NoteModel is one);
 * so does the index, for a note it holds with exactly the bytes a change was
 * based on ({@link indexedNotes}).
 */
export type ReviewedNote = Pick<NoteModel, 'headings' | 'blockIds' | 'lineStarts' | 'length'> & {
  links: ReviewedLink[];
  frontmatter: { error: YamlError | null } | null;
};

interface IndexedFile {
  id: number;
  sha256: string | null;
  anchors: string | null;
  frontmatter_error: string | null;
}

interface IndexedLink {
  kind: ParsedLink['kind'];
  raw: string;
  path: string;
  subpath: string | null;
  display: string | null;
  start_line: number;
  end_line: number;
  start_offset: number;
  end_offset: number;
  in_comment: number;
  property: string | null;
}

/**
 * The notes a proposal's changes are based on, read from the index instead of
 * parsed again (issue 20 §8: the old texts of a 12 MB proposal were half of
 * propose's parsing, ~300 ms of CPU): for each change of a markdown note whose
 * indexed file has exactly the change's base bytes (the same SHA-256; the index
 * parsed those very bytes when it was refreshed), its links in order, its
 * anchors and its frontmatter error, under `keyOf(change)`. Any other change
 * (a base the index does not hold, a note the index could not read) is left
 * out: its text is parsed as before.
 */
export function indexedNotes(db: Db, changes: readonly StoredChange[], keyOf: (c: StoredChange & { old_text: string; base_sha256: string }) => string | null): Map<string, ReviewedNote> {
  const out = new Map<string, ReviewedNote>();
  const file = db.prepare(`SELECT id, sha256, anchors, frontmatter_error FROM files WHERE path = ? AND kind = 'note'`);
  const links = db.prepare('SELECT kind, raw, path, subpath, display, start_line, end_line, start_offset, end_offset, in_comment, property FROM links WHERE file_id = ? ORDER BY ord');
  for (const c of changes) {
    if (c.old_text === null || c.base_sha256 === null || c.capture || (c.action !== 'write' && c.action !== 'move') || !isMarkdownPath(c.path)) continue;
    const key = keyOf(c as StoredChange & { old_text: string; base_sha256: string });
    if (key === null || out.has(key)) continue;
    const row = file.get(c.path) as IndexedFile | undefined;
    if (!row || row.sha256 !== c.base_sha256 || row.anchors === null) continue;
    const a = JSON.parse(row.anchors) as { headings: Heading[]; blockIds: BlockId[]; lineCount: number; lastLineStart: number; length: number };
    if (a.length !== stripBom(c.old_text).length) continue; // not the text these rows were made from
    // as anchorLookupFromDb: resolving a block or heading reads only the number of lines and where the last starts
    const lineStarts = new Array<number>(a.lineCount);
    lineStarts[a.lineCount - 1] = a.lastLineStart;
    out.set(key, {
      length: a.length,
      lineStarts,
      headings: a.headings,
      blockIds: a.blockIds,
      frontmatter: row.frontmatter_error === null ? null : { error: JSON.parse(row.frontmatter_error) as YamlError },
      links: (links.all(row.id) as IndexedLink[]).map((l) => ({
        kind: l.kind,
        raw: l.raw,
        range: { start: l.start_offset, end: l.end_offset },
        path: l.path,
        subpath: l.subpath,
        display: l.display,
        inComment: l.in_comment === 1,
        ...(l.property === null ? {} : { property: l.property }),
        startLine: l.start_line,
        endLine: l.end_line,
      })),
    });
  }
  return out;
}

type Answer = Pick<LinkResolution, 'status' | 'target' | 'candidates'>;

/** A link that opens a file today: resolved, or resolved into an excluded area. */
function opens(r: Answer): boolean {
  return (r.status === 'resolved' || r.status === 'unindexed') && r.target !== null;
}

/** Whether a resolution is one a person would call working (its heading or block too). */
function works(r: Pick<LinkResolution, 'status' | 'subpath'>): boolean {
  return (r.status === 'resolved' || r.status === 'unindexed') && r.subpath?.exists !== false;
}

/** Why a working link stops working: a missing heading or block only when it still opens the same file (or where it moved). */
function brokenReason(r: LinkResolution, was: Answer, mapped: (p: string) => string): string {
  if (r.status === 'ambiguous') return 'ambiguous';
  if (r.status === 'unresolved') return 'unresolved';
  return was.target !== null && r.target === mapped(was.target) ? 'missing_anchor' : 'retargeted';
}

function reviewLink(link: Link, r: LinkResolution | null): ReviewLink {
  return {
    line: link.startLine,
    kind: link.kind,
    raw: link.raw,
    status: r === null ? (isExternalLink(link) ? 'external' : null) : r.status,
    target: r?.target ?? null,
    candidates: r?.candidates ?? null,
    subpath: r?.subpath ? { kind: r.subpath.kind, value: r.subpath.value, exists: r.subpath.exists } : null,
  };
}

/** Most token edits the alignment explores before it falls back to matching links by their text alone. */
const MAX_ALIGN_EDITS = 4000;
/**
 * The alignment's work budget (issue 20 §8). Myers' cost grows with edits ×
 * length: two very different long texts (a 200 KB line rewritten) cost tens of
 * millions of steps within the edit bound alone. Two budgets, each a fixed
 * allowance plus a share per token, so the work is linear in the tokens
 * compared whatever their shape: token comparisons (a long run of equal tokens
 * is cheap, one comparison per token), and diagonal visits — each a new edit
 * path jsdiff allocates, the costly step, at least (edits²)/2 of them. Every
 * ordinary note still aligns exactly, as before; past either budget the
 * alignment stops and falls back to matching links by their text alone.
 */
export const ALIGN_BUDGET = {
  comparisons: 50_000,
  comparisonsPerToken: 4,
  visits: 20_000,
  /** One more visit allowed per this many tokens. */
  tokensPerVisit: 4,
} as const;

/** Thrown by the counting comparator to stop jsdiff once a budget is spent (jsdiff has no other deterministic stop). */
const OVER_BUDGET = Symbol('over the alignment budget');

/** diffArrays within the budget; undefined past it (or past the edit bound). */
function boundedDiffArrays(a: readonly string[], b: readonly string[]): Array<{ count: number; added: boolean; removed: boolean }> | undefined {
  const n = a.length + b.length;
  let comparisons = ALIGN_BUDGET.comparisons + ALIGN_BUDGET.comparisonsPerToken * n;
  let visits = ALIGN_BUDGET.visits + Math.floor(n / ALIGN_BUDGET.tokensPerVisit);
  // jsdiff compares the arrays' elements: give it positions, so a comparison that does not
  // continue the previous one (one step further along the same diagonal) is a new visit
  let li = -2;
  let lj = -2;
  const comparator = (i: number, j: number) => {
    if (--comparisons < 0) throw OVER_BUDGET;
    if ((i !== li + 1 || j !== lj + 1) && --visits < 0) throw OVER_BUDGET;
    li = i;
    lj = j;
    return a[i] === b[j];
  };
  // a plain loop: Array.from with a map callback was a tenth of a 1,000-note review (issue 20 §8)
  const positions = (len: number) => {
    const out = new Array<number>(len);
    for (let k = 0; k < len; k++) out[k] = k;
    return out;
  };
  try {
    return diffArrays(positions(a.length), positions(b.length), { maxEditLength: MAX_ALIGN_EDITS, comparator })?.map((p) => ({ count: p.count ?? p.value.length, added: p.added, removed: p.removed }));
  } catch (e) {
    if (e === OVER_BUDGET) return undefined;
    throw e;
  }
}

const linkKey = (l: Link) => `${l.kind}\0${l.inComment ? 1 : 0}\0${l.raw}`;

/** A stretch of a note (starting at `base` in the note's text) as a sequence of words, spaces and whole links: what the alignment compares. */
function tokens(text: string, base: number, links: readonly Link[]): { keys: string[]; links: Array<Link | null> } {
  const keys: string[] = [];
  const at: Array<Link | null> = [];
  // a word or a space run is its own key; a link's key holds a space and other characters, so it
  // equals no word and no space run (no prefix on every word: a 1,000-note review made 500,000 such strings)
  const words = (from: number, to: number) => {
    for (const w of text.slice(from, to).split(/(\s+)/)) if (w !== '') (keys.push(w), at.push(null));
  };
  let pos = 0;
  for (const l of links) {
    if (l.range.start - base < pos) continue; // a link inside another's range (frontmatter twice?): compare in order only
    words(pos, l.range.start - base);
    keys.push(` l${linkKey(l)}`);
    at.push(l);
    pos = l.range.end - base;
  }
  words(pos, text.length);
  return { keys, links: at };
}

/** One side of an alignment: a note's text (or a stretch of it, starting at `base` in the note) and its links. */
interface Side {
  text: string;
  links: readonly Link[];
  /** Where `text` starts in its note (0: the whole note). */
  base?: number;
}

/** Whether two texts are the same around their links (the links may differ). */
function sameAroundLinks({ text: a, links: al }: Side, { text: b, links: bl }: Side): boolean {
  let pa = 0;
  let pb = 0;
  for (let i = 0; i < al.length; i++) {
    const x = al[i]!.range;
    const y = bl[i]!.range;
    if (x.start < pa || y.start < pb || x.start - pa !== y.start - pb || a.slice(pa, x.start) !== b.slice(pb, y.start)) return false;
    pa = x.end;
    pb = y.end;
  }
  return a.length - pa === b.length - pb && a.slice(pa) === b.slice(pb);
}

type Alignment = { pairs: Array<[Link, Link]>; hunks: Array<{ lost: Link[]; gained: Link[] }> };

/**
 * A changed stretch is aligned word by word only up to this many UTF-16 units
 * (each side). Past its shared start and end, a text of one line within this
 * bound is aligned word by word as a whole; anything else line by line first,
 * then word by word inside each changed stretch within the bound (issue 20 §8:
 * a few lines changed in each of 1,000 notes made every word of every note a
 * token). A 200 KB line rewritten is one stretch whose links are matched by
 * their text alone, never a word diff of the whole line.
 */
export const ALIGN_WORDS_MAX_CHARS = 64 * 1024;

/**
 * Old and new links of a note paired by place: the note's text is aligned (by
 * lines, then words) with its links as single tokens, so a link stays paired with the
 * link written in the same place, and an unchanged link is not confused with a
 * twin elsewhere (`[[Note]]` rewritten into `[[My Note]]` while `[[./B/Note]]`
 * becomes `[[Note]]`). `pairs`: links unchanged in place. `hunks`: each place
 * where links were removed and added, in order (a rewritten link is one of
 * each there). Too different to align (over the work budget), or a changed
 * stretch too long to align word by word: one hunk for it.
 */
function alignLinks(before: Side, after: Side): Alignment {
  const oldLinks = before.links;
  const newLinks = after.links;
  const out: Alignment = { pairs: [], hunks: [] };
  if (oldLinks.length === newLinks.length && sameAroundLinks(before, after)) {
    // only links changed (a move's rewrite): each link pairs with the one in its place
    oldLinks.forEach((l, i) => {
      const n = newLinks[i]!;
      if (linkKey(l) === linkKey(n)) out.pairs.push([l, n]);
      else out.hunks.push({ lost: [l], gained: [n] });
    });
    return out;
  }
  // nothing to pair: every link on the other side is lost or gained, wherever it stands
  if (oldLinks.length === 0 || newLinks.length === 0) {
    if (oldLinks.length > 0 || newLinks.length > 0) out.hunks.push({ lost: [...oldLinks], gained: [...newLinks] });
    return out;
  }
  // the shared start and end pair their links in order; what lies between is aligned
  const trimmed = trimCommon(before, after);
  const [was, now] = trimmed?.middle ?? [before, after];
  if (trimmed) out.pairs.push(...trimmed.pairs);
  const oneLine = !was.text.includes('\n') && !now.text.includes('\n');
  if (oneLine && was.text.length <= ALIGN_WORDS_MAX_CHARS && now.text.length <= ALIGN_WORDS_MAX_CHARS) alignWords(was, now, out);
  else alignLines(was, now, out);
  // links an overlapping range kept out of the token sequence
  const seenOld = new Set([...out.pairs.map((p) => p[0]), ...out.hunks.flatMap((h) => h.lost)]);
  const seenNew = new Set([...out.pairs.map((p) => p[1]), ...out.hunks.flatMap((h) => h.gained)]);
  const restOld = oldLinks.filter((l) => !seenOld.has(l));
  const restNew = newLinks.filter((l) => !seenNew.has(l));
  if (restOld.length > 0 || restNew.length > 0) out.hunks.push({ lost: restOld, gained: restNew });
  return out;
}

/** What `\s` matches, as {@link tokens} splits words on it (not markdown's spaces: obsidian-syntax's isSpace). */
const isSpace = (c: number) => c === 0x20 || (c >= 0x09 && c <= 0x0d) || (c > 0x7f && /\s/.test(String.fromCharCode(c)));

/** A cut at `at` moved until no link of `links` straddles it: `back` to the link's start, else forward to its end. */
function outsideLinks(links: readonly Link[], at: number, back: boolean): number {
  for (let moved = true; moved; ) {
    moved = false;
    for (const l of links) {
      if (l.range.start < at && at < l.range.end) ((at = back ? l.range.start : l.range.end), (moved = true));
    }
  }
  return at;
}

/** The links of `side` inside [from, to) (by where they start). */
const linksIn = (links: readonly Link[], from: number, to: number) => links.filter((l) => l.range.start >= from && l.range.start < to);

/**
 * The stretch two whole notes share at their start and at their end is the
 * same text, so its links pair in order and only the middle needs a word
 * alignment (issue 20 §8: a few lines changed in each of 1,000 notes made
 * every word of each note a token, twice a command). Each cut is at a word
 * boundary both texts agree on (the characters on both sides of it are shared)
 * and outside every link. When the parse did not find the same links in a
 * shared stretch (a fence or a comment opened in it and closed differently),
 * nothing is trimmed: null, and the whole notes are aligned as before.
 * Otherwise: the shared links' pairs and the two middles.
 */
function trimCommon(before: Side, after: Side): { pairs: Array<[Link, Link]>; middle: [Side, Side] } | null {
  const a = before.text;
  const b = after.text;
  const shortest = Math.min(a.length, b.length);
  let p = 0;
  while (p < shortest && a.charCodeAt(p) === b.charCodeAt(p)) p++;
  let s = 0;
  while (s < shortest - p && a.charCodeAt(a.length - 1 - s) === b.charCodeAt(b.length - 1 - s)) s++;
  if (p === 0 && s === 0) return null;
  // back to the start of the word (or space run) holding the last shared character
  let head = p;
  if (head > 0 && (head < a.length || head < b.length)) {
    head = p - 1;
    while (head > 0 && isSpace(a.charCodeAt(head - 1)) === isSpace(a.charCodeAt(head))) head--;
  }
  // outside every link of both sides (a cut moved for one side's link may fall in the other's)
  for (let last = -1; last !== head; ) ((last = head), (head = Math.min(outsideLinks(before.links, head, true), outsideLinks(after.links, head, true))));
  // forward to the end of the word (or space run) holding the first shared character of the end
  let tailA = a.length - s;
  if (s > 0 && tailA > head) {
    tailA++;
    while (tailA < a.length && isSpace(a.charCodeAt(tailA - 1)) === isSpace(a.charCodeAt(tailA))) tailA++;
  }
  let tail = a.length - tailA; // the shared end's length
  for (let last = -1; last !== tail; ) ((last = tail), (tail = Math.min(a.length - outsideLinks(before.links, a.length - tail, false), b.length - outsideLinks(after.links, b.length - tail, false))));
  if (head > a.length - tail || head > b.length - tail) return null;
  const headA = linksIn(before.links, 0, head);
  const headB = linksIn(after.links, 0, head);
  const tailLinksA = linksIn(before.links, a.length - tail, Infinity);
  const tailLinksB = linksIn(after.links, b.length - tail, Infinity);
  const same = (x: readonly Link[], y: readonly Link[]) => x.length === y.length && x.every((l, k) => linkKey(l) === linkKey(y[k]!));
  if (!same(headA, headB) || !same(tailLinksA, tailLinksB)) return null;
  const pairs: Array<[Link, Link]> = headA.map((l, k) => [l, headB[k]!]);
  tailLinksA.forEach((l, k) => pairs.push([l, tailLinksB[k]!]));
  return {
    pairs,
    middle: [
      { text: a.slice(head, a.length - tail), base: head, links: linksIn(before.links, head, a.length - tail) },
      { text: b.slice(head, b.length - tail), base: head, links: linksIn(after.links, head, b.length - tail) },
    ],
  };
}

/** Word-by-word alignment of two stretches (each starting at its base in its note), within the work budget; past it, one hunk. */
function alignWords(before: Side, after: Side, out: Alignment): void {
  const oldLinks = before.links;
  const newLinks = after.links;
  const a = tokens(before.text, before.base ?? 0, oldLinks);
  const b = tokens(after.text, after.base ?? 0, newLinks);
  const parts = boundedDiffArrays(a.keys, b.keys);
  if (parts === undefined) {
    out.hunks.push({ lost: [...oldLinks], gained: [...newLinks] });
    return;
  }
  let i = 0;
  let j = 0;
  let open: { lost: Link[]; gained: Link[] } | null = null;
  for (const part of parts) {
    const n = part.count;
    if (!part.added && !part.removed) {
      open = null;
      for (let k = 0; k < n; k++) {
        const ol = a.links[i++];
        const nl = b.links[j++];
        if (ol && nl) out.pairs.push([ol, nl]);
      }
      continue;
    }
    if (open === null) out.hunks.push((open = { lost: [], gained: [] }));
    for (let k = 0; k < n; k++) {
      if (part.added) {
        const l = b.links[j++];
        if (l) open.gained.push(l);
      } else {
        const l = a.links[i++];
        if (l) open.lost.push(l);
      }
    }
  }
}

/**
 * A long note aligned line by line (a line diff within the work budget), then
 * each changed stretch word by word when it is short enough: bounded work per
 * line, linear in the note. Links in unchanged lines pair in order (when the
 * parse found the same links there: an opened code fence above can hide them).
 */
function alignLines(before: Side, after: Side, out: Alignment): void {
  const { text: oldText, links: oldLinks, base: oldBase = 0 } = before;
  const { text: newText, links: newLinks, base: newBase = 0 } = after;
  const oldLines = oldText.split('\n');
  const newLines = newText.split('\n');
  let oi = 0; // next old link not yet placed
  let ni = 0;
  const take = (links: readonly Link[], from: number, end: number): Link[] => {
    const got: Link[] = [];
    const base = links === oldLinks ? oldBase : newBase;
    let k = links === oldLinks ? oi : ni;
    while (k < links.length && links[k]!.range.start - base < end) {
      if (links[k]!.range.start - base >= from) got.push(links[k]!);
      k++;
    }
    if (links === oldLinks) oi = k;
    else ni = k;
    return got;
  };
  const stretch = (os: number, oe: number, ns: number, ne: number, unchanged: boolean) => {
    const ol = take(oldLinks, os, oe);
    const nl = take(newLinks, ns, ne);
    if (ol.length === 0 && nl.length === 0) return;
    if (unchanged && ol.length === nl.length && ol.every((l, k) => linkKey(l) === linkKey(nl[k]!))) {
      ol.forEach((l, k) => out.pairs.push([l, nl[k]!]));
      return;
    }
    if (ol.length === 0 || nl.length === 0 || oe - os > ALIGN_WORDS_MAX_CHARS || ne - ns > ALIGN_WORDS_MAX_CHARS) {
      out.hunks.push({ lost: ol, gained: nl });
      return;
    }
    alignWords({ text: oldText.slice(os, oe), base: oldBase + os, links: ol }, { text: newText.slice(ns, ne), base: newBase + ns, links: nl }, out);
  };
  const parts = boundedDiffArrays(oldLines, newLines);
  if (parts === undefined) {
    stretch(0, oldText.length, 0, newText.length, false);
    return;
  }
  // character offsets of the next line on each side; a changed stretch runs until the next unchanged run
  let i = 0;
  let j = 0;
  let op = 0;
  let np = 0;
  let changed: { os: number; ns: number } | null = null;
  const span = (lines: readonly string[], from: number, n: number) => {
    let len = 0;
    for (let k = from; k < from + n; k++) len += lines[k]!.length + 1; // its line break (one past the end for the last line: harmless)
    return len;
  };
  for (const part of parts) {
    const n = part.count;
    if (!part.added && !part.removed) {
      if (changed) (stretch(changed.os, op, changed.ns, np, false), (changed = null));
      const ol = span(oldLines, i, n);
      const nl = span(newLines, j, n);
      stretch(op, op + ol, np, np + nl, true);
      (i += n), (j += n), (op += ol), (np += nl);
      continue;
    }
    changed ??= { os: op, ns: np };
    if (part.removed) {
      op += span(oldLines, i, n);
      i += n;
    } else {
      np += span(newLines, j, n);
      j += n;
    }
  }
  if (changed) stretch(changed.os, op, changed.ns, np, false);
}

/** Among links removed and added, those written the same way: a link moved within the note, kept. */
function movedWithin(lost: readonly Link[], gained: readonly Link[]): { pairs: Array<[Link, Link]>; lost: Link[]; gained: Link[] } {
  const pool = new Map<string, Link[]>();
  for (const l of gained) pool.set(linkKey(l), [...(pool.get(linkKey(l)) ?? []), l]);
  const moved = new Set<Link>();
  const pairs: Array<[Link, Link]> = [];
  const rest: Link[] = [];
  for (const l of lost) {
    const m = pool.get(linkKey(l))?.shift();
    if (m === undefined) rest.push(l);
    else (pairs.push([l, m]), moved.add(m));
  }
  return { pairs, lost: rest, gained: gained.filter((l) => !moved.has(l)) };
}

interface IncomingRow {
  source: string;
  kind: Link['kind'];
  raw: string;
  path: string;
  subpath: string | null;
  start_line: number;
  in_comment: number;
  resolution: string;
}

/** Parses a note's text (a leading U+FEFF stripped); review shares one memo between its checks. */
export type NoteParser = (text: string) => ReviewedNote;

/** The name keys a note's links can match: what the file lists must cover to resolve them. */
function linkKeys(model: ReviewedNote | null, into: Set<string>): void {
  for (const l of model?.links ?? []) if (!isExternalLink(l)) into.add(nameKey(l.path));
}

/** What a change does to the file list: paths removed (deleted, or moved away), added, moved, and the new notes' models. */
function fileListChange(changes: readonly StoredChange[], parse: (text: string | null) => ReviewedNote | null) {
  const removed = new Set<string>(); // deleted, or moved away
  const deleted = new Set<string>();
  const added: string[] = [];
  const newModels = new Map<string, ReviewedNote | null>();
  const movedFrom = new Map<string, string>(); // to → from
  const movedTo = new Map<string, string>(); // from → to
  for (const c of changes) {
    if (c.action === 'delete') (removed.add(c.path), deleted.add(c.path));
    if (c.action === 'move') {
      removed.add(c.path);
      added.push(c.to!);
      movedFrom.set(c.to!, c.path);
      movedTo.set(c.path, c.to!);
      if (c.new_text !== null && isMarkdownPath(c.to!)) newModels.set(c.to!, parse(c.new_text));
    }
    if (c.action === 'write' && c.base_sha256 === null) added.push(c.path);
    // a capture is a source's bytes, not a note of the vault: its links are not the change's
    if (c.action === 'write' && isMarkdownPath(c.path) && !c.capture) newModels.set(c.path, parse(c.new_text));
  }
  return { removed, deleted, added, newModels, movedFrom, movedTo };
}

/** The check a link the change adds fails (ambiguous, a missing heading or block, no such note yet), or null when it resolves. */
function newLinkCheck(to: string, link: Link, r: LinkResolution): ReviewCheck | null {
  const fails = (severity: 'block' | 'warn', what: string, details: Record<string, unknown> = {}): ReviewCheck => ({
    name: 'links',
    ok: false,
    severity,
    path: to,
    message: `${to}:${link.startLine}: new link ${link.raw} ${what}`,
    details: { raw: link.raw, line: link.startLine, ...details },
  });
  if (r.status === 'ambiguous') return fails('block', `is ambiguous (${r.candidates!.join(', ')}); Obsidian's pick is undetermined — give the path`, { candidates: r.candidates });
  if (r.status === 'resolved' && r.subpath?.exists === false) {
    return fails('block', `names a ${r.subpath.kind} ${JSON.stringify(r.subpath.value)} that ${r.target} does not have`, { target: r.target, subpath: r.subpath });
  }
  if (r.status === 'unresolved') return fails('warn', 'points to a note that does not exist (yet)');
  return null;
}

/** Links in other notes that may answer differently after the change: into a changed note, or by a name a file gains or loses (folded, as relink finds them). */
function incomingLinks(db: Db, targets: string[], names: Set<string>): IncomingRow[] {
  return db
    .prepare(
      `SELECT f.path AS source, l.kind, l.raw, l.path, l.subpath, l.start_line, l.in_comment, l.resolution
       FROM links l JOIN files f ON f.id = l.file_id
       WHERE l.id IN (SELECT id FROM links WHERE target IN (SELECT value FROM json_each(?))
                      UNION SELECT id FROM links WHERE name_key IN (SELECT value FROM json_each(?)))
         AND f.kind = 'note' AND l.external = 0 AND l.resolution IS NOT NULL
       ORDER BY f.path, l.ord`,
    )
    .all(JSON.stringify(targets), JSON.stringify([...names])) as IncomingRow[];
}

/** A warning per file whose change removes a heading or block that kept links name. */
function anchorRemovalChecks(changes: readonly StoredChange[], files: FileLinks[]): ReviewCheck[] {
  const out: ReviewCheck[] = [];
  changes.forEach((c, i) => {
    const anchors = files[i]!.links_broken.filter((b) => b.reason === 'missing_anchor');
    if (anchors.length === 0) return;
    const shown = anchors.slice(0, 5).map((b) => `${b.source}:${b.line} ${b.raw}`);
    out.push({
      name: 'links',
      ok: false,
      severity: 'warn',
      path: c.to ?? c.path,
      message: `the change removes the heading or block ${anchors.length} link${anchors.length > 1 ? 's' : ''} name${anchors.length > 1 ? '' : 's'}: ${shown.join('; ')}${anchors.length > 5 ? '; …' : ''}`,
      details: { count: anchors.length },
    });
  });
  return out;
}

/** One link whose answer the change moves, as the review records it (one object per such link, as before). */
interface ObservedChange {
  /** The note holding the link (after the change). */
  source: string;
  kind: string;
  raw: string;
  line: number;
  inComment: boolean;
  was: Answer;
  now: LinkResolution;
  reason: LinkChangeReason;
  /** The link's text after a rewrite. */
  rawAfter?: string;
}

/** What one review shares between its steps: the file lists before and after, how links answer in each, and what it has found so far. */
interface ReviewRun {
  parse: (text: string | null) => ReviewedNote | null;
  before: FileIndex;
  after: FileIndex;
  dbAnchors: AnchorLookup;
  anchorsAfter: AnchorLookup;
  /** Where a link that opened `target` should open after the change: the file where it moved. */
  mapped: (target: string) => string;
  /** Why a link's answer moves, or null when it does not. */
  reasonOf: (was: Answer, now: Answer) => LinkChangeReason | null;
  record: (change: ObservedChange) => void;
  files: FileLinks[];
  checks: ReviewCheck[];
  /** Links looked at (the stability checks' denominator). */
  checked: number;
}

/** `resolve` memoised by the link's path and subpath: the only parts of a link its answer depends on. */
function resolutionMemo(resolve: (l: Link) => LinkResolution): (l: Link) => LinkResolution {
  const byPath = new Map<string, Map<string | null, LinkResolution>>();
  return (l) => {
    let bySubpath = byPath.get(l.path);
    if (bySubpath === undefined) byPath.set(l.path, (bySubpath = new Map()));
    let r = bySubpath.get(l.subpath);
    if (r === undefined) bySubpath.set(l.subpath, (r = resolve(l)));
    return r;
  };
}

/**
 * The links of one note the change writes or moves, old text against new:
 * links kept as written are resolved again (from the note's new place);
 * a removed link and an added one of the same kind, in order, that open the
 * same file (or where it moved) are one link rewritten; the rest are the
 * change's own edits (added, removed).
 */
function reviewNote(run: ReviewRun, i: number, note: { oldText: string | null; newText: string | null; from: string; to: string; isNew: boolean }): void {
  const { parse, before, after, dbAnchors, anchorsAfter, mapped, reasonOf, record, files, checks } = run;
  const { oldText, newText, from, to, isNew } = note;
  const oldModel = parse(oldText);
  const newModel = parse(newText);
  const oldLinks = oldModel?.links ?? [];
  const newLinks = newModel?.links ?? [];
  const anchorsBefore: AnchorLookup = (p) => (p === from && oldModel ? oldModel : dbAnchors(p));
  const aligned = alignLinks({ text: stripBom(oldText ?? ''), links: oldLinks }, { text: stripBom(newText ?? ''), links: newLinks });
  // memoised by what a link's answer depends on (its path and subpath, from this note): the
  // pairing below may look at an added link once per removed link of its place, and a note
  // links the same few notes many times (issue 20 §8)
  const wasOf = resolutionMemo((l) => resolveLink(before, l, from, anchorsBefore));
  const nowOf = resolutionMemo((l) => resolveLink(after, l, to, anchorsAfter));

  // rewrites: in each place links changed, walk the removed and the added ones in
  // order, pairing the heads that open the same file (or where it moved)
  const lostRest: Link[] = [];
  const gainedRest: Link[] = [];
  for (const hunk of aligned.hunks) {
    const taken = new Set<Link>();
    let g = 0;
    for (const ol of hunk.lost) {
      const was = isExternalLink(ol) ? null : wasOf(ol);
      let paired = false;
      if (was !== null && opens(was)) {
        for (let k = g; k < hunk.gained.length; k++) {
          const nl = hunk.gained[k]!;
          if (nl.kind !== ol.kind || nl.inComment !== ol.inComment || isExternalLink(nl)) continue;
          const now = nowOf(nl);
          if (!opens(now) || now.target !== mapped(was.target!) || (was.subpath?.exists === true && now.subpath?.exists === false)) continue;
          taken.add(nl);
          g = k + 1;
          paired = true;
          run.checked++;
          files[i]!.links_rewritten.push({ line: nl.startLine, kind: nl.kind, before: ol.raw, after: nl.raw, target: now.target });
          record({ source: to, kind: nl.kind, raw: ol.raw, line: nl.startLine, inComment: nl.inComment, was, now, reason: 'rewritten', rawAfter: nl.raw });
          break;
        }
      }
      if (!paired) lostRest.push(ol);
    }
    gainedRest.push(...hunk.gained.filter((l) => !taken.has(l)));
  }
  const rest = movedWithin(lostRest, gainedRest);
  const kept = [...aligned.pairs, ...rest.pairs].sort((x, y) => x[1].range.start - y[1].range.start);

  for (const link of rest.lost) files[i]!.links_removed.push({ ...reviewLink(link, null), status: null });
  for (const link of rest.gained) {
    if (isExternalLink(link)) {
      files[i]!.links_added.push(reviewLink(link, null));
      continue;
    }
    const r = nowOf(link);
    files[i]!.links_added.push(reviewLink(link, r));
    const check = newLinkCheck(to, link, r);
    if (check !== null) checks.push(check);
  }
  if (isNew) return;
  // links kept as written: their answer may change (a heading removed, a moved note's own folder)
  for (const [ol, nl] of kept) {
    if (isExternalLink(nl)) continue;
    run.checked++;
    const was = wasOf(ol);
    const now = nowOf(nl);
    if (works(was) && !works(now)) files[i]!.links_broken.push({ source: to, line: nl.startLine, raw: nl.raw, reason: brokenReason(now, was, mapped), target: was.target });
    // a self-link (`[[#H]]`) names no file: it follows its note wherever it goes
    if (cleanPath(nl.path) === '') continue;
    const reason = reasonOf(was, now);
    if (reason !== null) record({ source: to, kind: nl.kind, raw: nl.raw, line: nl.startLine, inComment: nl.inComment, was, now, reason });
  }
}

export function reviewLinks(db: Db, config: VaultConfig, changes: readonly StoredChange[], parseText: NoteParser = (t) => parseNote(stripBom(t)), opts: LinkReviewOptions = {}): LinkReview {
  const parse = (text: string | null): ReviewedNote | null => (text === null ? null : parseText(text));
  const files: FileLinks[] = changes.map(() => ({ links_added: [], links_removed: [], links_rewritten: [], links_broken: [] }));
  const checks: ReviewCheck[] = [];
  const linkChanges: LinkChange[] = [];

  const { removed, deleted, added, newModels, movedFrom, movedTo } = fileListChange(changes, parse);

  // The names whose links can change answer: every file added or removed.
  const names = new Set<string>([...added, ...removed].map((p) => nameKey(p)));
  // The file lists before and after, restricted to what the links looked at can match.
  const keys = new Set(names);
  for (const c of changes) {
    if (!isMarkdownPath(c.path)) continue;
    if (c.action === 'write' || c.action === 'move') linkKeys(parse(c.old_text), keys);
    if (c.action === 'write') linkKeys(newModels.get(c.path) ?? null, keys);
    if (c.action === 'move' && c.new_text !== null) linkKeys(newModels.get(c.to!) ?? null, keys);
  }
  const selfPaths = changes.map((c) => c.path);
  const before: FileIndex = fileIndexForKeys(db, keys, selfPaths);
  const after: FileIndex = buildFileIndex([
    ...before.files.filter((f) => !removed.has(f.path)).map((f) => ({ path: f.path, indexed: f.indexed })),
    ...added.map((p) => ({ path: p, indexed: !isExcluded(config, p) })),
  ]);
  const dbAnchors = anchorLookupFromDb(db);
  const anchorsAfter: AnchorLookup = (p) => {
    if (newModels.has(p)) return newModels.get(p)!;
    if (removed.has(p)) return null;
    const from = movedFrom.get(p);
    return from !== undefined ? dbAnchors(from) : dbAnchors(p);
  };

  /** Where a link that opened `target` should open after the change: the file where it moved. */
  const mapped = (target: string) => movedTo.get(target) ?? target;

  /** Why a link's answer moves, or null when it does not (a moved target counts as the same file). */
  const reasonOf = (was: Answer, now: Answer): LinkChangeReason | null => {
    if (opens(was)) {
      const want = mapped(was.target!);
      if (opens(now) && now.target === want) return want === was.target ? null : 'follows_move';
      if (deleted.has(was.target!) && now.status === 'unresolved') return 'target_deleted';
      return opens(now) ? 'retargeted' : now.status === 'ambiguous' ? 'ambiguous' : 'unresolved';
    }
    if (was.status === 'unresolved') return now.status === 'unresolved' ? null : 'now_resolves';
    if (was.status === 'ambiguous') {
      // Obsidian opened one of the tied candidates; now it opens one of them for sure — or another file
      if (now.status === 'ambiguous') return null;
      if (opens(now)) return (was.candidates ?? []).map(mapped).includes(now.target!) ? 'was_ambiguous' : 'retargeted';
      return 'unresolved';
    }
    return null;
  };

  const record = (link: ObservedChange) => {
    const { source, was, now, reason, rawAfter } = link;
    const intended =
      link.inComment ||
      reason === 'rewritten' ||
      reason === 'follows_move' ||
      reason === 'now_resolves' ||
      reason === 'was_ambiguous' ||
      (reason === 'target_deleted' && opts.allowBrokenLinks === true);
    linkChanges.push({
      source,
      line: link.line,
      kind: link.kind,
      raw: link.raw,
      ...(rawAfter !== undefined ? { raw_after: rawAfter } : {}),
      in_comment: link.inComment,
      before: { status: was.status, target: was.target },
      after: { status: now.status, target: now.target, candidates: now.candidates },
      reason,
      intended,
    });
  };

  const changedSources = new Set(changes.map((c) => c.path));
  const fileIndexOf = new Map<string, number>();
  changes.forEach((c, i) => {
    fileIndexOf.set(c.path, i);
    if (c.to) fileIndexOf.set(c.to, i);
  });
  const run: ReviewRun = { parse, before, after, dbAnchors, anchorsAfter, mapped, reasonOf, record, files, checks, checked: 0 };

  // 1. The notes the change writes or moves: their own links.
  changes.forEach((c, i) => {
    if (!isMarkdownPath(c.path) || c.action === 'delete' || c.capture) return;
    if (c.action === 'write') reviewNote(run, i, { oldText: c.old_text, newText: c.new_text, from: c.path, to: c.path, isNew: c.base_sha256 === null });
    else reviewNote(run, i, { oldText: c.old_text, newText: c.new_text ?? c.old_text, from: c.path, to: c.to!, isNew: false });
  });

  // 2. Links in other notes into what changes: a name a file now has or no longer has
  //    (found by folded name, as the index's relink does), or a note whose headings change.
  const targets = changes.filter((c) => c.base_sha256 !== null).map((c) => c.path);
  if (targets.length > 0 || names.size > 0) {
    const rows = incomingLinks(db, targets, names);
    for (const row of rows) {
      if (changedSources.has(row.source)) continue; // its own links were reviewed from its new text
      run.checked++;
      const was = JSON.parse(row.resolution) as LinkResolution;
      const now = resolveLink(after, { kind: row.kind, path: row.path, subpath: row.subpath }, row.source, anchorsAfter);
      const owner = fileIndexOf.get(was.target ?? '') ?? fileIndexOf.get(now.target ?? '') ?? 0;
      if (works(was) && !works(now)) {
        files[owner]!.links_broken.push({ source: row.source, line: row.start_line, raw: row.raw, reason: brokenReason(now, was, mapped), target: was.target });
      } else if (works(was) && works(now) && was.target !== now.target && !(was.target !== null && movedTo.get(was.target) === now.target)) {
        files[owner]!.links_broken.push({ source: row.source, line: row.start_line, raw: row.raw, reason: 'retargeted', target: was.target });
      }
      const reason = reasonOf(was, now);
      if (reason !== null) record({ source: row.source, kind: row.kind, raw: row.raw, line: row.start_line, inComment: row.in_comment === 1, was, now, reason });
    }
  }
  linkChanges.sort((a, b) => (a.source < b.source ? -1 : a.source > b.source ? 1 : a.line - b.line));

  // links: a kept link whose heading or block the change removes
  checks.push(...anchorRemovalChecks(changes, files));
  if (!checks.some((c) => c.name === 'links')) checks.push({ name: 'links', ok: true, severity: 'block', message: 'every new link resolves, and no kept link loses its heading or block' });
  checks.push(...stabilityChecks(linkChanges, deleted, opts, run.checked));
  return { checks, files, changes: linkChanges, checked: run.checked };
}

function cleanPath(p: string): string {
  return p.trim();
}

/** How many links a check message names before it says "…" (all are in `link_changes`). */
const SHOWN = 5;

function describe(c: LinkChange): string {
  const after = c.after.target ?? c.after.status;
  return `${c.source}:${c.line} ${c.raw} (${c.before.target ?? c.before.status} → ${after})`;
}

function listed(changes: readonly LinkChange[]): string {
  return changes.slice(0, SHOWN).map(describe).join('; ') + (changes.length > SHOWN ? `; … ${changes.length - SHOWN} more in link_changes` : '');
}

const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`;

/** link_stability: what the list of link changes means for the proposal. */
function stabilityChecks(changes: readonly LinkChange[], deleted: ReadonlySet<string>, opts: LinkReviewOptions, checked: number): ReviewCheck[] {
  const out: ReviewCheck[] = [];
  const live = changes.filter((c) => !c.in_comment);
  // a delete that leaves links dangling, per deleted note
  for (const path of [...deleted].sort()) {
    const dangling = live.filter((c) => c.reason === 'target_deleted' && c.before.target === path);
    if (dangling.length === 0) continue;
    const allowed = opts.allowBrokenLinks === true;
    out.push({
      name: 'link_stability',
      ok: false,
      severity: allowed ? 'warn' : 'block',
      path,
      message: `${path} is linked from ${plural(dangling.length, 'place')}; deleting it leaves ${dangling.length === 1 ? 'it' : 'them'} dangling: ${listed(dangling)}${allowed ? ` (allowed: the proposal says ${opts.allowBrokenLinksFlag ?? '--allow-broken-links'})` : ' — if that is intended, propose again with --allow-broken-links'}`,
      details: { count: dangling.length, links: dangling.map(detail) },
    });
  }
  const unintended = live.filter((c) => !c.intended && c.reason !== 'target_deleted');
  if (unintended.length > 0) {
    const allowed = opts.allowRelink === true;
    out.push({
      name: 'link_stability',
      ok: false,
      severity: allowed ? 'warn' : 'block',
      message: `${plural(unintended.length, 'existing link')} would change ${unintended.length === 1 ? 'its' : 'their'} target: ${listed(unintended)}${allowed ? ' (allowed: the proposal says --allow-relink)' : ' — if that is intended, propose again with --allow-relink'}`,
      details: { count: unintended.length, links: unintended.map(detail) },
    });
  }
  const commented = changes.filter((c) => c.in_comment && c.reason !== 'rewritten' && c.reason !== 'follows_move' && c.reason !== 'now_resolves' && c.reason !== 'was_ambiguous');
  if (commented.length > 0) {
    out.push({
      name: 'link_stability',
      ok: false,
      severity: 'warn',
      message: `${plural(commented.length, 'link')} inside %%comments%% would change target (comments are not rewritten): ${listed(commented)}`,
      details: { count: commented.length, links: commented.map(detail) },
    });
  }
  if (out.length === 0) {
    const intended = changes.length;
    out.push({
      name: 'link_stability',
      ok: true,
      severity: 'block',
      message: intended === 0 ? 'no existing link changes its target' : `no existing link changes its target unintentionally (${plural(intended, 'intended change')}: ${summarise(changes)})`,
      details: { checked, intended },
    });
  }
  return out;
}

function detail(c: LinkChange): Record<string, unknown> {
  return { source: c.source, line: c.line, raw: c.raw, before: c.before.target ?? c.before.status, after: c.after.target ?? c.after.status, reason: c.reason };
}

function summarise(changes: readonly LinkChange[]): string {
  const by = new Map<string, number>();
  for (const c of changes) by.set(c.reason, (by.get(c.reason) ?? 0) + 1);
  return [...by].map(([r, n]) => `${n} ${r.replace(/_/g, ' ')}`).join(', ');
}
