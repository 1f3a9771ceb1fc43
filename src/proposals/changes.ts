import fs from 'node:fs';
import path from 'node:path';
import { isVaultgateError, VaultgateError } from '../errors.js';
import { checkWritePath, MAX_FILE_BYTES, MAX_OPERATION_BYTES, MAX_WRITES } from '../txn/index.js';
import { isMarkdownPath, normalizeVaultPath, sha256Hex } from '../vault/index.js';
import { appendToNote, appendToSection, renameHeading, replaceOnce, replaceSection } from './edits.js';
import { alreadyCaptured, resolveCapture, type CaptureOutcome } from './capture.js';
import { asProposal } from './engine-errors.js';
import type { HeadingRename, LinkRewriter } from './link-rewrite.js';
import type { CaptureRequest, ChangeAction, ChangeRequest } from './requests.js';
import type { FolderMove, StoredChange } from './types.js';
import { field, fieldOf, listHintOf, tagged, withListHint } from './request-field.js';
import { readCurrent, staleBase, type CurrentFile } from './vault-files.js';

interface ResolveContext {
  root: string;
  /** Each folder moved whole (review checks it still holds exactly the files moved). */
  folders: FolderMove[];
  /** Each heading renamed, for the link rewriter. */
  headings: HeadingRename[];
  /** Where captures go and what they came to (absent: a caller that proposes no capture). */
  capture?: CaptureContext;
  /** The changes resolved so far (a capture of bytes already captured by this proposal adds nothing). */
  resolved: readonly StoredChange[];
}

/** Where captures go and what they came to (`resolveChanges`). */
export interface CaptureContext {
  config: Parameters<typeof resolveCapture>[1];
  /** Receives one outcome per capture request, in order (an existing capture is `existing: true` and adds no change). */
  outcomes: CaptureOutcome[];
}

/**
 * How each action becomes exact changes: one handler per action of the table
 * in requests.ts (TypeScript refuses a table that misses one). A handler is
 * either a text edit (`edit`), which composes with the other edits of the same
 * note, or a change of its own (`resolve`), alone on its path.
 */
export interface Handler<R extends ChangeRequest> {
  /**
   * A text edit: the note's new text from its text as it stands (`null`: no
   * such file yet). Edits of one note compose in list order, each on the text
   * the one before it made.
   */
  edit?: (rel: string, text: string | null, r: R) => string;
  /** Any other change: the exact changes it makes. It must be the only request on its path. */
  resolve?: (ctx: ResolveContext, rel: string, r: R) => StoredChange[];
}

export const HANDLERS: { readonly [A in ChangeAction]: Handler<Extract<ChangeRequest, { action: A }>> } = {
  write: {
    // The note's byte-order mark is kept: the text agents read (`note`) has it stripped.
    edit: (_rel, text, r) => (text?.startsWith(BOM) && !r.content.startsWith(BOM) ? BOM + r.content : r.content),
  },
  delete: {
    resolve: ({ root }, rel, r) => {
      const cur = readCurrent(root, rel);
      field('base', () => checkBase(rel, r.base, cur));
      return [{ path: rel, action: 'delete', to: null, base_sha256: r.base, old_text: cur!.text, new_text: null, new_sha256: null }];
    },
  },
  move: {
    resolve: (ctx, _rel, r) => expandMove(ctx.root, r, ctx.folders),
  },
  rename: {
    resolve: (ctx, _rel, r) => expandMove(ctx.root, r, ctx.folders),
  },
  replace: {
    edit: (rel, text, r) => {
      const t = needsText(rel, text);
      return field('replace', () => replaceOnce(rel, t, r.replace, r.with));
    },
  },
  section: {
    edit: (rel, text, r) => {
      const t = needsText(rel, text);
      return field('heading', () => replaceSection(rel, t, r.heading, r.content));
    },
  },
  append: {
    edit: (rel, text, r) => {
      if (r.content === '') throw tagged('content', noop(rel));
      const t = needsText(rel, text);
      return r.heading === undefined ? appendToNote(t, r.content) : field('heading', () => appendToSection(rel, t, r.heading!, r.content));
    },
  },
  capture: {
    // a source's bytes, content-addressed (capture.ts); the same bytes named twice in one proposal are one capture
    resolve: ({ root, capture, resolved }, _rel, r) => {
      if (!capture) throw new Error('internal: a capture needs the vault config');
      const c = resolveCapture(root, capture.config, r, capture.outcomes);
      return c !== null && !resolved.some((o) => o.capture && o.path === c.path) ? [c] : [];
    },
  },
  rename_heading: {
    resolve: ({ root, headings }, rel, r) => {
      const cur = readCurrent(root, rel);
      field('base', () => checkBase(rel, r.base, cur));
      const renamed = field('heading', () => renameHeading(rel, needsText(rel, cur!.text), r.heading, r.to));
      headings.push({ path: rel, heading: renamed.index, text: r.to.trim(), before: renamed.before });
      return [writeChange(rel, r.base, cur, renamed.text)];
    },
  },
};

/** CLI words an error may hold, and the request field each stands for. */
const FLAG_FIELDS: ReadonlyArray<[RegExp, string]> = [
  [/--base\b/g, 'base'],
  [/--replace\b/g, 'replace'],
  [/--with\b/g, 'with'],
  [/--section\b|--append-to-section\b/g, 'heading'],
  [/--content-file\b|--content\b|--stdin\b|--append-file\b/g, 'content'],
];

/**
 * An error met while resolving request `i` of a list, told as that request's:
 * the message starts with `changes[i].field`, `details` gain `request` and
 * `field`, and a CLI flag the message or hint names becomes the field (the
 * caller sent a list, not flags).
 */
function locate(e: unknown, i: number, fallback: string): unknown {
  if (!isVaultgateError(e)) return e;
  const name = fieldOf(e) ?? fallback;
  const at = `changes[${i}].${name}`;
  const unflag = (s: string) => FLAG_FIELDS.reduce((t, [re, f]) => t.replace(re, `changes[${i}].${f}`), s);
  const hint = listHintOf(e) ?? e.hint;
  return new VaultgateError(e.code, `${at}: ${unflag(e.message)}`, {
    ...(hint === undefined ? {} : { hint: unflag(hint) }),
    ...(e.path === undefined ? {} : { path: e.path }),
    details: { ...(e.details ?? {}), request: i, field: at },
    cause: e,
  });
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

function needsText(rel: string, text: string | null | undefined): string {
  if (text === null || text === undefined) {
    throw new VaultgateError('NOT_UTF8', `${rel} is not UTF-8 text; it can only be deleted or moved by a proposal`, { path: rel, hint: 'Edit it outside vaultgate, or replace it with a bundle (`vaultgate tx`).' });
  }
  return text;
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

/** A file move: its destination must not exist. */
function moveChange(root: string, rel: string, to: string, base: string | null): StoredChange {
  const cur = readCurrent(root, rel);
  if (base !== null) field('base', () => checkBase(rel, base, cur));
  else if (cur === null) throw tagged('path', staleBase(rel, null, null, 'propose'));
  const dest = readCurrent(root, to);
  if (dest !== null) {
    throw tagged('to', new VaultgateError('STALE_HASH', `cannot move ${rel} to ${to}: ${to} exists`, {
      path: to,
      details: { expected: null, actual: dest.sha256 },
      hint: 'Choose a destination that does not exist, or propose a change to the existing note.',
    }));
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

const parentOf = (rel: string) => (rel.includes('/') ? rel.slice(0, rel.lastIndexOf('/') + 1) : '');

/**
 * The path a rename gives: `to` is the new name (a note keeps `.md`, another
 * file its extension when the new name has none), or a path in the same folder
 * (its last part is then the name). A path in another folder is a move.
 */
export function renamedPath(from: string, to: string, folder: boolean): string {
  const rel = from.replace(/\/+$/, '');
  const parent = parentOf(rel);
  let n = to.trim().replace(/\/+$/, '');
  if (n.includes('/') && normalizeVaultPath(n).startsWith(parent) && !normalizeVaultPath(n).slice(parent.length).includes('/')) n = normalizeVaultPath(n).slice(parent.length);
  if (n === '' || n === '.' || n === '..' || n.includes('/') || n.includes('\\')) {
    throw tagged('to', new VaultgateError('USAGE', `a rename takes a new name in the same folder, not ${JSON.stringify(to)}`, { hint: 'Give the new file or folder name only (e.g. "New" for Notes/Old.md); a move changes folders.' }));
  }
  if (folder) return parent + n;
  if (isMarkdownPath(rel)) return parent + (isMarkdownPath(n) ? n : `${n}.md`);
  const ext = path.posix.extname(rel);
  return parent + (ext !== '' && !n.includes('.') ? n + ext : n);
}

/** A move or rename request: one file move, or one per file of a folder. */
function expandMove(root: string, r: Extract<ChangeRequest, { action: 'move' | 'rename' }>, folders: FolderMove[]): StoredChange[] {
  const rel = normalizeVaultPath(r.path.replace(/\/+$/, ''));
  const folder = isFolder(root, rel);
  // a file moved to `Folder/` keeps its name; a folder moved to `New/` becomes New
  const into = r.action === 'move' && !folder && r.to.endsWith('/');
  const to = r.action === 'rename' ? normalizeVaultPath(renamedPath(rel, r.to, folder)) : field('to', () => normalizeVaultPath(into ? r.to + rel.slice(parentOf(rel).length) : r.to.replace(/\/+$/, '')));
  if (!folder) {
    if (r.base === null) {
      // `note` reads notes only: an attachment's hash is its bytes' SHA-256 (what the STALE_HASH answer also names)
      const where = isMarkdownPath(rel) ? '`vaultgate note PATH` prints it' : `an attachment's is the SHA-256 of its bytes: \`vaultgate files '${rel}' --hash\``;
      const e = new VaultgateError('USAGE', `moving ${rel} needs --base: the sha256 of the file as you read it`, { hint: `${where}; a folder move takes no --base.` });
      throw tagged('base', withListHint(e, `${isMarkdownPath(rel) ? 'A note’s sha256 comes with its text when you read it' : 'An attachment’s base is the SHA-256 of its bytes'}; only a folder move has base "none".`));
    }
    return [moveChange(root, rel, to, r.base)];
  }
  if (r.base !== null) {
    throw tagged('base', new VaultgateError('USAGE', `${rel} is a folder: it has no sha256, so its move takes no --base`, { hint: 'Each file’s hash is pinned as it is read now; review blocks if one changes before apply.' }));
  }
  if (to === rel || to.startsWith(rel + '/')) throw tagged('to', new VaultgateError('USAGE', `cannot move the folder ${rel} into itself (${to})`, { hint: 'Give a destination outside the folder.' }));
  const files = filesUnder(root, rel);
  if (files.length === 0) throw new VaultgateError('PROPOSAL_NOOP', `${rel} holds no file to move`, { path: rel, details: { path: rel }, hint: 'Nothing was stored. An empty folder is not a vault file; create or remove it by hand.' });
  folders.push({ from: rel, to });
  return files.map((f) => moveChange(root, f, to + f.slice(rel.length), null));
}

/** The request's path as the vault knows it (a folder's trailing `/` dropped). */
const keyOf = (r: ChangeRequest) => (r.action === 'capture' ? '' : normalizeVaultPath(r.path.replace(/\/+$/, '')));

function conflict(i: number, what: string, message: string): VaultgateError {
  return new VaultgateError('CHANGES_INVALID', `changes[${i}].${what}: ${message}`, {
    details: { request: i, field: `changes[${i}].${what}` },
    hint: 'Edits of one note (write, replace, section, append) compose in list order, all against the sha256 you read; a delete, move, rename or heading rename must be the only request on its path: propose it separately.',
  });
}

/**
 * Several requests on one note: text edits compose in list order, all against
 * the same base (the version read); a delete, move, rename or heading rename
 * must be alone on its path — what an edit of a moved or deleted note would
 * mean is not obvious, so it is refused, not guessed.
 */
function checkComposition(requests: readonly ChangeRequest[]): void {
  const first = new Map<string, number>();
  requests.forEach((r, i) => {
    // a capture names a source, not a vault path: where it lands is its bytes' hash
    if (r.action === 'capture') return;
    const key = keyOf(r);
    const j = first.get(key);
    if (j === undefined) {
      first.set(key, i);
      return;
    }
    const other = requests[j]!;
    const solo = HANDLERS[r.action].edit === undefined ? r : HANDLERS[other.action].edit === undefined ? other : null;
    if (solo !== null) throw conflict(i, 'path', `${key} is also the path of changes[${j}] (${other.action}); a ${solo.action} must be the only request on its path`);
    if (other.action === 'capture') return;
    if (r.base !== other.base) throw conflict(i, 'base', `differs from changes[${j}].base for the same note: every request on a note names the sha256 you read`);
  });
}

/**
 * Every request resolved (text edits of one note composed into one write, a
 * folder move expanded to one move per file, a rename to a move), then the
 * rewriter's changes folded in — the links that keep pointing where they
 * pointed (link-rewrite.ts); the engine's count and size limits checked.
 * `folders` receives each folder moved whole (review checks that it still holds
 * exactly the files moved). `locate`: the caller sent the list itself (not CLI
 * flags), so an error names the request and field (`changes[2].heading`).
 */
export function resolveChanges(
  root: string,
  requests: readonly ChangeRequest[],
  rewriter: LinkRewriter = plainMove,
  folders: FolderMove[] = [],
  opts: { locate?: boolean; capture?: CaptureContext } = {},
): StoredChange[] {
  if (requests.length === 0) throw new VaultgateError('USAGE', 'a proposal needs at least one change', { hint: 'Give at least one change request.' });
  if (requests.length > MAX_WRITES) throw tooMany(requests.length);
  const at = <T>(i: number, fallback: string, fn: () => T): T => {
    try {
      return fn();
    } catch (e) {
      throw opts.locate ? locate(e, i, fallback) : e;
    }
  };
  requests.forEach((r, i) => {
    if (r.action !== 'capture') at(i, 'path', () => asProposal({ verb: 'propose' }, () => checkRequestPaths(r)));
  });
  checkComposition(requests);
  const resolved: StoredChange[] = [];
  const headings: HeadingRename[] = [];
  const done = new Set<number>();
  // the requests on each path, in list order: found once, not by a pass over the list per request
  // (1,000 requests normalised each other's paths a million times; issue 20 §8)
  const onPath = new Map<string, number[]>();
  requests.forEach((q, j) => {
    if (q.action === 'capture') return;
    const key = keyOf(q);
    const list = onPath.get(key);
    if (list) list.push(j);
    else onPath.set(key, [j]);
  });
  requests.forEach((r, i) => {
    if (done.has(i)) return;
    const rel = keyOf(r);
    const spec = HANDLERS[r.action] as Handler<ChangeRequest>;
    if (spec.resolve) {
      resolved.push(...at(i, r.action === 'capture' ? 'source' : 'path', () => spec.resolve!({ root, folders, headings, capture: opts.capture, resolved }, rel, r)));
      return;
    }
    if (r.action === 'capture') return; // unreachable: a capture has its own resolve
    // every edit of this note, in list order, each on the text the one before made
    const group = onPath.get(rel)!.filter((j) => j >= i);
    const cur = readCurrent(root, rel);
    at(i, 'base', () => checkBase(rel, r.base, cur));
    let text = cur?.text ?? null;
    for (const j of group) {
      const q = requests[j]!;
      text = at(j, 'path', () => (HANDLERS[q.action] as Handler<ChangeRequest>).edit!(rel, text, q));
      done.add(j);
    }
    // a no-op or an oversized text is the last edit's doing: its new text is `with` for a replace, `content` for the others
    const last = group[group.length - 1]!;
    resolved.push(at(last, requests[last]!.action === 'replace' ? 'with' : 'content', () => writeChange(rel, r.base, cur, text!)));
  });
  // only captures, every one already there: nothing to propose, and the answer names where they are
  const outcomes = opts.capture?.outcomes ?? [];
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
  if (r.action === 'move') field('to', () => checkWritePath(trimmed(r.to)));
  if (r.action === 'rename') field('to', () => checkWritePath(renamedPath(r.path, r.to, true)));
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
