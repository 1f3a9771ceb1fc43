import path from 'node:path';
import { unreachable, VaultgateError } from '../errors.js';
import { sha256Hex } from '../vault/index.js';
import { fsyncDir } from './durable.js';
import { rethrowIfCrash, type FsOps, type OperationSite } from './fs-ops.js';
import { backupName } from './journal.js';
import { abs } from './layout.js';
import { hasOriginal, type PlannedCreate, type PlannedDelete, type PlannedMove, type PlannedReplace, type PlannedWithOriginal, type PlannedWrite } from './plan.js';
import { checkParents } from './vault-state.js';

/**
 * The per-file steps of an apply. Every mutating call is preceded by a fresh
 * check that no folder on the way became a symlink (docs/guarantees.md G6).
 *
 * Nobody else takes our lock (editors, sync clients, people), so a file can change
 * at any moment. Before an original is replaced, deleted or moved, it is first
 * *moved aside* (`rename`, atomic) to a journaled dot-name beside it, and what was
 * moved is checked: the very inode backed up at the start, holding the planned
 * bytes. Only then is the new file published, by `link` (never clobbers). So:
 * - a save by temp + rename that landed before the move is what got moved aside:
 *   it is not the backed-up inode → put back, operation rolled back, exit 75;
 * - a save landing between the move and the publish makes the publish fail with
 *   EEXIST: the save stays, exit 75;
 * - an in-place write before the check changes the bytes that are checked;
 * - an in-place write after the check lands in the moved-aside original, which is
 *   hashed once more after the last write and before the commit ({@link verifyOriginals}).
 */

/** A change by someone else, found while applying: the operation is rolled back (exit 75). */
export class ConcurrentEdit extends VaultgateError {
  constructor(rel: string, what: string, details: Record<string, unknown> = {}) {
    super('STALE_HASH', `${rel} ${what} while the operation ran; it was rolled back and that change was kept`, {
      path: rel,
      details: { during_apply: true, ...details },
      hint: 'Someone (an editor, a sync client) changed the vault during the apply. Re-read the file, rebuild the bundle, and run `vaultgate tx inspect` again.',
    });
  }
}

/**
 * Record (durably, in the journal) that a disk path holds someone else's file that
 * this operation never wrote: rollback and recovery leave it exactly as it is.
 */
export type Release = (disk: string) => void;

/** What the per-file steps need besides the write: the vault, the filesystem calls, and how to release a location. */
interface Performing {
  root: string;
  ops: FsOps;
  release: Release;
}

/**
 * Keep the original for rollback and undo: a hard link (instant, same inode), or a
 * copy where links are not possible. Its bytes are checked against the planned old
 * hash, so an edit that slipped in after planning stops the operation here, before
 * anything in the vault changed. Returns the inode of the original that was backed
 * up: the aside check later insists on that very inode.
 */
export function backupOriginal({ root, opDir, ops }: OperationSite, w: PlannedWithOriginal): bigint {
  checkParents(root, w.disk, ops);
  const src = abs(root, w.disk);
  const dst = path.join(opDir, backupName(w.index));
  let ino: bigint;
  try {
    ops.link(src, dst);
    const st = ops.lstat(dst);
    if (!st) throw Object.assign(new Error(`backup ${dst} vanished`), { code: 'ENOENT' });
    ino = st.ino;
  } catch (e) {
    rethrowIfCrash(e);
    const code = (e as NodeJS.ErrnoException).code;
    if (code !== 'EXDEV' && code !== 'EPERM' && code !== 'ENOTSUP' && code !== 'EMLINK') throw e;
    const before = ops.lstat(src);
    const bytes = ops.readFile(src);
    const after = ops.lstat(src);
    if (!before || !after || before.ino !== after.ino) throw new ConcurrentEdit(w.path, 'was replaced');
    ino = after.ino;
    const fd = ops.openExclusive(dst, 0o600);
    try {
      ops.write(fd, bytes);
      ops.fchmod(fd, w.old_mode);
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
  return ino;
}

/** One planned write; `originalIno` is the inode {@link backupOriginal} backed up for a write that has an original. */
export function performWrite(p: Performing & { originalIno: (w: PlannedWithOriginal) => bigint }, w: PlannedWrite): void {
  switch (w.mode) {
    case 'create':
      return performCreate(p, w);
    case 'replace':
      return performReplace(p, w, p.originalIno(w));
    case 'delete':
      return performDelete(p, w, p.originalIno(w));
    case 'move':
      return performMove(p, w, p.originalIno(w));
    default:
      return unreachable(w, 'write mode');
  }
}

/** Write the new bytes to the journaled temp name; returns the temp file's inode. */
function writeTemp(root: string, w: PlannedCreate | PlannedReplace, ops: FsOps): bigint {
  checkParents(root, w.temp, ops);
  const fd = ops.openExclusive(abs(root, w.temp), w.mode === 'create' ? 0o666 : 0o600);
  try {
    ops.write(fd, w.content);
    ops.fchmod(fd, w.new_mode);
    ops.fsync(fd);
    return ops.fstat(fd).ino;
  } finally {
    ops.close(fd);
  }
}

/** Publish the temp file under the target name without clobbering anything that appeared there. */
function publish({ root, ops }: Performing, w: PlannedCreate | PlannedReplace, published: { ino: bigint; onTaken: () => never }): void {
  const { ino, onTaken } = published;
  const target = abs(root, w.disk);
  checkParents(root, w.disk, ops);
  try {
    ops.link(abs(root, w.temp), target); // never clobbers: EEXIST if someone saved or created it meanwhile
  } catch (e) {
    rethrowIfCrash(e);
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') onTaken();
    throw e;
  }
  checkParents(root, w.temp, ops);
  ops.unlink(abs(root, w.temp));
  checkParents(root, w.disk, ops);
  fsyncDir(path.dirname(target), ops);
  const st = ops.lstat(target);
  if (!st?.isFile() || st.ino !== ino || Number(st.size) !== w.content.byteLength) {
    throw new VaultgateError('INTEGRITY', `${w.path} is not the file just written`, {
      path: w.path,
      hint: 'Another program is writing this folder; run `vaultgate tx status`.',
    });
  }
}

function performCreate(p: Performing, w: PlannedCreate): void {
  const ino = writeTemp(p.root, w, p.ops);
  publish(p, w, {
    ino,
    onTaken: () => {
      p.release(w.disk);
      throw new ConcurrentEdit(w.path, 'was created by someone else');
    },
  });
}

/**
 * Move the original aside and check it is the backed-up inode with the planned
 * bytes. A name that is gone (a sync client renamed or deleted it) is someone
 * else's doing: the location is released untouched.
 */
function moveAside({ root, ops, release }: Performing, w: PlannedWithOriginal, ino: bigint): void {
  checkParents(root, w.disk, ops);
  checkParents(root, w.aside, ops);
  try {
    ops.rename(abs(root, w.disk), abs(root, w.aside));
  } catch (e) {
    rethrowIfCrash(e);
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') {
      release(w.disk);
      throw new ConcurrentEdit(w.path, 'was moved or removed');
    }
    throw e;
  }
  const found = checkOriginal({ root, ops }, w, ino);
  if (found !== null) {
    // what we moved is someone's newer file: recovery puts it back (the target name is free)
    throw new ConcurrentEdit(w.path, found.replaced ? 'was saved again (replaced)' : 'was edited', { expected: w.old_sha256, actual: found.sha256 });
  }
}

/** null when the moved-aside original is the backed-up inode with the planned bytes; else what is there. */
function checkOriginal({ root, ops }: { root: string; ops: FsOps }, w: PlannedWithOriginal, ino: bigint): { replaced: boolean; sha256: string | null } | null {
  const p = abs(root, w.aside);
  const st = ops.lstat(p);
  if (!st?.isFile()) return { replaced: true, sha256: null };
  const sha256 = sha256Hex(ops.readFile(p));
  if (st.ino !== ino) return { replaced: true, sha256 };
  return sha256 === w.old_sha256 ? null : { replaced: false, sha256 };
}

function performReplace(p: Performing, w: PlannedReplace, ino: bigint): void {
  const { root, ops } = p;
  const tempIno = writeTemp(root, w, ops);
  moveAside(p, w, ino);
  publish(p, w, {
    ino: tempIno,
    onTaken: () => {
      // saved again between the move and the publish: that save stays where it is;
      // the original we moved aside (checked: the old bytes) goes, it is also the backup
      checkParents(root, w.aside, ops);
      if (checkOriginal(p, w, ino) === null) {
        p.release(w.disk);
        ops.unlink(abs(root, w.aside));
      }
      throw new ConcurrentEdit(w.path, 'was saved again');
    },
  });
}

function performDelete(p: Performing, w: PlannedDelete, ino: bigint): void {
  const { root, ops } = p;
  moveAside(p, w, ino);
  checkParents(root, w.disk, ops);
  fsyncDir(path.dirname(abs(root, w.disk)), ops);
}

function performMove(p: Performing, w: PlannedMove, ino: bigint): void {
  const { root, ops, release } = p;
  moveAside(p, w, ino);
  const dest = abs(root, w.to_disk);
  checkParents(root, w.aside, ops);
  checkParents(root, w.to_disk, ops);
  try {
    ops.link(abs(root, w.aside), dest); // never clobbers
  } catch (e) {
    rethrowIfCrash(e);
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') {
      release(w.to_disk);
      throw new ConcurrentEdit(w.to, 'was created by someone else');
    }
    throw e;
  }
  checkParents(root, w.to_disk, ops);
  fsyncDir(path.dirname(dest), ops);
  checkParents(root, w.disk, ops);
  fsyncDir(path.dirname(abs(root, w.disk)), ops);
}

/**
 * After the last write and before the commit: every original moved aside is hashed
 * once more. An in-place write that reached it after its check (an editor holding
 * the old file open) is found here, and the operation is rolled back with that
 * edit put back under its name. Then the asides go (the backups keep the originals).
 */
export function verifyOriginals({ root, opDir, ops }: OperationSite, writes: PlannedWrite[]): void {
  for (const w of writes) {
    if (!hasOriginal(w)) continue;
    const p = abs(root, w.aside);
    const bytes = ops.lstat(p)?.isFile() ? ops.readFile(p) : ops.readFile(path.join(opDir, backupName(w.index)));
    const actual = sha256Hex(bytes);
    if (actual !== w.old_sha256) throw new ConcurrentEdit(w.path, 'was edited in place', { expected: w.old_sha256, actual });
  }
  const dirs = new Set<string>();
  for (const w of writes) {
    if (!hasOriginal(w)) continue;
    const p = abs(root, w.aside);
    checkParents(root, w.aside, ops);
    if (!ops.lstat(p)) continue;
    ops.unlink(p);
    dirs.add(path.dirname(p));
  }
  for (const d of dirs) fsyncDir(d, ops);
}
