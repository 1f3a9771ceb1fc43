import path from 'node:path';
import { isVaultgateError } from '../errors.js';
import { readVaultId } from '../vault/index.js';
import { realFsOps, type FsOps } from './fs-ops.js';
import { readIntent, type Intent } from './journal.js';
import { isOperationDirName, txnLayout } from './layout.js';
import { isHeld, readLockOwner, type LockState } from './lock.js';
import { readQuarantine } from './recover.js';
import { checkPendingEntry, checkStateLayout } from './state-guard.js';

/** `tx status`: what is pending or quarantined, and who holds the lock (and why it counts as held or stale). Read-only. */
export interface PendingInfo {
  operation_id: string;
  /**
   * in_progress: the lock is held; needs_recovery: its owner died; quarantined: waits
   * for `tx resolve`; corrupt: its intent record is unreadable (see `problem`).
   */
  state: 'in_progress' | 'needs_recovery' | 'quarantined' | 'corrupt';
  operation_type: string | null;
  created_at: string | null;
  changed_paths: string[];
  quarantine?: { reason: string; message: string; conflicts: unknown[]; resolve: string[] };
  problem?: string;
}

export interface StatusResult {
  initialised: boolean;
  vault_id: string | null;
  lock: LockState | null;
  pending: PendingInfo[];
  /** Applied operations on record (each has txn/done/<op>.json). */
  applied_operations: number;
}

export function txStatus(root: string, ops: FsOps = realFsOps): StatusResult {
  checkStateLayout(root, ops);
  const l = txnLayout(root);
  const lock = readLockOwner(root, ops);
  const pending: PendingInfo[] = [];
  let names: string[] = [];
  try {
    names = ops.readdir(l.pending).sort();
  } catch {
    /* not initialised */
  }
  for (const name of names) {
    if (!isOperationDirName(name)) continue;
    const dir = path.join(l.pending, name);
    checkPendingEntry(root, dir, ops);
    if (!ops.lstat(dir)?.isDirectory()) continue;
    let intent: Intent | null = null;
    let problem: string | null = null;
    try {
      intent = readIntent(dir, ops);
    } catch (e) {
      if (!isVaultgateError(e)) throw e;
      problem = e.message;
    }
    const q = readQuarantine(dir, ops);
    const info: PendingInfo = {
      operation_id: intent?.operation_id ?? name,
      state: q ? 'quarantined' : problem ? 'corrupt' : lock && isHeld(lock.liveness) ? 'in_progress' : 'needs_recovery',
      operation_type: intent?.operation_type ?? null,
      created_at: intent?.created_at ?? null,
      changed_paths: intent?.changed_paths ?? [],
      ...(problem ? { problem } : {}),
    };
    if (q) {
      info.quarantine = {
        reason: q.reason,
        message: q.message,
        conflicts: q.conflicts,
        resolve: [`vaultgate tx resolve ${name} --keep-current`, `vaultgate tx resolve ${name} --restore-original`],
      };
    }
    pending.push(info);
  }
  let applied = 0;
  try {
    applied = ops.readdir(l.done).filter((n) => n.endsWith('.json') && !n.startsWith('.')).length;
  } catch {
    /* none */
  }
  const vaultId = readVaultId(root);
  return { initialised: vaultId !== null, vault_id: vaultId, lock, pending, applied_operations: applied };
}
