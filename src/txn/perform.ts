import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { sha256Hex } from '../vault/index.js';
import { fsyncDir } from './durable.js';
import { rethrowIfCrash, type FsOps } from './fs-ops.js';
import { abs } from './layout.js';
import type { PlannedWrite } from './plan.js';
import { checkParents } from './vault-state.js';

/**
 * The per-file steps of an apply. Every mutating call is preceded by a fresh
 * check that no folder on the way became a symlink (docs/guarantees.md G6).
 */
/**
 * Keep the original for rollback and undo: a hard link (instant, same inode), or a
 * copy where links are not possible. Its bytes are checked against the planned old
 * hash, so an edit that slipped in after planning stops the operation here.
 */
export function backupOriginal(root: string, opDir: string, w: PlannedWrite, ops: FsOps): void {
  checkParents(root, w.disk, ops);
  const src = abs(root, w.disk);
  const dst = path.join(opDir, `b${w.index}`);
  try {
    ops.link(src, dst);
  } catch (e) {
    rethrowIfCrash(e);
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EMLINK') throw e;
    const bytes = ops.readFile(src);
    const fd = ops.openExclusive(dst, 0o600);
    try {
      ops.write(fd, bytes);
      ops.fchmod(fd, w.old_mode!);
      ops.fsync(fd);
    } finally {
      ops.close(fd);
    }
  }
  const actual = sha256Hex(ops.readFile(dst));
  if (actual !== w.old_sha256) {
    throw new VaultgateError('STALE_HASH', `${w.path} changed while the operation was starting`, {
      path: w.path,
      details: { expected: w.old_sha256, actual },
      hint: 'Re-read the file, rebuild the bundle, and run `vaultgate tx inspect` again.',
    });
  }
}

export function performWrite(root: string, w: PlannedWrite, ops: FsOps): void {
  const target = abs(root, w.disk);
  if (w.mode === 'create' || w.mode === 'replace') {
    checkParents(root, w.temp!, ops);
    const tmp = abs(root, w.temp!);
    const fd = ops.openExclusive(tmp, w.mode === 'create' ? 0o666 : 0o600);
    let ino: bigint;
    try {
      ops.write(fd, w.content!);
      ops.fchmod(fd, w.new_mode!);
      ops.fsync(fd);
      ino = ops.fstat(fd).ino;
    } finally {
      ops.close(fd);
    }
    checkParents(root, w.disk, ops);
    if (w.mode === 'replace') ops.rename(tmp, target);
    else {
      try {
        ops.link(tmp, target); // never clobbers: EEXIST if someone created it meanwhile
      } catch (e) {
        rethrowIfCrash(e);
        if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
          throw new VaultgateError('STALE_HASH', `${w.path} was created by someone else while the operation ran`, {
            path: w.path,
            hint: 'Re-read the vault, rebuild the bundle, and run `vaultgate tx inspect` again.',
          });
        }
        throw e;
      }
      checkParents(root, w.temp!, ops);
      ops.unlink(tmp);
    }
    checkParents(root, w.disk, ops);
    fsyncDir(path.dirname(target), ops);
    const st = ops.lstat(target);
    if (!st?.isFile() || st.ino !== ino || Number(st.size) !== w.content!.byteLength) {
      throw new VaultgateError('INTEGRITY', `${w.path} is not the file just written`, {
        path: w.path,
        hint: 'Another program is writing this folder; run `vaultgate tx status`.',
      });
    }
    return;
  }
  if (w.mode === 'delete') {
    checkParents(root, w.disk, ops);
    ops.unlink(target);
    checkParents(root, w.disk, ops);
    fsyncDir(path.dirname(target), ops);
    return;
  }
  const dest = abs(root, w.to_disk!);
  checkParents(root, w.disk, ops);
  checkParents(root, w.to_disk!, ops);
  try {
    ops.link(target, dest);
  } catch (e) {
    rethrowIfCrash(e);
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      throw new VaultgateError('STALE_HASH', `${w.to} was created by someone else while the operation ran`, { path: w.to! });
    }
    throw e;
  }
  checkParents(root, w.to_disk!, ops);
  fsyncDir(path.dirname(dest), ops);
  checkParents(root, w.disk, ops);
  ops.unlink(target);
  checkParents(root, w.disk, ops);
  fsyncDir(path.dirname(target), ops);
}
