import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';

/** Small file helpers for the files `skill install` owns outside any vault. */

export function sha256(data: string | Buffer): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

/** lstat that answers undefined for a missing path. */
export function lstatOrNull(p: string): fs.Stats | undefined {
  return fs.lstatSync(p, { throwIfNoEntry: false });
}

/**
 * Write by temp file + fsync + rename, so a crash leaves the old or the new file,
 * never half of one. Never over a symbolic link: the rename would replace the link
 * by a file (a dotfiles link lost, issue 20); a caller that writes through a link
 * resolves it first ({@link linkedFile}).
 */
export function writeFileAtomic(file: string, data: string | Buffer, mode?: number): void {
  if (lstatOrNull(file)?.isSymbolicLink()) throw linkRefused(file, 'vaultgate never replaces a link');
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.vaultgate-${process.pid}-${crypto.randomBytes(4).toString('hex')}.tmp`);
  const fd = fs.openSync(tmp, 'wx', mode ?? 0o644);
  try {
    fs.writeFileSync(fd, data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    if (mode !== undefined) fs.chmodSync(tmp, mode);
    fs.renameSync(tmp, file);
  } catch (e) {
    fs.rmSync(tmp, { force: true });
    throw e;
  }
}

function linkRefused(file: string, why: string): VaultgateError {
  return new VaultgateError('FOREIGN_FILE', `${file} is a symbolic link: ${why}; it was left untouched`, {
    path: file,
    hint: 'Point the link at a regular file of yours inside your home folder, or replace it by a file, and run the command again. Nothing was changed.',
  });
}

/**
 * The file a path's bytes are in, for a write that must keep a symbolic link: the
 * path itself when it is not a link (or does not exist); else the file the link
 * leads to (every link in the chain followed), which must be a regular file owned
 * by this user inside `home` (a dotfiles repo, say). A dangling link, a link to a
 * folder, to another user's file or out of the home is refused (FOREIGN_FILE).
 */
export function linkedFile(file: string, home: string): { file: string; link: boolean } {
  if (!lstatOrNull(file)?.isSymbolicLink()) return { file, link: false };
  let real: string;
  try {
    real = fs.realpathSync(file);
  } catch {
    throw linkRefused(file, 'it leads nowhere');
  }
  const st = fs.statSync(real);
  if (!st.isFile()) throw linkRefused(file, `it leads to ${real}, which is not a regular file`);
  const uid = process.getuid?.();
  if (uid !== undefined && st.uid !== uid) throw linkRefused(file, `it leads to ${real}, which belongs to another user`);
  let realHome: string;
  try {
    realHome = fs.realpathSync(home);
  } catch {
    realHome = path.resolve(home);
  }
  if (!real.startsWith(realHome + path.sep)) throw linkRefused(file, `it leads to ${real}, outside the home folder ${realHome}`);
  return { file: real, link: true };
}

/** Create `dir` and its missing parents; returns the folders it created, outermost first (to remove them later, innermost first). */
export function mkdirs(dir: string): string[] {
  const missing: string[] = [];
  for (let d = path.resolve(dir); !lstatOrNull(d); d = path.dirname(d)) {
    missing.unshift(d);
    if (path.dirname(d) === d) break;
  }
  for (const d of missing) fs.mkdirSync(d);
  return missing;
}

/** Remove folders (innermost first) that are still empty; a folder someone put files into stays. */
export function removeEmptyDirs(dirs: readonly string[]): string[] {
  const removed: string[] = [];
  for (const d of [...dirs].reverse()) {
    try {
      fs.rmdirSync(d);
      removed.push(d);
    } catch {
      // not empty or already gone: not ours to remove
    }
  }
  return removed;
}
