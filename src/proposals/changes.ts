import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { checkWritePath, MAX_FILE_BYTES, MAX_OPERATION_BYTES, MAX_WRITES } from '../txn/index.js';
import { isMarkdownPath, normalizeVaultPath, sha256Hex } from '../vault/index.js';
import { appendToNote, appendToSection, renameHeading, replaceOnce, replaceSection } from './edits.js';
import { alreadyCaptured, resolveCapture, type CaptureOutcome, type CaptureRequest } from './capture.js';
import { asProposal } from './engine-errors.js';
import type { HeadingRename, LinkRewriter } from './link-rewrite.js';
import type { FolderMove, StoredChange } from './types.js';
import { readCurrent, staleBase, type CurrentFile } from './vault-files.js';

/**
 * Every form an agent may propose a change in (issue #8 §1), and how each
 * becomes an exact full-text change against the file as it is now. Exact or
 * refuse: a base that is not what the vault holds (75), text to replace that is
 * not there exactly once, a section that is not there exactly once, a change
 * that changes nothing — each is a typed error, and nothing is stored.
 */
export type ChangeRequest =
  /** The note's whole new text; `base: null` for a new note. */
  | { kind: 'write'; path: string; content: string; base: string | null }
  | { kind: 'delete'; path: string; base: string }
  /**
   * A move of a file, or of a folder and everything in it (`base: null`: each
   * file's hash as read now is pinned). Links follow through the {@link LinkRewriter}.
   */
  | { kind: 'move'; path: string; to: string; base: string | null }
  /** A move within the same folder: `name` is the new file (or folder) name; a note keeps `.md`. */
  | { kind: 'rename'; path: string; name: string; base: string | null }
  /** Rename one heading of a note (`heading`: a heading path, `A > B`); links to it follow. */
  | { kind: 'rename_heading'; path: string; heading: string; to: string; base: string }
  /** OLD must occur exactly once in the note. */
  | { kind: 'replace'; path: string; old: string; with: string; base: string }
  /** Replace the body of one section (`Heading > Sub`). */
  | { kind: 'section'; path: string; heading: string; content: string; base: string }
  | { kind: 'append'; path: string; content: string; base: string }
  | { kind: 'append_to_section'; path: string; heading: string; content: string; base: string }
  /** A source's exact bytes, stored content-addressed (capture.ts). */
  | CaptureRequest;

/** Where captures go and what they came to (`resolveChanges`). */
export interface CaptureContext {
  config: Parameters<typeof resolveCapture>[1];
  /** Receives one outcome per capture request, in order (an existing capture is `existing: true` and adds no change). */
  outcomes: CaptureOutcome[];
}

/** No rewriting: the changes as proposed (tests, and callers that rewrite nothing). */
export const plainMove: LinkRewriter = (changes) => changes;

const BOM = '\ufeff';

function noop(rel: string): VaultgateError {
  return new VaultgateError('PROPOSAL_NOOP', `the change to ${rel} changes nothing: the new text is the note's current text`, {
    path: rel,
    details: { path: rel },
    hint: 'Nothing was stored. Propose only changes that differ from the note as it is.',
  });
}

function needsText(rel: string, cur: CurrentFile): string {
  if (cur.text === null) {
    throw new VaultgateError('NOT_UTF8', `${rel} is not UTF-8 text; it can only be deleted or moved by a proposal`, { path: rel, hint: 'Edit it outside vaultgate, or replace it with a bundle (`vaultgate tx`).' });
  }
  return cur.text;
}

function checkBase(rel: string, base: string | null, cur: CurrentFile | null): void {
  if ((cur?.sha256 ?? null) !== base) throw staleBase(rel, base, cur?.sha256 ?? null, 'propose');
}

function writeChange(rel: string, base: string | null, cur: CurrentFile | null, text: string): StoredChange {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.byteLength > MAX_FILE_BYTES) {
    throw new VaultgateError('BUNDLE_LIMIT', `${rel}: the new text is ${bytes.byteLength} bytes, over ${MAX_FILE_BYTES}`, {
      path: rel,
      details: { actual: bytes.byteLength, limit: MAX_FILE_BYTES },
      hint: 'Split the note, or the change, into smaller parts.',
    });
  }
  if (cur !== null && cur.bytes.equals(bytes)) throw noop(rel);
  return { path: rel, action: 'write', to: null, base_sha256: base, old_text: cur?.text ?? null, new_text: text, new_sha256: sha256Hex(bytes) };
}

/** One request → one exact change, read against the vault now. */
export function resolveChange(root: string, r: Exclude<ChangeRequest, CaptureRequest>): StoredChange {
  const rel = normalizeVaultPath(r.path);
  const cur = readCurrent(root, rel);
  checkBase(rel, r.base as string | null, cur);
  switch (r.kind) {
    case 'write': {
      // The note's byte-order mark is kept: the text agents read (`vaultgate note`) has it stripped.
      const text = cur?.text?.startsWith(BOM) && !r.content.startsWith(BOM) ? BOM + r.content : r.content;
      return writeChange(rel, r.base, cur, text);
    }
    case 'delete':
      return { path: rel, action: 'delete', to: null, base_sha256: r.base, old_text: cur!.text, new_text: null, new_sha256: null };
    case 'move':
    case 'rename':
    case 'rename_heading':
      throw new Error(`internal: ${r.kind} is expanded by resolveChanges`);
    case 'replace':
      return writeChange(rel, r.base, cur, replaceOnce(rel, needsText(rel, cur!), r.old, r.with));
    case 'section':
      return writeChange(rel, r.base, cur, replaceSection(rel, needsText(rel, cur!), r.heading, r.content));
    case 'append':
      if (r.content === '') throw noop(rel);
      return writeChange(rel, r.base, cur, appendToNote(needsText(rel, cur!), r.content));
    case 'append_to_section':
      if (r.content === '') throw noop(rel);
      return writeChange(rel, r.base, cur, appendToSection(rel, needsText(rel, cur!), r.heading, r.content));
  }
}

/** A file move: its destination must not exist. */
function moveChange(root: string, rel: string, to: string, base: string | null): StoredChange {
  const cur = readCurrent(root, rel);
  if (base !== null) checkBase(rel, base, cur);
  else if (cur === null) throw staleBase(rel, null, null, 'propose');
  const dest = readCurrent(root, to);
  if (dest !== null) {
    throw new VaultgateError('STALE_HASH', `cannot move ${rel} to ${to}: ${to} exists`, {
      path: to,
      details: { expected: null, actual: dest.sha256 },
      hint: 'Choose a destination that does not exist, or propose a change to the existing note.',
    });
  }
  return { path: rel, action: 'move', to, base_sha256: cur!.sha256, old_text: cur!.text, new_text: null, new_sha256: cur!.sha256 };
}

/** Whether a vault path names a folder on disk (a symbolic link is never followed). */
export function isFolder(root: string, rel: string): boolean {
  try {
    return fs.lstatSync(path.join(root, rel)).isDirectory();
  } catch {
    return false;
  }
}

/**
 * Every file under a folder, as vault paths, the way the scanner sees them:
 * dot-files and dot-folders are not the vault's (Obsidian ignores them) and
 * stay where they are; a symbolic link inside is refused, never followed.
 */
export function filesUnder(root: string, folder: string): string[] {
  const out: string[] = [];
  const walk = (rel: string) => {
    for (const e of fs.readdirSync(path.join(root, rel), { withFileTypes: true })) {
      if (e.name.startsWith('.')) continue;
      const child = `${rel}/${e.name.normalize('NFC')}`;
      if (e.isSymbolicLink()) {
        throw new VaultgateError('PATH_SYMLINK', `${child} is a symbolic link; a folder holding one is not moved`, { path: child, hint: 'Move or remove the link by hand first.' });
      }
      if (e.isDirectory()) walk(child);
      else if (e.isFile()) out.push(child);
    }
  };
  walk(folder);
  return out.sort();
}

/** The file name a rename gives: a note keeps `.md`, another file its extension when the new name has none. */
function renamedName(rel: string, name: string, folder: boolean): string {
  const n = name.trim();
  if (n === '' || n === '.' || n === '..' || n.includes('/') || n.includes('\\')) {
    throw new VaultgateError('USAGE', `--rename takes a new name, not a path: ${JSON.stringify(name)}`, { hint: 'Give the new file name only (`--rename Notes/Old.md New`); use --move to change folders.' });
  }
  if (folder) return n;
  if (isMarkdownPath(rel)) return isMarkdownPath(n) ? n : `${n}.md`;
  const ext = path.posix.extname(rel);
  return ext !== '' && !n.includes('.') ? n + ext : n;
}

/** A move or rename request: one file move, or one per file of a folder. */
function expandMove(root: string, r: Extract<ChangeRequest, { kind: 'move' | 'rename' }>, folders: FolderMove[]): StoredChange[] {
  const rel = normalizeVaultPath(r.path.replace(/\/+$/, ''));
  const folder = isFolder(root, rel);
  const parent = rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/') + 1) : '';
  // a file moved to `Folder/` keeps its name; a folder moved to `New/` becomes New
  const into = r.kind === 'move' && !folder && r.to.endsWith('/');
  const to = normalizeVaultPath(r.kind === 'rename' ? parent + renamedName(rel, r.name, folder) : into ? r.to + rel.slice(parent.length) : r.to.replace(/\/+$/, ''));
  if (!folder) {
    if (r.base === null) {
      // `note` reads notes only: an attachment's hash is its bytes' SHA-256 (what the STALE_HASH answer also names)
      const where = isMarkdownPath(rel) ? '`vaultgate note PATH` prints it' : `an attachment's is the SHA-256 of its bytes: \`vaultgate files '${rel}' --hash\``;
      throw new VaultgateError('USAGE', `moving ${rel} needs --base: the sha256 of the file as you read it`, { hint: `${where}; a folder move takes no --base.` });
    }
    return [moveChange(root, rel, to, r.base)];
  }
  if (r.base !== null) {
    throw new VaultgateError('USAGE', `${rel} is a folder: it has no sha256, so a folder move takes no --base`, { hint: 'Each file’s hash is pinned as it is read now; review blocks if one changes before apply.' });
  }
  if (to === rel || to.startsWith(rel + '/')) throw new VaultgateError('USAGE', `cannot move the folder ${rel} into itself (${to})`, { hint: 'Give a destination outside the folder.' });
  const files = filesUnder(root, rel);
  if (files.length === 0) throw new VaultgateError('PROPOSAL_NOOP', `${rel} holds no file to move`, { path: rel, details: { path: rel }, hint: 'Nothing was stored. An empty folder is not a vault file; create or remove it by hand.' });
  folders.push({ from: rel, to });
  return files.map((f) => moveChange(root, f, to + f.slice(rel.length), null));
}

/**
 * Every request resolved (moves of folders expanded to one move per file, a
 * rename to a move), then the rewriter's changes folded in — the links that
 * keep pointing where they pointed (link-rewrite.ts); the engine's count and
 * size limits checked. `folders` receives each folder moved whole (review checks
 * that it still holds exactly the files moved).
 */
export function resolveChanges(root: string, requests: readonly ChangeRequest[], rewriter: LinkRewriter = plainMove, folders: FolderMove[] = [], capture?: CaptureContext): StoredChange[] {
  if (requests.length === 0) throw new VaultgateError('USAGE', 'a proposal needs at least one change', { hint: 'See `vaultgate propose --help`.' });
  if (requests.length > MAX_WRITES) throw tooMany(requests.length);
  for (const r of requests) if (r.kind !== 'capture') asProposal({ verb: 'propose' }, () => checkRequestPaths(r));
  const resolved: StoredChange[] = [];
  const headings: HeadingRename[] = [];
  const outcomes = capture?.outcomes ?? [];
  for (const r of requests) {
    if (r.kind === 'capture') {
      if (!capture) throw new Error('internal: a capture needs the vault config');
      const c = resolveCapture(root, capture.config, r, outcomes);
      // the same bytes named twice in one proposal are one capture
      if (c !== null && !resolved.some((o) => o.capture && o.path === c.path)) resolved.push(c);
    } else if (r.kind === 'move' || r.kind === 'rename') resolved.push(...expandMove(root, r, folders));
    else if (r.kind === 'rename_heading') {
      const rel = normalizeVaultPath(r.path);
      const cur = readCurrent(root, rel);
      checkBase(rel, r.base, cur);
      const renamed = renameHeading(rel, needsText(rel, cur!), r.heading, r.to);
      resolved.push(writeChange(rel, r.base, cur, renamed.text));
      headings.push({ path: rel, heading: renamed.index, text: r.to.trim(), before: renamed.before });
    } else resolved.push(resolveChange(root, r));
  }
  // only captures, every one already there: nothing to propose, and the answer names where they are
  if (resolved.length === 0 && outcomes.length > 0) throw alreadyCaptured(outcomes);
  for (const c of resolved) {
    if (c.action === 'move') checkLinkableName(c.to!);
    else if (c.action === 'write' && c.base_sha256 === null) checkLinkableName(c.path);
  }
  const changes = resolved.some((c) => c.action === 'move') || headings.length > 0 ? rewriter(resolved, headings) : resolved;
  if (changes.length > MAX_WRITES) throw tooMany(changes.length);
  const total = changes.reduce((n, c) => n + (c.capture ? c.capture.bytes.byteLength : c.new_text === null ? 0 : Buffer.byteLength(c.new_text)), 0);
  if (total > MAX_OPERATION_BYTES) {
    throw new VaultgateError('BUNDLE_LIMIT', `the new texts add up to ${total} bytes, over ${MAX_OPERATION_BYTES}`, {
      details: { actual: total, limit: MAX_OPERATION_BYTES },
      hint: 'Split it into several proposals.',
    });
  }
  return changes;
}

/**
 * The engine's path rules (reserved folders, portable names) on the paths a
 * request names, before anything is read: a path no proposal may ever write is
 * refused as such (PATH_RESERVED, exit 2), not as a stale base or a link the
 * rewriter cannot write. The whole bundle is checked again once it is built.
 */
function checkRequestPaths(r: Exclude<ChangeRequest, CaptureRequest>): void {
  const trimmed = (p: string) => p.replace(/\/+$/, '');
  checkWritePath(trimmed(r.path));
  if (r.kind === 'move') checkWritePath(trimmed(r.to));
  if (r.kind === 'rename') {
    const from = trimmed(r.path);
    const parent = from.includes('/') ? from.slice(0, from.lastIndexOf('/') + 1) : '';
    checkWritePath(parent + trimmed(r.name));
  }
}

/** Characters that end or split an Obsidian link: `#` heading, `^` block, `|` display text, `[` `]` the brackets. */
const UNLINKABLE = /[#^[\]|]/;

/**
 * A path a proposal creates (a new file, a move's destination) must be one an
 * Obsidian link can reach: `[[a#b]]` opens heading `b` of `a`, never `a#b.md`.
 * Obsidian itself refuses such names; so does a proposal (PATH_INVALID). A file
 * that already has one is read, edited and moved away as any other (only what
 * is created is checked), and `tx` bundles — a person's own tool — are not held
 * to Obsidian's naming.
 */
function checkLinkableName(rel: string): void {
  const bad = rel.split('/').find((part) => UNLINKABLE.test(part));
  if (bad === undefined) return;
  const chars = [...new Set([...bad].filter((ch) => UNLINKABLE.test(ch)))].join(' ');
  throw new VaultgateError('PATH_INVALID', `invalid vault path ${JSON.stringify(rel)}: ${JSON.stringify(bad)} holds ${chars}, which no Obsidian link can reach`, {
    path: rel,
    details: { path: rel, characters: chars },
    hint: 'Obsidian links cannot name a file or folder with # ^ [ ] | in it: choose a name without them (e.g. `-` or a space instead) and propose again.',
  });
}

function tooMany(n: number): VaultgateError {
  return new VaultgateError('BUNDLE_LIMIT', `a proposal may change at most ${MAX_WRITES} files; this one has ${n}`, {
    details: { actual: n, limit: MAX_WRITES },
    hint: 'Split it into several proposals (a folder move: move its subfolders one by one).',
  });
}

/** A title when none is given: what the first change does, and how many more there are. */
export function defaultTitle(changes: readonly StoredChange[]): string {
  const c = changes[0]!;
  const what = c.capture ? `Capture ${c.capture.source}` : c.action === 'move' ? `Move ${c.path} to ${c.to}` : c.action === 'delete' ? `Delete ${c.path}` : c.base_sha256 === null ? `Create ${c.path}` : `Edit ${c.path}`;
  return changes.length > 1 ? `${what} (+${changes.length - 1} more)` : what;
}
