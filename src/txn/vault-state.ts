import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { filesystemFoldKey, sha256Hex } from '../vault/index.js';
import type { FsOps } from './fs-ops.js';
import { abs } from './layout.js';

/**
 * Reading the vault the way the engine must: every component lstat'ed (a symlink
 * anywhere refuses), names matched by NFC (macOS stores NFD), and a name that
 * exists only in another case reported as an alias rather than silently created
 * beside it.
 */
export interface Target {
  /** Canonical vault path (NFC). */
  rel: string;
  /** The path as it is (or will be) on disk. */
  disk: string;
  /** Folders on the way that do not exist yet, shallowest first (disk paths). */
  missingDirs: string[];
  exists: boolean;
}

export interface FileState {
  sha256: string;
  /** Permission bits (mode & 0o7777). */
  mode: number;
  size: number;
}

const symlinkError = (rel: string, at: string) =>
  new VaultgateError('PATH_SYMLINK', `${rel}: ${at} is a symbolic link`, {
    path: rel,
    hint: 'vaultgate never writes through symlinks inside the vault; use the real path.',
  });

/** Per-plan cache of folder listings, so 40 creates in one folder list it once. */
export type DirCache = Map<string, string[]>;

export function resolveTarget(root: string, rel: string, ops: FsOps, cache: DirCache = new Map()): Target {
  const parts = rel.split('/');
  const diskParts: string[] = [];
  const missing: string[] = [];
  let absent = false;
  for (let n = 0; n < parts.length; n++) {
    const part = parts[n] ?? '';
    const last = n === parts.length - 1;
    if (absent) {
      diskParts.push(part);
      if (!last) missing.push(diskParts.join('/'));
      continue;
    }
    const parentAbs = abs(root, diskParts.join('/'));
    let name = part;
    let st = ops.lstat(path.join(parentAbs, part));
    if (!st) {
      let entries = cache.get(parentAbs);
      if (!entries) {
        entries = ops.readdir(parentAbs);
        cache.set(parentAbs, entries);
      }
      const nfc = entries.find((e) => e !== part && e.normalize('NFC') === part);
      if (nfc !== undefined) {
        name = nfc;
        st = ops.lstat(path.join(parentAbs, nfc));
      } else {
        const key = filesystemFoldKey(part);
        const alias = entries.find((e) => filesystemFoldKey(e) === key);
        if (alias !== undefined) {
          const where = [...diskParts, alias].join('/');
          throw new VaultgateError('PATH_CASE_ALIAS', `${rel}: the vault already has ${where}, which differs only by case`, {
            path: rel,
            details: { existing: where },
            hint: `Use the existing name ${where}; two names that differ only by case collide on macOS and Windows.`,
          });
        }
      }
    }
    diskParts.push(name);
    if (!st) {
      absent = true;
      if (!last) missing.push(diskParts.join('/'));
      continue;
    }
    if (st.isSymbolicLink()) throw symlinkError(rel, diskParts.join('/'));
    if (!last && !st.isDirectory()) {
      throw new VaultgateError('NOT_A_FILE', `${rel}: ${diskParts.join('/')} is a file, not a folder`, { path: rel });
    }
    if (last && !st.isFile()) {
      throw new VaultgateError('NOT_A_FILE', `${rel} is not a regular file`, { path: rel, hint: 'Name a file, not a folder.' });
    }
  }
  return { rel, disk: diskParts.join('/'), missingDirs: missing, exists: !absent };
}

/**
 * Refuse if any folder on the way to `disk` is (now) a symlink or not a folder.
 * Called right before every mutating step, so a parent swapped for a symlink
 * between two steps stops the write instead of redirecting it. (Without
 * openat() a swap *during* one syscall cannot be excluded; docs/guarantees.md.)
 */
export function checkParents(root: string, disk: string, ops: FsOps): void {
  const parts = disk.split('/');
  let cur = root;
  for (let n = 0; n < parts.length - 1; n++) {
    cur = path.join(cur, parts[n] ?? '');
    const st = ops.lstat(cur);
    if (!st) return; // a missing folder cannot redirect anything; the step itself will fail
    if (st.isSymbolicLink() || !st.isDirectory()) throw symlinkError(disk, parts.slice(0, n + 1).join('/'));
  }
}

/** Current bytes' hash and mode of a disk path, or null when absent. Refuses symlinks anywhere. */
export function readState(root: string, disk: string, ops: FsOps): FileState | null {
  checkParents(root, disk, ops);
  const p = abs(root, disk);
  const st = ops.lstat(p);
  if (!st) return null;
  if (st.isSymbolicLink()) throw symlinkError(disk, disk);
  if (!st.isFile()) throw new VaultgateError('NOT_A_FILE', `${disk} is not a regular file`, { path: disk });
  const bytes = ops.readFile(p);
  return { sha256: sha256Hex(bytes), mode: Number(st.mode) & 0o7777, size: bytes.byteLength };
}
