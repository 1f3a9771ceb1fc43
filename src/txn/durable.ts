import path from 'node:path';
import type { FsOps } from './fs-ops.js';
import { rethrowIfCrash, stateFileTooLarge } from './fs-ops.js';
import { MAX_STATE_FILE_BYTES } from './settings.js';

/** fsync a folder so a create, rename or unlink inside it survives power loss. */
export function fsyncDir(dir: string, ops: FsOps): void {
  const fd = ops.openDir(dir);
  try {
    ops.fsync(fd);
  } finally {
    ops.close(fd);
  }
}

/**
 * Write a small state file durably: temp (O_EXCL) + fsync + rename + folder fsync.
 * For engine records only (intent, quarantine, done); vault files use apply's path.
 * `syncDir: false` when the caller fsyncs the folder itself after more entries.
 */
export function writeDurable(dir: string, name: string, data: string | Uint8Array, ops: FsOps, opts: { syncDir?: boolean } = {}): void {
  const tmp = path.join(dir, `.${name}.${process.pid}.${Math.random().toString(36).slice(2, 10)}.tmp`);
  const fd = ops.openExclusive(tmp, 0o644);
  try {
    ops.write(fd, typeof data === 'string' ? Buffer.from(data) : data);
    ops.fsync(fd);
  } catch (e) {
    rethrowIfCrash(e);
    ops.close(fd);
    try {
      ops.unlink(tmp);
    } catch (e2) {
      rethrowIfCrash(e2);
    }
    throw e;
  }
  ops.close(fd);
  ops.rename(tmp, path.join(dir, name));
  if (opts.syncDir !== false) fsyncDir(dir, ops);
}

/** Remove a folder tree we own, never following symlinks (unlink removes the link itself). */
export function removeTree(dir: string, ops: FsOps): void {
  const st = ops.lstat(dir);
  if (!st) return;
  if (!st.isDirectory() || st.isSymbolicLink()) {
    ops.unlink(dir);
    return;
  }
  for (const name of ops.readdir(dir)) removeTree(path.join(dir, name), ops);
  ops.rmdir(dir);
}

/**
 * Read and parse a JSON state file, or null when missing or unparsable (a torn or
 * foreign file). Bounded: one over MAX_STATE_FILE_BYTES is STATE_CORRUPT, not read.
 */
export function readJsonFile<T>(file: string, ops: FsOps): T | null {
  let bytes: Buffer;
  try {
    bytes = ops.readFileBounded(file, MAX_STATE_FILE_BYTES);
  } catch (e) {
    rethrowIfCrash(e);
    return null;
  }
  if (bytes.byteLength > MAX_STATE_FILE_BYTES) throw stateFileTooLarge(file);
  try {
    return JSON.parse(bytes.toString('utf8')) as T;
  } catch {
    return null;
  }
}
