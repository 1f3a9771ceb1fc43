import path from 'node:path';
import { isVaultgateError } from '../errors.js';
import { filesystemFoldKey, sha256Hex } from '../vault/index.js';
import { fsyncDir, readJsonFile, removeTree, writeDurable } from './durable.js';
import { rethrowIfCrash, type FsOps, type OperationSite } from './fs-ops.js';
import { finalize, retire } from './history.js';
import { locationsOf, markReleased, readIntent, readReleased, type Intent, type Location, type Quarantine } from './journal.js';
import { abs, isOperationDirName, txnLayout } from './layout.js';
import { checkPendingEntry } from './state-guard.js';
import { checkParents, readState } from './vault-state.js';

/**
 * Recovery of an interrupted operation (DESIGN §5.1): roll forward when every
 * write already reached the vault and every original is intact, else roll back.
 * It touches a file only while it holds the operation's old or new bytes, or to
 * put an original back under its own name where that name is free (or holds our
 * new bytes); anything else is someone else's edit, and the operation is
 * quarantined (its paths alone blocked) until `vaultgate tx resolve` says what to keep.
 *
 * The original of a replaced, deleted or moved file is the inode that was there:
 * moved aside beside the note (`aside`) until the commit, and linked as the backup
 * `b<i>`. Whatever bytes it holds now are the latest version of that file (an
 * editor holding it open may have written into it), so a rollback puts that inode
 * back, and an original that no longer holds the old bytes forces a rollback even
 * when every write landed: a commit would leave that edit only in a backup.
 */
export type RecoverKind = 'applied' | 'rolled_back' | 'quarantined' | 'discarded';

export interface RecoverOutcome {
  operation_id: string;
  outcome: RecoverKind;
  conflicts?: Quarantine['conflicts'];
}

export interface RecoverOptions {
  keepBackups: number;
}

const FOREIGN = Symbol('foreign');
type Seen = string | null | typeof FOREIGN;

function observe(root: string, disk: string, ops: FsOps): Seen {
  try {
    return readState(root, disk, ops)?.sha256 ?? null;
  } catch (e) {
    rethrowIfCrash(e);
    // a symlink or folder where our file was: not ours to touch
    if (isVaultgateError(e)) return FOREIGN;
    throw e;
  }
}

/** Where the original of a location is now, and what it holds. */
interface Original {
  where: 'aside' | 'backup';
  abs: string;
  sha256: string | typeof FOREIGN;
}

function observeOriginal({ root, opDir, ops }: OperationSite, l: Location): Original | null {
  if (l.old === null) return null;
  if (l.aside !== undefined) {
    checkParents(root, l.aside, ops);
    const p = abs(root, l.aside);
    const st = ops.lstat(p);
    if (st) return { where: 'aside', abs: p, sha256: st.isFile() ? sha256Hex(ops.readFile(p)) : FOREIGN };
  }
  if (l.backup === undefined) return null;
  const b = path.join(opDir, l.backup);
  const st = ops.lstat(b);
  if (!st) return null;
  return { where: 'backup', abs: b, sha256: st.isFile() ? sha256Hex(ops.readFile(b)) : FOREIGN };
}

export function recoverOperation({ root, opDir, ops }: OperationSite, opts: RecoverOptions): RecoverOutcome {
  const name = path.basename(opDir);
  const intent = readIntent(opDir, ops);
  if (!intent) {
    // died before the intent was durable: the vault was not touched yet
    retire(opDir, ops);
    return { operation_id: name, outcome: 'discarded' };
  }
  const released = readReleased(opDir, ops);
  const locs = locationsOf(intent);
  const seen = locs.map((l) => observe(root, l.disk, ops));
  const originals = locs.map((l) => observeOriginal({ root, opDir, ops }, l));
  const intact = originals.every((o, n) => o === null || o.sha256 === locs[n]?.old);
  if (released.size === 0 && intact && locs.every((l, n) => seen[n] === l.new)) {
    sweepTemps(root, intent, ops);
    sweepAsides(root, originals, ops);
    finalize({ root, opDir, ops }, intent, { outcome: 'applied', keepBackups: opts.keepBackups });
    return { operation_id: intent.operation_id, outcome: 'applied' };
  }
  sweepTemps(root, intent, ops);
  const conflicts: Quarantine['conflicts'] = [];
  const touched = new Set<string>();
  for (let n = locs.length - 1; n >= 0; n--) {
    const l = locs[n];
    const s = seen[n];
    if (l === undefined || s === undefined) continue;
    try {
      const original = originals[n] ?? null;
      const rb: RollingBack = { root, opDir, ops, touched };
      const at: LocationSeen = { l, s, original };
      if (released.has(l.disk) ? settleReleased(rb, at) : rollBackLocation(rb, at)) continue;
    } catch (e) {
      rethrowIfCrash(e);
      if (!isVaultgateError(e) && !['EEXIST', 'ENOENT'].includes((e as NodeJS.ErrnoException).code ?? '')) throw e;
    }
    conflicts.push({ path: l.path, expected_one_of: [l.old, l.new], found: s === FOREIGN ? 'unreadable' : s });
  }
  // one fsync per folder, before the outcome is recorded (a crash before it repeats the rollback, which is idempotent)
  for (const d of touched) fsyncDir(d, ops);
  sweepTemps(root, intent, ops);
  sweepDirs(root, intent, ops);
  if (conflicts.length > 0) {
    quarantine({ opDir, ops }, intent, { reason: 'foreign_change', message: `${conflicts.map((c) => c.path).join(', ')} changed by someone else during recovery`, conflicts });
    return { operation_id: intent.operation_id, outcome: 'quarantined', conflicts };
  }
  finalize({ root, opDir, ops }, intent, { outcome: 'rolled_back', keepBackups: opts.keepBackups });
  return { operation_id: intent.operation_id, outcome: 'rolled_back' };
}

/** A rollback in progress: the operation's files, and the folders it changed (fsynced once each at the end). */
interface RollingBack {
  root: string;
  opDir: string;
  ops: FsOps;
  touched: Set<string>;
}

/** One location as recovery found it: the journal's entry, what is under its name, and its original. */
interface LocationSeen {
  l: Location;
  s: Seen;
  original: Original | null;
}

/**
 * Put one location back to its state before the operation. Returns false when the
 * location holds something that is neither ours nor the original: a conflict.
 */
function rollBackLocation(rb: RollingBack, at: LocationSeen): boolean {
  const { root, opDir, ops, touched } = rb;
  const { l, s, original } = at;
  const target = abs(root, l.disk);
  const settle = () => {
    touched.add(path.dirname(target));
    if (original?.where === 'aside') touched.add(path.dirname(original.abs));
  };
  if (l.old === null) {
    // created here (a create, or a move's destination): remove it if it is ours
    if (s === null) return true;
    const ours = s === l.new || (l.linkedFrom !== undefined && sameInode(abs(root, l.disk), abs(root, l.linkedFrom), ops));
    if (!ours) return false;
    checkParents(root, l.disk, ops);
    ops.unlink(target);
    settle();
    return true;
  }
  if (original?.where === 'aside') {
    // the original inode stands beside its name: that is what goes back
    if (original.sha256 === FOREIGN) return false;
    const edited = original.sha256 !== l.old;
    const putBack = () => {
      // once it is back, the name holds neither the old nor the new bytes: say so first
      if (edited) markReleased(opDir, l.disk, ops);
      return settleReleased(rb, at);
    };
    if (s === null || s === l.new || sameInode(target, original.abs, ops)) return putBack();
    if (s === l.old && !edited) {
      checkParents(root, l.aside ?? l.disk, ops);
      ops.unlink(original.abs); // the name already holds the old bytes; the aside is a second copy
      settle();
      return true;
    }
    // someone else's bytes under the name: a save made before our publish, or an edit
    // of what we published? From here it cannot be told: a person decides (quarantine;
    // nothing is removed). The apply that saw it happen marks the location released.
    return false;
  }
  if (s === l.old) return true;
  if (s !== l.new) return false;
  // our new state is there (new bytes, or absent for a delete or a move's source): restore the backup
  if (original === null || original.sha256 === FOREIGN) return false;
  // a backup that is not the old bytes is the original inode, written in place after our last check: put back as it is
  if (original.sha256 !== l.old) markReleased(opDir, l.disk, ops);
  checkParents(root, l.disk, ops);
  if (s === null) {
    ops.link(original.abs, target);
  } else {
    // replace: publish the original inode again through the journaled temp name, atomically
    if (l.temp === undefined) return false;
    const tmp = abs(root, l.temp);
    checkParents(root, l.temp, ops);
    ops.link(original.abs, tmp);
    checkParents(root, l.disk, ops);
    ops.rename(tmp, target);
  }
  settle();
  return true;
}

/**
 * A released location: someone else's file stands under the name, or the original
 * (possibly edited) is being put back. Finish the put-back if the original is still
 * aside; otherwise leave the name exactly as it is.
 */
function settleReleased({ root, ops, touched }: RollingBack, { l, s, original }: LocationSeen): boolean {
  if (original?.where !== 'aside' || l.aside === undefined) return true;
  const target = abs(root, l.disk);
  checkParents(root, l.disk, ops);
  checkParents(root, l.aside, ops);
  if (s !== null && sameInode(target, original.abs, ops)) {
    ops.unlink(original.abs); // already back (interrupted after its link)
  } else if (s === null) {
    ops.link(original.abs, target); // never clobbers: EEXIST → someone created it meanwhile → conflict
    ops.unlink(original.abs);
  } else if (s === l.new && s !== l.old) {
    ops.rename(original.abs, target); // over our own new bytes
  } else if (original.sha256 === l.old) {
    ops.unlink(original.abs); // someone's file under the name; the aside is only a copy of the old bytes (kept in the backup)
  } else {
    return false; // someone's file under the name *and* an edited original beside it: a person decides
  }
  touched.add(path.dirname(target));
  return true;
}

function sameInode(a: string, b: string, ops: FsOps): boolean {
  const sa = ops.lstat(a);
  const sb = ops.lstat(b);
  return Boolean(sa?.isFile() && sb?.isFile() && sa.ino === sb.ino && sa.dev === sb.dev);
}

function sweepTemps(root: string, intent: Intent, ops: FsOps): void {
  const dirs = new Set<string>();
  for (const l of locationsOf(intent)) {
    if (l.temp === undefined) continue;
    try {
      checkParents(root, l.temp, ops);
      const p = abs(root, l.temp);
      const st = ops.lstat(p);
      if (st && !st.isDirectory()) {
        ops.unlink(p);
        dirs.add(path.dirname(p));
      }
    } catch (e) {
      rethrowIfCrash(e);
      if (!isVaultgateError(e)) throw e;
    }
  }
  for (const d of dirs) fsyncDir(d, ops);
}

/** After a roll-forward: the originals moved aside hold the old bytes (checked), and the backups keep them. */
function sweepAsides(root: string, originals: Array<Original | null>, ops: FsOps): void {
  const dirs = new Set<string>();
  for (const o of originals) {
    if (o?.where !== 'aside') continue;
    checkParents(root, path.relative(root, o.abs).split(path.sep).join('/'), ops);
    ops.unlink(o.abs);
    dirs.add(path.dirname(o.abs));
  }
  for (const d of dirs) fsyncDir(d, ops);
}

/** Remove the folders this operation created, deepest first, if they are still ours and empty. */
function sweepDirs(root: string, intent: Intent, ops: FsOps): void {
  for (const d of [...intent.created_dirs].reverse()) {
    try {
      checkParents(root, d, ops);
      const p = abs(root, d);
      const st = ops.lstat(p);
      if (!st?.isDirectory() || st.isSymbolicLink()) continue;
      ops.rmdir(p);
      fsyncDir(path.dirname(p), ops);
    } catch (e) {
      rethrowIfCrash(e);
      const code = (e as NodeJS.ErrnoException).code;
      if (!isVaultgateError(e) && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
    }
  }
}

export function quarantine(
  { opDir, ops }: { opDir: string; ops: FsOps },
  intent: Intent,
  { reason, message, conflicts }: Pick<Quarantine, 'reason' | 'message' | 'conflicts'>,
): Quarantine {
  const q: Quarantine = {
    schema: 'vaultgate.quarantine.v1',
    operation_id: intent.operation_id,
    reason,
    message,
    conflicts,
    blocked_paths: intent.changed_paths,
    at: new Date().toISOString(),
  };
  writeDurable(opDir, 'quarantine.json', JSON.stringify(q), ops);
  return q;
}

export function readQuarantine(opDir: string, ops: FsOps): Quarantine | null {
  const q = readJsonFile<Quarantine>(path.join(opDir, 'quarantine.json'), ops);
  return q?.schema === 'vaultgate.quarantine.v1' && Array.isArray(q.blocked_paths) && Array.isArray(q.conflicts) ? q : null;
}

/** Paths blocked by unresolved operations: filesystem-folded path → operation id. */
export type Blocked = Map<string, { operation_id: string; path: string }>;

export interface RecoverAllResult {
  recovered: RecoverOutcome[];
  blocked: Blocked;
}

/** The intent of a folder, or null when it has none or it cannot be read (corrupt). */
function tryIntent(dir: string, ops: FsOps): Intent | null {
  try {
    return readIntent(dir, ops);
  } catch (e) {
    rethrowIfCrash(e);
    return null;
  }
}

/**
 * Recover every pending operation (caller holds the lock). Quarantined ones are
 * re-examined only when asked (`tx recover`); an operation whose recovery fails is
 * quarantined too, so it blocks its own paths and nothing else.
 */
export function recoverAll(root: string, ops: FsOps, opts: { keepBackups: number; retryQuarantined?: boolean }): RecoverAllResult {
  const { pending } = txnLayout(root);
  const recovered: RecoverOutcome[] = [];
  const blocked: Blocked = new Map();
  const block = (op: string, paths: string[]) => {
    for (const p of paths) blocked.set(filesystemFoldKey(p), { operation_id: op, path: p });
  };
  let names: string[];
  try {
    names = ops.readdir(pending).sort();
  } catch (e) {
    rethrowIfCrash(e);
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { recovered, blocked };
    throw e;
  }
  for (const name of names) {
    const dir = path.join(pending, name);
    if (name.startsWith('.gone-')) {
      try {
        removeTree(dir, ops);
      } catch (e) {
        rethrowIfCrash(e);
      }
      continue;
    }
    if (!isOperationDirName(name)) continue; // .DS_Store, editor droppings: not ours
    checkPendingEntry(root, dir, ops); // a link named like an operation: planted, stop
    const st = ops.lstat(dir);
    if (!st?.isDirectory()) continue;
    const q = readQuarantine(dir, ops);
    if (q && !opts.retryQuarantined) {
      block(q.operation_id, q.blocked_paths);
      recovered.push({ operation_id: q.operation_id, outcome: 'quarantined', conflicts: q.conflicts });
      continue;
    }
    try {
      const r = recoverOperation({ root, opDir: dir, ops }, opts);
      recovered.push(r);
      if (r.outcome === 'quarantined') block(r.operation_id, tryIntent(dir, ops)?.changed_paths ?? []);
    } catch (e) {
      rethrowIfCrash(e);
      const intent = tryIntent(dir, ops);
      const message = `recovery failed: ${(e as Error).message}`;
      if (intent) {
        try {
          quarantine({ opDir: dir, ops }, intent, { reason: 'recovery_failed', message, conflicts: [] });
        } catch (e2) {
          rethrowIfCrash(e2);
        }
        block(intent.operation_id, intent.changed_paths);
      }
      recovered.push({ operation_id: intent?.operation_id ?? name, outcome: 'quarantined', conflicts: [] });
    }
  }
  return { recovered, blocked };
}
