import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';

/** Small file helpers for the files `skill install` owns outside any vault. */

export function sha256(data: string | Buffer): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

/** lstat that answers undefined for a missing path. */
export function lstatOrNull(p: string): fs.Stats | undefined {
  return fs.lstatSync(p, { throwIfNoEntry: false });
}

/** Write by temp file + fsync + rename, so a crash leaves the old or the new file, never half of one. */
export function writeFileAtomic(file: string, data: string | Buffer, mode?: number): void {
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
