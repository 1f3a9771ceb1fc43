import { VaultgateError } from '../errors.js';
import { MAX_FILE_BYTES, MAX_OPERATION_BYTES, MAX_WRITES } from '../txn/index.js';
import { normalizeVaultPath, sha256Hex } from '../vault/index.js';
import { appendToNote, appendToSection, replaceOnce, replaceSection } from './edits.js';
import type { StoredChange } from './types.js';
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
  /** A plain move; link rewriting plugs in through {@link MoveLinkRewriter}. */
  | { kind: 'move'; path: string; to: string; base: string }
  /** OLD must occur exactly once in the note. */
  | { kind: 'replace'; path: string; old: string; with: string; base: string }
  /** Replace the body of one section (`Heading > Sub`). */
  | { kind: 'section'; path: string; heading: string; content: string; base: string }
  | { kind: 'append'; path: string; content: string; base: string }
  | { kind: 'append_to_section'; path: string; heading: string; content: string; base: string };

/**
 * The seam where link rewriting plugs in (a later issue): given the proposal's
 * moves, the extra changes that keep links pointing at the moved notes (each
 * an exact change with its base, reviewed like any other). The plain move
 * rewrites nothing.
 */
export type MoveLinkRewriter = (moves: ReadonlyArray<{ from: string; to: string; base: string }>, vault: { root: string }) => StoredChange[];
export const plainMove: MoveLinkRewriter = () => [];

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
export function resolveChange(root: string, r: ChangeRequest): StoredChange {
  const rel = normalizeVaultPath(r.path);
  const cur = readCurrent(root, rel);
  checkBase(rel, r.base, cur);
  switch (r.kind) {
    case 'write': {
      // The note's byte-order mark is kept: the text agents read (`vaultgate note`) has it stripped.
      const text = cur?.text?.startsWith(BOM) && !r.content.startsWith(BOM) ? BOM + r.content : r.content;
      return writeChange(rel, r.base, cur, text);
    }
    case 'delete':
      return { path: rel, action: 'delete', to: null, base_sha256: r.base, old_text: cur!.text, new_text: null, new_sha256: null };
    case 'move': {
      const to = normalizeVaultPath(r.to);
      const dest = readCurrent(root, to);
      if (dest !== null) {
        throw new VaultgateError('STALE_HASH', `cannot move ${rel} to ${to}: ${to} exists`, {
          path: to,
          details: { expected: null, actual: dest.sha256 },
          hint: 'Choose a destination that does not exist, or propose a change to the existing note.',
        });
      }
      return { path: rel, action: 'move', to, base_sha256: r.base, old_text: cur!.text, new_text: null, new_sha256: r.base };
    }
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

/** Every request resolved, moves expanded by the rewriter; the engine's count and size limits checked. */
export function resolveChanges(root: string, requests: readonly ChangeRequest[], rewriter: MoveLinkRewriter = plainMove): StoredChange[] {
  if (requests.length === 0) throw new VaultgateError('USAGE', 'a proposal needs at least one change', { hint: 'See `vaultgate propose --help`.' });
  if (requests.length > MAX_WRITES) {
    throw new VaultgateError('BUNDLE_LIMIT', `a proposal may change at most ${MAX_WRITES} files; this one has ${requests.length}`, {
      details: { actual: requests.length, limit: MAX_WRITES },
      hint: 'Split it into several proposals.',
    });
  }
  const changes = requests.map((r) => resolveChange(root, r));
  const moves = changes.filter((c) => c.action === 'move').map((c) => ({ from: c.path, to: c.to!, base: c.base_sha256! }));
  if (moves.length > 0) changes.push(...rewriter(moves, { root }));
  const total = changes.reduce((n, c) => n + (c.new_text === null || c.action !== 'write' ? 0 : Buffer.byteLength(c.new_text)), 0);
  if (total > MAX_OPERATION_BYTES) {
    throw new VaultgateError('BUNDLE_LIMIT', `the new texts add up to ${total} bytes, over ${MAX_OPERATION_BYTES}`, {
      details: { actual: total, limit: MAX_OPERATION_BYTES },
      hint: 'Split it into several proposals.',
    });
  }
  return changes;
}

/** A title when none is given: what the first change does, and how many more there are. */
export function defaultTitle(changes: readonly StoredChange[]): string {
  const c = changes[0]!;
  const what = c.action === 'move' ? `Move ${c.path} to ${c.to}` : c.action === 'delete' ? `Delete ${c.path}` : c.base_sha256 === null ? `Create ${c.path}` : `Edit ${c.path}`;
  return changes.length > 1 ? `${what} (+${changes.length - 1} more)` : what;
}
