import { textMemo } from './text-key.js';
import { VaultgateError } from '../errors.js';
import { fileIndexForKeys, nameKey, type Db } from '../index/index.js';
import {
  buildFileIndex,
  hasMdExtension,
  isExternalLink,
  linkPathCandidates,
  matchHeadingPath,
  noLinkText,
  parseSubpath,
  resolveLinkPath,
  retargetLinkHeading,
  retargetLinkPath,
  type FileIndex,
  type LinkFormat,
  type PathResolution,
} from '../links/index.js';
import { parseNote, type Link, type NoteModel } from '../markdown/index.js';
import { areaOf } from '../policy/index.js';
import { isExcluded, isMarkdownPath, sha256Hex, type VaultConfig } from '../vault/index.js';
import type { StoredChange } from './types.js';
import { readCurrent } from './vault-files.js';

/**
 * Link-preserving moves and heading renames (issue #12 §1): the extra changes
 * that keep every link opening what it opened before, in the same proposal
 * (so the same transaction: all files land or none).
 *
 * For a move (files and whole folders, notes and attachments alike):
 * - every link whose answer can change — those sharing the folded name of a
 *   moved file (found through the index, as its relink does), and every link
 *   inside a moved note (its folder changes: `./x`, `../x`, own-folder
 *   preference) — is resolved before and after the move; a link that would no
 *   longer open the file it opened (or where that file moved) is rewritten;
 * - the new path part is the shortest text that opens exactly that file from
 *   the link's note, in the vault's `newLinkFormat` (links/link-text.ts), written
 *   in the link's own syntax with everything else kept as written
 *   (links/retarget-link.ts). A link that still opens the right file is left
 *   alone, so a bare `[[Name]]` stays bare when the name is unique;
 * - links inside `%%comments%%` are not rewritten (the rule), nor links
 *   in notes of areas proposals may not write; review lists them. Code is not a
 *   link at all.
 * For a heading rename: every link whose heading path goes through the renamed
 * heading (in other notes and the note itself) gets the new heading text.
 *
 * Every rewritten note is parsed back: each rewritten link must open its file
 * (and heading) with its kind, display text, subpath and size unchanged, and
 * every other link must be exactly as it was — else the next candidate text is
 * tried, and when none is left the proposal is refused (nothing is stored).
 */

export interface HeadingRename {
  /** The note whose heading is renamed (its change is a write of the new heading text). */
  path: string;
  /** Index of the heading in the note's headings (the same before and after: only its text changes). */
  heading: number;
  /** The new heading text. */
  text: string;
  /** The note as it was, to know which links went through the heading. */
  before: NoteModel;
}

export interface RewriteContext {
  root: string;
  db: Db;
  config: VaultConfig;
  format: LinkFormat;
  /** Notes parsed, by `textKey` of their text (U+FEFF first for a BOM): shared with the review that follows. */
  parsed?: Map<string, NoteModel>;
}

/** The changes with the rewrites folded in; the caller's function for resolveChanges. */
export type LinkRewriter = (changes: StoredChange[], headings: readonly HeadingRename[]) => StoredChange[];

const BOM = '\ufeff';
const splitBom = (t: string) => (t.startsWith(BOM) ? { bom: BOM, body: t.slice(1) } : { bom: '', body: t });
const opens = (r: PathResolution) => (r.status === 'resolved' || r.status === 'unindexed') && r.target !== null;

/** One link to rewrite: the texts it may take, best first, and what its parsed form must satisfy. */
interface Edit {
  link: Link;
  candidates: string[];
  accepts: (parsed: Link) => boolean;
  /** For the error when nothing is accepted. */
  target: string;
}

function rewriteFailed(path: string, raw: string, target: string): VaultgateError {
  return new VaultgateError('LINK_REWRITE_FAILED', `${path}: the link ${raw} cannot be rewritten to keep opening ${target} without changing the note in other ways`, {
    path,
    details: { path, raw, target },
    hint: 'Fix the link by hand first (or rename the file so a plain link can name it), then propose again.',
  });
}

/**
 * Apply edits to a note's text and parse it back: every edited link must be
 * accepted, every other link unchanged, the frontmatter no more broken than it
 * was. A rejected edit moves on to its next candidate.
 */
function applyEdits(note: { path: string; text: string; model: NoteModel }, edits: Edit[], parse: Parse): string {
  const { path, text, model } = note;
  const { bom, body } = splitBom(text);
  const at = new Map<Link, number>(model.links.map((l, i) => [l, i]));
  const choice = edits.map(() => 0);
  const byIndex = new Map<number, number>(edits.map((e, k) => [at.get(e.link)!, k]));
  for (;;) {
    const order = edits.map((e, k) => k).sort((a, b) => edits[b]!.link.range.start - edits[a]!.link.range.start);
    let out = body;
    for (const k of order) {
      const e = edits[k]!;
      out = out.slice(0, e.link.range.start) + e.candidates[choice[k]!]! + out.slice(e.link.range.end);
    }
    const parsed = parse(bom + out);
    // frontmatter that parsed must still parse (a link inside a YAML string must not end the string)
    const frontmatterKept = (model.frontmatter?.error ?? null) !== null || (parsed.frontmatter?.error ?? null) === null;
    let retry = false;
    if (parsed.links.length === model.links.length && frontmatterKept) {
      for (let i = 0; i < model.links.length; i++) {
        const k = byIndex.get(i);
        const nl = parsed.links[i]!;
        if (k === undefined) {
          if (nl.raw !== model.links[i]!.raw || nl.kind !== model.links[i]!.kind) throw rewriteFailed(path, model.links[i]!.raw, 'its target');
          continue;
        }
        if (!edits[k]!.accepts(nl)) {
          if (++choice[k]! >= edits[k]!.candidates.length) throw rewriteFailed(path, edits[k]!.link.raw, edits[k]!.target);
          retry = true;
        }
      }
      if (!retry) return bom + out;
    } else {
      // the note does not read back with the same links: no candidate choice can be trusted
      throw rewriteFailed(path, edits[0]!.link.raw, edits[0]!.target);
    }
  }
}

/** The same link in every respect but its path part. */
function sameButPath(a: Link, b: Link): boolean {
  return a.kind === b.kind && a.inComment === b.inComment && a.subpath === b.subpath && a.display === b.display && a.size === b.size;
}

export function rewriteLinks(ctx: RewriteContext, input: StoredChange[], headings: readonly HeadingRename[]): StoredChange[] {
  const changes = input.slice();
  const memo = ctx.parsed ?? new Map<string, NoteModel>();
  const parse = textMemo(memo, (text) => parseNote(splitBom(text).body));
  // The text each note has once the proposal's own edits are in, and where it lives after.
  const indexOf = new Map<string, number>(changes.map((c, i) => [c.path, i]));
  const textOf = (path: string): string | null => {
    const i = indexOf.get(path);
    if (i !== undefined) {
      const c = changes[i]!;
      if (c.action === 'delete') return null;
      return c.action === 'write' ? c.new_text : (c.new_text ?? c.old_text);
    }
    return readCurrent(ctx.root, path)?.text ?? null;
  };
  const setText = (path: string, text: string) => {
    const i = indexOf.get(path);
    const sha = sha256Hex(Buffer.from(text, 'utf8'));
    if (i === undefined) {
      const cur = readCurrent(ctx.root, path)!;
      indexOf.set(path, changes.length);
      changes.push({ path, action: 'write', to: null, base_sha256: cur.sha256, old_text: cur.text, new_text: text, new_sha256: sha });
      return;
    }
    const c = changes[i]!;
    changes[i] = c.action === 'move' && text === c.old_text ? { ...c, new_text: null, new_sha256: c.base_sha256 } : { ...c, new_text: text, new_sha256: sha };
  };

  const texts: WorkingTexts = { parse, textOf, setText };
  const moves = changes.filter((c) => c.action === 'move');
  if (moves.length > 0) rewriteForMoves(ctx, { changes, moves }, texts);
  for (const h of headings) rewriteForHeading(ctx, h, texts);
  return changes;
}

type Parse = (text: string) => NoteModel;

/** The notes as the rewrite goes: parsed (memoised), read with the proposal's edits in, and written back into its changes. */
interface WorkingTexts {
  parse: Parse;
  /** A note's text with the proposal's edits so far (null: deleted). */
  textOf: (p: string) => string | null;
  setText: (p: string, t: string) => void;
}

/**
 * Notes in an area proposals may not write (an import, a mirror) are left as
 * they are: rewriting them would make the whole move unappliable. Their links
 * then change target, and review's link_stability lists them (`--allow-relink`
 * accepts it).
 */
function writable(ctx: RewriteContext, path: string): boolean {
  return areaOf(ctx.config, path).owner === 'human';
}

function rewriteForMoves(ctx: RewriteContext, proposal: { changes: readonly StoredChange[]; moves: readonly StoredChange[] }, texts: WorkingTexts): void {
  const { changes, moves } = proposal;
  const { parse, textOf, setText } = texts;
  const movedTo = new Map(moves.map((c) => [c.path, c.to!]));
  const mapped = (p: string) => movedTo.get(p) ?? p;
  const deleted = new Set(changes.filter((c) => c.action === 'delete').map((c) => c.path));
  const created = changes.filter((c) => c.action === 'write' && c.base_sha256 === null).map((c) => c.path);
  // names whose links can change answer: every moved file's old and new name
  const names = new Set<string>();
  for (const c of moves) (names.add(nameKey(c.path)), names.add(nameKey(c.to!)));
  const movedNotes = moves.filter((c) => isMarkdownPath(c.path) && textOf(c.path) !== null).map((c) => ({ change: c, model: parse(textOf(c.path)!) }));
  const keys = new Set(names);
  for (const { model } of movedNotes) for (const l of model.links) if (!isExternalLink(l)) keys.add(nameKey(l.path));
  for (const p of created) keys.add(nameKey(p));
  const before: FileIndex = fileIndexForKeys(ctx.db, keys, moves.map((c) => c.path));
  const after: FileIndex = buildFileIndex([
    ...before.files.filter((f) => !movedTo.has(f.path) && !deleted.has(f.path)).map((f) => ({ path: f.path, indexed: f.indexed })),
    ...[...movedTo.values(), ...created].map((p) => ({ path: p, indexed: !isExcluded(ctx.config, p) })),
  ]);

  /** The edit that keeps `link` opening what it opened (or where that moved), or null when it does already. */
  const editFor = (link: Link, from: string, to: string): Edit | null => {
    if (isExternalLink(link) || link.inComment || link.path.trim() === '') return null;
    const was = resolveLinkPath(before, link.path, from);
    if (!opens(was)) return null; // an ambiguous or dangling link has no file to keep
    const want = mapped(was.target!);
    const now = resolveLinkPath(after, link.path, to);
    if (opens(now) && now.target === want) return null;
    const trimmed = link.path.trim();
    const mdExt = isMarkdownPath(want) && hasMdExtension(trimmed) ? trimmed.slice(-3) : '';
    const candidates: string[] = [];
    for (const p of linkPathCandidates(want, to, ctx.format)) {
      const written = isMarkdownPath(want) ? p + mdExt : p;
      const r = resolveLinkPath(after, written, to);
      if (!opens(r) || r.target !== want) continue;
      const raw = retargetLinkPath(link, written);
      if (raw !== null && !candidates.includes(raw)) candidates.push(raw);
    }
    if (candidates.length === 0) throw noLinkText(want, to);
    return {
      link,
      candidates,
      target: want,
      accepts: (parsed) => {
        if (!sameButPath(parsed, link)) return false;
        const r = resolveLinkPath(after, parsed.path, to);
        return opens(r) && r.target === want;
      },
    };
  };

  // Links in other notes: those sharing a moved file's name, found through the index.
  const movedFrom = new Set(movedTo.keys());
  const holders = (
    ctx.db
      .prepare(
        `SELECT DISTINCT f.path FROM links l JOIN files f ON f.id = l.file_id
         WHERE l.name_key IN (SELECT value FROM json_each(?)) AND f.kind = 'note' AND l.external = 0
         ORDER BY f.path`,
      )
      .pluck()
      .all(JSON.stringify([...names])) as string[]
  ).filter((p) => !movedFrom.has(p) && !deleted.has(p) && writable(ctx, p));
  for (const source of holders) {
    const text = textOf(source);
    if (text === null) continue;
    const model = parse(text);
    const edits = model.links.filter((l) => !isExternalLink(l) && names.has(nameKey(l.path))).map((l) => editFor(l, source, source)).filter((e): e is Edit => e !== null);
    if (edits.length > 0) setText(source, applyEdits({ path: source, text, model }, edits, parse));
  }
  // Links inside each moved note, read from its new folder.
  for (const { change, model } of movedNotes) {
    const edits = model.links.map((l) => editFor(l, change.path, change.to!)).filter((e): e is Edit => e !== null);
    if (edits.length > 0) setText(change.path, applyEdits({ path: change.to!, text: textOf(change.path)!, model }, edits, parse));
  }
}

/** Heading text as a link can carry it: the characters links cannot hold read as spaces (Obsidian compares headings that way too). */
function linkableHeading(text: string): string {
  return text.replace(/[|#^[\]\\\r\n]/g, ' ').replace(/\s{2,}/g, ' ').trim();
}

function rewriteForHeading(ctx: RewriteContext, h: HeadingRename, texts: WorkingTexts): void {
  const { parse, textOf, setText } = texts;
  const text = linkableHeading(h.text);
  const noteText = textOf(h.path)!;
  const after = parse(noteText);
  const index = fileIndexForKeys(ctx.db, [nameKey(h.path)], [h.path]);
  /** The edit renaming the heading in `link`, or null when its heading path does not go through it. */
  const editFor = (link: Link, source: string): Edit | null => {
    if (isExternalLink(link) || link.inComment) return null;
    const sub = parseSubpath(link.subpath);
    if (sub === null || sub.kind !== 'heading') return null;
    const r = resolveLinkPath(index, link.path, source);
    if (!opens(r) || r.target !== h.path) return null;
    const matched = matchHeadingPath(h.before, sub.segments);
    if (matched === null || !matched.includes(h.heading)) return null;
    const positions = matched.flatMap((m, i) => (m === h.heading ? [i] : []));
    const raw = retargetLinkHeading(link, positions, text);
    if (raw === null) throw rewriteFailed(source, link.raw, `${h.path}#${text}`);
    return {
      link,
      candidates: [raw],
      target: `${h.path}#${text}`,
      accepts: (parsed) => {
        const s = parseSubpath(parsed.subpath);
        if (parsed.kind !== link.kind || parsed.path !== link.path || parsed.display !== link.display || parsed.size !== link.size || s?.kind !== 'heading') return false;
        const now = matchHeadingPath(after, s.segments);
        return now !== null && now.length === matched.length && now.every((m, i) => m === matched[i]);
      },
    };
  };
  const sources = new Set<string>([h.path]);
  for (const p of ctx.db
    .prepare(`SELECT DISTINCT f.path FROM links l JOIN files f ON f.id = l.file_id WHERE l.target = ? AND f.kind = 'note' ORDER BY f.path`)
    .pluck()
    .all(h.path) as string[]) {
    sources.add(p);
  }
  for (const source of sources) {
    if (source !== h.path && !writable(ctx, source)) continue;
    const t = source === h.path ? noteText : textOf(source);
    if (t === null) continue;
    const model = source === h.path ? after : parse(t);
    const edits = model.links.map((l) => editFor(l, source)).filter((e): e is Edit => e !== null);
    if (edits.length > 0) setText(source, applyEdits({ path: source, text: t, model }, edits, parse));
  }
}
