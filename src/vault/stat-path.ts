import fs from 'node:fs';
import path from 'node:path';
import type { ScanWarning, VaultFile } from './scan.js';

/** What one path of the vault is now, in the terms of {@link scanVault}. */
export type PathState =
  /** A regular file: the record a fresh walk would make for it. */
  | { kind: 'file'; file: VaultFile }
  /** A symbolic link or a special file: the walk skips it with this warning. */
  | { kind: 'skipped'; warning: ScanWarning }
  /** Nothing is there (any more). */
  | { kind: 'gone' }
  | { kind: 'folder' }
  /** The path cannot be judged alone (a parent became a file, permission denied): walk the vault. */
  | { kind: 'unknown'; message: string };

/**
 * Stat one vault path the way the stat walk would have seen it, for a caller
 * that was told this path may have changed (a file watcher) and refreshes it
 * alone. `diskRel` is `/`-separated and spelled as on disk; the caller makes
 * sure no component is a dot-name and that every parent folder is one the walk
 * would enter (a changed parent is a folder event, which the caller walks for).
 */
export function statVaultPath(root: string, diskRel: string): PathState {
  const abs = path.join(root, diskRel);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(abs);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return { kind: 'gone' };
    return { kind: 'unknown', message: (e as Error).message };
  }
  const nfc = diskRel.normalize('NFC');
  if (st.isSymbolicLink()) return { kind: 'skipped', warning: { path: nfc, code: 'SYMLINK_SKIPPED', message: 'symbolic link not followed' } };
  if (st.isDirectory()) return { kind: 'folder' };
  if (!st.isFile()) return { kind: 'skipped', warning: { path: nfc, code: 'SPECIAL_FILE_SKIPPED', message: 'not a regular file' } };
  const name = diskRel.slice(diskRel.lastIndexOf('/') + 1);
  const dot = name.lastIndexOf('.');
  return {
    kind: 'file',
    file: { path: nfc, diskPath: diskRel, size: st.size, mtimeMs: st.mtimeMs, ctimeMs: st.ctimeMs, ino: st.ino, dev: st.dev, ext: dot > 0 ? name.slice(dot + 1).toLowerCase() : '' },
  };
}

/**
 * What tells a changed file from an unchanged one without reading it: device,
 * inode, size, mtime and ctime (an edit that restores size and mtime, as `cp -p`
 * and `touch -r` do, still moves ctime: issue 20). null when there is no file.
 */
export function fileStamp(file: string): string | null {
  const st = fs.statSync(file, { throwIfNoEntry: false });
  return st ? `${st.dev}:${st.ino}:${st.size}:${st.mtimeMs}:${st.ctimeMs}` : null;
}
