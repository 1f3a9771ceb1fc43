import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { filesystemFoldKey } from './case-fold.js';

/**
 * Folders that are not part of the vault for Obsidian (dot-folders) and that no
 * write may touch. `.vaultgate/` is ours; the others are Obsidian's, git's, or the trash.
 */
export const RESERVED_TOP_FOLDERS = ['.vaultgate', '.obsidian', '.git', '.trash'] as const;

/** Longest vault-relative path we accept, in UTF-8 bytes (DESIGN §5.1 limits). */
export const MAX_PATH_BYTES = 1024;
/** Longest single path component, in UTF-8 bytes (common filesystem limit). */
export const MAX_COMPONENT_BYTES = 255;

/** Portable names: characters Windows refuses, and its reserved device names. */
const WINDOWS_FORBIDDEN = /[<>:"|?*\u0000-\u001f]/;
const WINDOWS_RESERVED = /^(con|prn|aux|nul|com[0-9¹²³]|lpt[0-9¹²³])(\..*)?$/i;

export interface NormalizeOptions {
  /** Also refuse names Windows cannot store (required for writes). */
  portable?: boolean;
  /** What the person typed, when `input` was derived from it: refusals quote this. */
  typed?: string;
}

/**
 * Validate a vault-relative path lexically and return its canonical form:
 * forward slashes, NFC, no `.`/`..` segments, not absolute, no NUL or backslash.
 * Nothing on disk is consulted; see {@link assertNoSymlinkComponents} for that.
 */
export function normalizeVaultPath(input: string, opts: NormalizeOptions = {}): string {
  const shown = opts.typed ?? input;
  const fail = (why: string, hint = 'Give a path relative to the vault root, e.g. `notes/idea.md`.') =>
    new VaultgateError('PATH_INVALID', `invalid vault path ${JSON.stringify(shown)}: ${why}`, { path: shown, hint });
  if (typeof input !== 'string' || input.length === 0) throw fail('empty');
  if (input.includes('\u0000')) throw fail('contains a NUL character');
  if (input.includes('\\')) throw fail('contains a backslash; use `/` between folders');
  if (input.startsWith('/') || /^[A-Za-z]:/.test(input)) {
    throw new VaultgateError('PATH_OUTSIDE_VAULT', `absolute path ${JSON.stringify(input)} is not vault-relative`, {
      path: input,
      hint: 'Give the path relative to the vault root.',
    });
  }
  const nfc = input.normalize('NFC');
  const parts = nfc.split('/');
  for (const part of parts) {
    if (part === '' ) throw fail('empty path segment (`//` or a trailing `/`)');
    if (part === '.') throw fail('`.` segment');
    if (part === '..') {
      throw new VaultgateError('PATH_OUTSIDE_VAULT', `path ${JSON.stringify(input)} climbs out with \`..\``, {
        path: input,
        hint: 'Give a path inside the vault without `..`.',
      });
    }
    if (Buffer.byteLength(part) > MAX_COMPONENT_BYTES) throw fail(`component longer than ${MAX_COMPONENT_BYTES} bytes`);
    if (opts.portable) {
      if (WINDOWS_FORBIDDEN.test(part)) {
        throw fail(
          `component ${JSON.stringify(part)} has a character Windows cannot store`,
          'Choose a name without < > : " | ? * or control characters: Windows (and a vault synced to it) cannot store them, and Obsidian links cannot reach a name with |.',
        );
      }
      if (WINDOWS_RESERVED.test(part)) throw fail(`component ${JSON.stringify(part)} is a reserved Windows device name`);
      if (/[. ]$/.test(part)) throw fail(`component ${JSON.stringify(part)} ends with a dot or space`);
    }
  }
  if (Buffer.byteLength(nfc) > MAX_PATH_BYTES) throw fail(`longer than ${MAX_PATH_BYTES} bytes`);
  return nfc;
}

/** True when the path lies inside a dot-folder or is a dot-file: not part of the vault for Obsidian. */
export function isHiddenPath(rel: string): boolean {
  return rel.split('/').some((p) => p.startsWith('.'));
}

/**
 * True when the path is under one of the folders no write may touch. Compared with
 * the filesystem fold, not `toLowerCase`: on a case-insensitive disk `.obſidian/` *is*
 * `.obsidian/`, even before Obsidian has created it.
 */
export function isReservedPath(rel: string): boolean {
  const first = filesystemFoldKey(rel.split('/')[0] ?? '');
  return RESERVED_TOP_FOLDERS.some((r) => filesystemFoldKey(r) === first);
}

/**
 * Turn a path as a person types it on the command line (vault-relative, or
 * absolute inside the vault) into a canonical vault-relative path. Read-side
 * arguments only: `.` and `..` segments are resolved first, lexically, and the
 * result is judged, so `Games/../Home.md` is `Home.md`, while a path that climbs
 * out (`../../etc/passwd`) is PATH_OUTSIDE_VAULT, quoting what was typed.
 * Bundle paths never come through here: {@link normalizeVaultPath} refuses
 * every `..` in them, because an agent must write the exact path it means.
 */
export function toVaultRelative(root: string, input: string): string {
  const outside = () =>
    new VaultgateError('PATH_OUTSIDE_VAULT', `${JSON.stringify(input)} is outside the vault ${root}`, {
      path: input,
      hint: 'Give a path inside the vault, relative to its root.',
    });
  if (path.isAbsolute(input)) {
    const rel = path.relative(root, input);
    if (rel === '' || rel.startsWith('..') || path.isAbsolute(rel)) throw outside();
    return normalizeVaultPath(rel.split(path.sep).join('/'));
  }
  const kept: string[] = [];
  for (const part of input.split('/')) {
    if (part === '.') continue;
    if (part === '..') {
      if (kept.length === 0) throw outside();
      kept.pop();
    } else {
      kept.push(part);
    }
  }
  if (kept.length === 0 && input !== '') {
    throw new VaultgateError('PATH_INVALID', `${JSON.stringify(input)} names the vault folder itself, not a file in it`, {
      path: input,
      hint: 'Give a path relative to the vault root, e.g. `notes/idea.md`.',
    });
  }
  return normalizeVaultPath(kept.join('/'), { typed: input });
}

/**
 * Refuse a path any of whose existing components is a symlink, so that no read or
 * write can be redirected outside the vault. Components that do not exist yet are
 * fine (a create). Returns the absolute path.
 */
export function assertNoSymlinkComponents(root: string, rel: string): string {
  let current = root;
  for (const part of rel.split('/')) {
    current = path.join(current, part);
    let st: fs.Stats;
    try {
      st = fs.lstatSync(current);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'ENOENT') return path.join(root, rel);
      throw e;
    }
    if (st.isSymbolicLink()) {
      throw new VaultgateError('PATH_SYMLINK', `${rel}: ${path.relative(root, current)} is a symbolic link`, {
        path: rel,
        hint: 'vaultgate never follows symlinks inside the vault; use the real path of the file.',
      });
    }
  }
  return path.join(root, rel);
}

/**
 * Find a canonical (NFC) vault path on disk, where a file may be stored under a
 * different normalisation (macOS writes NFD names). Each component is tried as
 * given, then matched by NFC among its folder's entries. Symlinks are refused.
 * Returns the absolute on-disk path, or null when some component does not exist.
 */
export function locateOnDisk(root: string, rel: string): string | null {
  let current = root;
  for (const part of rel.split('/')) {
    let next = path.join(current, part);
    let st: fs.Stats | undefined;
    try {
      st = fs.lstatSync(next);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT' && (e as NodeJS.ErrnoException).code !== 'ENOTDIR') throw e;
    }
    if (!st) {
      let entries: string[];
      try {
        entries = fs.readdirSync(current);
      } catch {
        return null;
      }
      const want = part.normalize('NFC');
      const match = entries.find((n) => n !== part && n.normalize('NFC') === want);
      if (match === undefined) return null;
      next = path.join(current, match);
      st = fs.lstatSync(next);
    }
    if (st.isSymbolicLink()) {
      throw new VaultgateError('PATH_SYMLINK', `${rel}: ${path.relative(root, next)} is a symbolic link`, {
        path: rel,
        hint: 'vaultgate never follows symlinks inside the vault; use the real path of the file.',
      });
    }
    current = next;
  }
  return current;
}
