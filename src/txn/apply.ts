import path from 'node:path';
import { isVaultgateError, VaultgateError } from '../errors.js';
import { readVaultConfig, sha256Hex } from '../vault/index.js';
import { bundleSha256 } from './approval.js';
import { foldKey, type Bundle } from './bundle-schema.js';
import { fsyncDir } from './durable.js';
import { realFsOps, rethrowIfCrash, type FsOps } from './fs-ops.js';
import { finalize, readDone } from './history.js';
import { initVault } from './init.js';
import { intentFromPlan, writeIntent } from './journal.js';
import { abs, txnLayout } from './layout.js';
import { acquireLock, type LockHandle } from './lock.js';
import { buildPlan, type Plan, type PlannedWrite } from './plan.js';
import { recoverAll, recoverOperation, type Blocked, type RecoverOutcome } from './recover.js';
import { checkScope, type ScopeTable } from './scopes.js';
import { checkParents } from './vault-state.js';

/**
 * `tx apply`: lock, recover, re-plan, compare the approval, journal, back up,
 * write each file by temp + fsync + rename (+ folder fsync), verify, commit.
 */
export interface EngineOptions {
  /** The fs layer (fault-injection tests pass a faulty one). */
  ops?: FsOps;
  lockTimeoutMs?: number;
  scopes?: ScopeTable;
}

export interface ApplyResult {
  operation_id: string;
  changed_paths: string[];
  /** True when this operation id had already been applied with the same bundle. */
  replayed: boolean;
  /** Pending operations recovered before this one. */
  recovered: RecoverOutcome[];
}

export async function applyBundle(root: string, bundle: Bundle, approval: string, opts: EngineOptions = {}): Promise<ApplyResult> {
  // out-of-scope bundles are refused before anything is written, even the implicit init
  checkScope(bundle.operation_type, bundle.writes, readVaultConfig(root), opts.scopes);
  return withEngine(root, opts, async (ops, lock, keepBackups, recovered, blocked) => {
    const config = readVaultConfig(root);
    const done = readDone(root, bundle.operation_id, ops);
    if (done) {
      if (done.outcome === 'applied' && done.bundle_sha256 === bundleSha256(bundle)) {
        return { operation_id: done.operation_id, changed_paths: done.changed_paths, replayed: true, recovered };
      }
      throw new VaultgateError('OPERATION_ID_REUSED', `operation ${bundle.operation_id} was already ${done.outcome.replace(/_/g, ' ')} with a different bundle`, {
        details: { operation_id: bundle.operation_id, completed_at: done.completed_at },
        hint: 'Give the new change its own operation_id.',
      });
    }
    if (ops.lstat(path.join(txnLayout(root).pending, bundle.operation_id))) {
      throw new VaultgateError('QUARANTINED', `operation ${bundle.operation_id} is still pending from an earlier attempt`, {
        details: { operation_id: bundle.operation_id },
        hint: `See \`vaultgate tx status\`; decide it with \`vaultgate tx resolve ${bundle.operation_id} --keep-current\` or \`--restore-original\`.`,
      });
    }
    assertNotBlocked(bundle.operation_id, bundle.writes.flatMap((w) => (w.to ? [w.path, w.to] : [w.path])), blocked);
    const plan = buildPlan(root, bundle, { ops, scopeContext: config, ...(opts.scopes ? { scopes: opts.scopes } : {}) });
    if (plan.approval_sha256 !== approval) {
      throw new VaultgateError('APPROVAL_MISMATCH', `the approval does not match bundle ${bundle.operation_id} against the vault as it is now`, {
        details: { expected: plan.approval_sha256, actual: approval },
        hint: 'Something changed since inspect (a file, a mode, the vault). Run `vaultgate tx inspect BUNDLE` again and approve the new hash.',
      });
    }
    return { ...executePlan(root, plan, ops, lock, { keepBackups }), recovered };
  });
}

type EngineBody<T> = (ops: FsOps, lock: LockHandle, keepBackups: number, recovered: RecoverOutcome[], blocked: Blocked) => Promise<T>;

/** Init (implicitly), lock, recover pending operations, run `body`, unlock. */
export async function withEngine<T>(root: string, opts: EngineOptions, body: EngineBody<T>): Promise<T> {
  const ops = opts.ops ?? realFsOps;
  const keepBackups = readVaultConfig(root).txn.keep_backups;
  let lock: LockHandle;
  try {
    initVault(root, ops);
    lock = await acquireLock(root, { ops, ...(opts.lockTimeoutMs === undefined ? {} : { timeoutMs: opts.lockTimeoutMs }) });
  } catch (e) {
    rethrowIfCrash(e);
    if (isVaultgateError(e)) throw e;
    throw new VaultgateError('WRITE_FAILED', `could not prepare .vaultgate/ or take the lock: ${(e as Error).message}`, {
      details: { errno: (e as NodeJS.ErrnoException).code ?? null },
      hint: 'Nothing was changed. Check disk space and permissions of the vault folder, then retry.',
      cause: e,
    });
  }
  try {
    const { recovered, blocked } = recoverAll(root, ops, { keepBackups });
    return await body(ops, lock, keepBackups, recovered, blocked);
  } finally {
    try {
      lock.release();
    } catch (e) {
      rethrowIfCrash(e);
      // The work is done (or already reported); a lock folder we could not remove
      // is stale from now on: its token is no longer held, and our pid dies soon.
    }
  }
}

export function assertNotBlocked(op: string, paths: string[], blocked: Blocked): void {
  for (const p of paths) {
    const b = blocked.get(foldKey(p));
    if (b) {
      throw new VaultgateError('QUARANTINED', `${p} is held by unresolved operation ${b.operation_id}`, {
        path: p,
        details: { operation_id: b.operation_id, requested_by: op },
        hint: `Decide what to keep: \`vaultgate tx resolve ${b.operation_id} --keep-current\` or \`vaultgate tx resolve ${b.operation_id} --restore-original\` (see \`vaultgate tx status\`).`,
      });
    }
  }
}

/** Journal and perform a plan (caller holds the lock and has recovered). */
export function executePlan(
  root: string,
  plan: Plan,
  ops: FsOps,
  lock: LockHandle,
  opts: { keepBackups: number; undo_of?: string },
): { operation_id: string; changed_paths: string[]; replayed: false } {
  const l = txnLayout(root);
  const op = plan.bundle.operation_id;
  const opDir = path.join(l.pending, op);
  const intent = intentFromPlan(plan, opts.undo_of === undefined ? {} : { undo_of: opts.undo_of });
  const result = { operation_id: op, changed_paths: plan.changed_paths, replayed: false as const };
  let made = false;
  try {
    ops.mkdir(opDir);
    made = true;
    fsyncDir(l.pending, ops);
    writeIntent(opDir, intent, ops);
  } catch (e) {
    rethrowIfCrash(e);
    // nothing in the vault changed yet; the folder without an intent is discarded by recovery
    try {
      if (made) recoverOperation(root, opDir, ops, opts);
    } catch (e2) {
      rethrowIfCrash(e2);
    }
    throw writeFailed(e, op);
  }
  try {
    let backedUp = false;
    for (const w of plan.writes) {
      if (w.old_sha256 === null) continue;
      backupOriginal(root, opDir, w, ops);
      backedUp = true;
    }
    if (backedUp) fsyncDir(opDir, ops);
    for (const d of plan.created_dirs) {
      checkParents(root, d, ops);
      ops.mkdir(abs(root, d));
      fsyncDir(path.dirname(abs(root, d)), ops);
    }
    for (const w of plan.writes) {
      performWrite(root, w, ops);
      lock.beat();
    }
    finalize(root, opDir, intent, 'applied', ops, opts);
    return result;
  } catch (e) {
    rethrowIfCrash(e);
    // the folder already moved to backups/: the commit happened, only a later fsync failed
    if (!ops.lstat(opDir) && readDone(root, op, ops)?.bundle_sha256 === plan.bundle_sha256) return result;
    let outcome: RecoverOutcome;
    try {
      outcome = recoverOperation(root, opDir, ops, opts);
    } catch (e2) {
      rethrowIfCrash(e2);
      throw new VaultgateError('RECOVERY_NEEDED', `operation ${op} failed (${(e as Error).message}) and could not be rolled back yet (${(e2 as Error).message})`, {
        details: { operation_id: op },
        hint: 'Fix the disk problem, then run `vaultgate tx recover`. See docs/guarantees.md.',
        cause: e,
      });
    }
    if (outcome.outcome === 'applied') return result; // every write had landed; only bookkeeping failed once
    if (outcome.outcome === 'quarantined') {
      throw new VaultgateError('QUARANTINED', `operation ${op} failed and its rollback met changes it did not make`, {
        details: { operation_id: op, conflicts: outcome.conflicts },
        hint: `Run \`vaultgate tx status\`, then \`vaultgate tx resolve ${op} --keep-current\` or \`--restore-original\`.`,
      });
    }
    if (isVaultgateError(e)) throw e;
    throw writeFailed(e, op);
  }
}

function writeFailed(e: unknown, op: string): VaultgateError {
  return new VaultgateError('WRITE_FAILED', `operation ${op} failed and was rolled back: ${(e as Error).message}`, {
    details: { operation_id: op, errno: (e as NodeJS.ErrnoException).code ?? null },
    hint: 'Nothing was changed. Fix the cause (disk space, permissions), then apply the same bundle again.',
    cause: e,
  });
}

/**
 * Keep the original for rollback and undo: a hard link (instant, same inode), or a
 * copy where links are not possible. Its bytes are checked against the planned old
 * hash, so an edit that slipped in after planning stops the operation here.
 */
function backupOriginal(root: string, opDir: string, w: PlannedWrite, ops: FsOps): void {
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

function performWrite(root: string, w: PlannedWrite, ops: FsOps): void {
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
