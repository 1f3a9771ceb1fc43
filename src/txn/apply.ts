import path from 'node:path';
import { isResourceLimit, isVaultgateError, resourceLimitError, VaultgateError } from '../errors.js';
import { readVaultConfig } from '../vault/index.js';
import { bundleSha256 } from './approval.js';
import { pathsOf, type Bundle } from './bundle-schema.js';
import { fsyncDir } from './durable.js';
import { assertNotBlocked, assertVaultRoot, withEngine, type EngineOptions } from './engine.js';
import { rethrowIfCrash, type FsOps, type OperationSite } from './fs-ops.js';
import { currentUndo, finalize, readDone, type DoneRecord } from './history.js';
import { intentFromPlan, markReleased, writeIntent, type Intent } from './journal.js';
import { abs, txnLayout } from './layout.js';
import type { LockHandle } from './lock.js';
import { backupOriginal, performWrite, verifyOriginals } from './perform.js';
import { buildPlan, hasOriginal, type Plan, type PlannedWithOriginal } from './plan.js';
import { recoverOperation, type RecoverOutcome } from './recover.js';
import { checkScope } from './scopes.js';
import { checkParents } from './vault-state.js';

/**
 * `tx apply`: lock, recover, re-plan, compare the approval, journal, back up, then
 * per file: temp + fsync, move the original aside and check it, publish without
 * clobbering, folder fsync, verify; check every original once more; commit.
 */
export interface ApplyResult {
  operation_id: string;
  changed_paths: string[];
  /** True when this operation id had already been applied with the same bundle (and the same approval). */
  replayed: boolean;
  /** Pending operations recovered before this one. */
  recovered: RecoverOutcome[];
}

export interface ApplyOptions extends EngineOptions {
  /**
   * The caller's last checks, run under the vault lock after recovery and the
   * replay lookup, right before the engine plans and compares the approval.
   * Throwing stops the apply with nothing written. Proposals re-run their
   * review here, so a review and the write it approves see the same vault.
   * A string returned is the approval the plan must match instead of the one
   * given (a proposal's review hash is not the engine's approval: it wraps it).
   */
  beforePlan?: () => void | string | Promise<void | string>;
  /**
   * Run under the vault lock right after this call's own transaction committed
   * (not on a replay). Proposals record "applied" here: once the lock is free,
   * another process that finds the proposal still marked as applying would
   * take it for a crash and settle it as one.
   */
  afterCommit?: (result: { operation_id: string; changed_paths: string[] }) => void | Promise<void>;
}

export async function applyBundle(root: string, bundle: Bundle, approval: string, opts: ApplyOptions = {}): Promise<ApplyResult> {
  // out-of-scope bundles are refused before anything is written, even the implicit init
  checkScope(bundle.operation_type, bundle.writes, readVaultConfig(root), opts.scopes);
  return withEngine(root, opts, async ({ ops, lock, keepBackups, recovered, blocked }) => {
    const config = readVaultConfig(root);
    const done = readDone(root, bundle.operation_id, ops);
    if (done) return { ...replay({ root, ops }, bundle, { approval, done }), recovered };
    const pendingDir = path.join(txnLayout(root).pending, bundle.operation_id);
    const pendingSt = ops.lstat(pendingDir);
    if (pendingSt && (pendingSt.isSymbolicLink() || !pendingSt.isDirectory())) {
      throw new VaultgateError('STATE_CORRUPT', `.vaultgate/txn/pending/${bundle.operation_id} is not a plain folder${pendingSt.isSymbolicLink() ? ' (a symbolic link)' : ''}`, {
        path: `.vaultgate/txn/pending/${bundle.operation_id}`,
        hint: 'vaultgate never follows links in its own state. Move that entry away, then apply again.',
      });
    }
    if (pendingSt) {
      throw new VaultgateError('QUARANTINED', `operation ${bundle.operation_id} is still pending from an earlier attempt`, {
        details: { operation_id: bundle.operation_id },
        hint: `See \`vaultgate tx status\`; decide it with \`vaultgate tx resolve ${bundle.operation_id} --keep-current\` or \`--restore-original\`.`,
      });
    }
    assertNotBlocked(bundle.operation_id, bundle.writes.flatMap(pathsOf), blocked);
    // a proposal's review hash wraps the engine's approval (with the link changes it reviewed):
    // its hook checks that under this lock, then names the approval the plan must match
    const expected = (await opts.beforePlan?.()) ?? approval;
    const plan = buildPlan(root, bundle, { ops, scopeContext: config, ...(opts.scopes ? { scopes: opts.scopes } : {}) });
    if (plan.approval_sha256 !== expected) {
      throw new VaultgateError('APPROVAL_MISMATCH', `the approval does not match bundle ${bundle.operation_id} against the vault as it is now`, {
        details: { expected: plan.approval_sha256, actual: expected },
        hint: 'Something changed since inspect (a file, a mode, the vault). Run `vaultgate tx inspect BUNDLE` again and approve the new hash.',
      });
    }
    const result = executePlan({ root, ops, lock }, plan, { keepBackups });
    await opts.afterCommit?.(result);
    return { ...result, recovered };
  });
}

/**
 * The same operation id again. Only the same bundle *with the approval it was applied
 * with* gets the stored result; and if the operation has since been undone, the vault
 * no longer holds its change, so that is said (OPERATION_UNDONE), never "ok".
 */
function replay({ root, ops }: { root: string; ops: FsOps }, bundle: Bundle, { approval, done }: { approval: string; done: DoneRecord }): Omit<ApplyResult, 'recovered'> {
  const op = bundle.operation_id;
  if (done.outcome !== 'applied' || done.bundle_sha256 !== bundleSha256(bundle)) {
    const what = done.outcome === 'applied' ? 'applied with a different bundle' : done.outcome.replace(/_/g, ' ');
    throw new VaultgateError('OPERATION_ID_REUSED', `operation ${op} was already ${what}`, {
      details: { operation_id: op, outcome: done.outcome, completed_at: done.completed_at },
      hint: 'Give the new change its own operation_id.',
    });
  }
  if (approval !== done.approval_sha256) {
    throw new VaultgateError('APPROVAL_MISMATCH', `the approval is not the one operation ${op} was applied with`, {
      details: { operation_id: op },
      hint: 'A replay answers only to the approval the operation was applied with (see `tx apply`’s first answer).',
    });
  }
  const undo = currentUndo(root, op, ops);
  if (undo) {
    throw new VaultgateError('OPERATION_UNDONE', `operation ${op} was applied at ${done.completed_at} and undone by ${undo.operation_id} at ${undo.completed_at}: the vault no longer holds its change`, {
      details: { operation_id: op, replayed: true, undone: true, undone_by: undo.operation_id, applied_at: done.completed_at, undone_at: undo.completed_at },
      hint: 'To make the same change again, give the bundle a new operation_id, inspect it and approve the new hash.',
    });
  }
  return { operation_id: done.operation_id, changed_paths: done.changed_paths, replayed: true };
}

/** Journal and perform a plan (caller holds the lock and has recovered). */
export function executePlan(
  { root, ops, lock }: { root: string; ops: FsOps; lock: LockHandle },
  plan: Plan,
  opts: { keepBackups: number; undo_of?: string },
): { operation_id: string; changed_paths: string[]; replayed: false } {
  const l = txnLayout(root);
  const op = plan.bundle.operation_id;
  const opDir = path.join(l.pending, op);
  const intent = intentFromPlan(plan, opts.undo_of === undefined ? {} : { undo_of: opts.undo_of });
  const result = { operation_id: op, changed_paths: plan.changed_paths, replayed: false as const };
  openJournal({ root, opDir, ops }, intent, opts);
  const inodes = new Map<number, bigint>();
  const originalIno = (w: PlannedWithOriginal): bigint => {
    const ino = inodes.get(w.index);
    if (ino === undefined) throw new Error(`bug: no backup of write ${w.index}`);
    return ino;
  };
  try {
    for (const w of plan.writes) {
      if (hasOriginal(w)) inodes.set(w.index, backupOriginal({ root, opDir, ops }, w));
    }
    // One durable point before the first change to the vault: the intent's and the
    // backups' names in the operation folder, then the folder's name in pending/.
    fsyncDir(opDir, ops);
    fsyncDir(l.pending, ops);
    for (const d of plan.created_dirs) {
      checkParents(root, d, ops);
      ops.mkdir(abs(root, d));
      fsyncDir(path.dirname(abs(root, d)), ops);
    }
    const release = (disk: string) => markReleased(opDir, disk, ops);
    for (const w of plan.writes) {
      performWrite({ root, ops, release, originalIno }, w);
      lock.beat();
    }
    verifyOriginals({ root, opDir, ops }, plan.writes);
    finalize({ root, opDir, ops }, intent, { outcome: 'applied', keepBackups: opts.keepBackups });
    return result;
  } catch (e) {
    rethrowIfCrash(e);
    // the vault folder itself was moved or replaced: this path is no longer our vault,
    // so nothing more is done through it; the journal moved with the old folder
    assertVaultRoot(root, plan.vault_root, op);
    // the folder already moved to backups/: the commit happened, only a later fsync failed
    if (!ops.lstat(opDir) && readDone(root, op, ops)?.bundle_sha256 === plan.bundle_sha256) return result;
    let outcome: RecoverOutcome;
    try {
      outcome = recoverOperation({ root, opDir, ops }, opts);
    } catch (e2) {
      rethrowIfCrash(e2);
      throw new VaultgateError('RECOVERY_NEEDED', `operation ${op} failed (${(e as Error).message}) and could not be rolled back yet (${(e2 as Error).message})`, {
        details: { operation_id: op },
        hint: 'Fix the disk problem, then run `vaultgate tx recover`. See docs/guarantees.md.',
        cause: e,
      });
    }
    if (outcome.outcome === 'applied') return result; // every write had landed (and every original was intact): only bookkeeping failed once
    if (outcome.outcome === 'quarantined') {
      throw new VaultgateError('QUARANTINED', `operation ${op} failed (${(e as Error).message}) and its rollback met changes it did not make`, {
        details: { operation_id: op, conflicts: outcome.conflicts },
        hint: `Nothing was overwritten. Run \`vaultgate tx status\`, then \`vaultgate tx resolve ${op} --keep-current\` or \`--restore-original\`.`,
      });
    }
    if (isVaultgateError(e)) throw e;
    throw writeFailed(e, op);
  }
}

/**
 * The operation's folder in pending/, with its intent written. When that fails
 * nothing in the vault has changed yet: a folder made without an intent is
 * discarded (as recovery would discard it) and the failure thrown.
 */
function openJournal(at: OperationSite, intent: Intent, opts: { keepBackups: number }): void {
  let made = false;
  try {
    at.ops.mkdir(at.opDir);
    made = true;
    writeIntent(at.opDir, intent, at.ops);
  } catch (e) {
    rethrowIfCrash(e);
    try {
      if (made) recoverOperation(at, opts);
    } catch (e2) {
      rethrowIfCrash(e2);
    }
    throw writeFailed(e, intent.operation_id);
  }
}

function writeFailed(e: unknown, op: string): VaultgateError {
  if (isResourceLimit(e)) return resourceLimitError(e, `operation ${op} failed and was rolled back`);
  const errno = (e as NodeJS.ErrnoException).code ?? null;
  const hint =
    errno === 'EACCES' || errno === 'EPERM' || errno === 'EROFS'
      ? 'Nothing was changed. A folder or file is not writable (check its permissions, or whether the disk is read-only), then apply the same bundle again.'
      : 'Nothing was changed. Fix the cause (disk space, permissions), then apply the same bundle again.';
  return new VaultgateError('WRITE_FAILED', `operation ${op} failed and was rolled back: ${(e as Error).message}`, {
    details: { operation_id: op, errno },
    hint,
    cause: e,
  });
}
