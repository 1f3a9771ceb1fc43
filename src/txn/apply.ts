import path from 'node:path';
import { isVaultgateError, VaultgateError } from '../errors.js';
import { readVaultConfig } from '../vault/index.js';
import { bundleSha256 } from './approval.js';
import type { Bundle } from './bundle-schema.js';
import { fsyncDir } from './durable.js';
import { assertNotBlocked, withEngine, type EngineOptions } from './engine.js';
import { rethrowIfCrash, type FsOps } from './fs-ops.js';
import { finalize, readDone } from './history.js';
import { intentFromPlan, writeIntent } from './journal.js';
import { abs, txnLayout } from './layout.js';
import type { LockHandle } from './lock.js';
import { backupOriginal, performWrite } from './perform.js';
import { buildPlan, type Plan } from './plan.js';
import { recoverOperation, type RecoverOutcome } from './recover.js';
import { checkScope } from './scopes.js';
import { checkParents } from './vault-state.js';


/**
 * `tx apply`: lock, recover, re-plan, compare the approval, journal, back up,
 * write each file by temp + fsync + rename (+ folder fsync), verify, commit.
 */
export interface ApplyResult {
  operation_id: string;
  changed_paths: string[];
  /** True when this operation id had already been applied with the same bundle. */
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
   */
  beforePlan?: () => void | Promise<void>;
}

export async function applyBundle(root: string, bundle: Bundle, approval: string, opts: ApplyOptions = {}): Promise<ApplyResult> {
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
    await opts.beforePlan?.();
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
    for (const w of plan.writes) {
      if (w.old_sha256 !== null) backupOriginal(root, opDir, w, ops);
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
