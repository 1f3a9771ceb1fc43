import path from 'node:path';
import { readVaultId } from '../vault/index.js';
import { realFsOps, type FsOps } from './fs-ops.js';
import { readIntent } from './journal.js';
import { isOperationDirName, txnLayout } from './layout.js';
import { readLockOwner, type Liveness, type LockOwner } from './lock.js';
import { readQuarantine } from './recover.js';

/** `tx status`: what is pending or quarantined, and who holds the lock. Read-only. */
export interface PendingInfo {
  operation_id: string;
  /** in_progress: the lock owner is alive; needs_recovery: it died; quarantined: waits for `tx resolve`. */
  state: 'in_progress' | 'needs_recovery' | 'quarantined';
  operation_type: string | null;
  created_at: string | null;
  changed_paths: string[];
  quarantine?: { reason: string; message: string; conflicts: unknown[]; resolve: string[] };
}

export interface StatusResult {
  initialised: boolean;
  vault_id: string | null;
  lock: { owner: LockOwner | null; liveness: Liveness } | null;
  pending: PendingInfo[];
  /** Applied operations on record (each has txn/done/<op>.json). */
  applied_operations: number;
}

export function txStatus(root: string, ops: FsOps = realFsOps): StatusResult {
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
    if (!ops.lstat(dir)?.isDirectory()) continue;
    const intent = readIntent(dir, ops);
    const q = readQuarantine(dir, ops);
    const info: PendingInfo = {
      operation_id: intent?.operation_id ?? name,
      state: q ? 'quarantined' : lock?.liveness === 'live' ? 'in_progress' : 'needs_recovery',
      operation_type: intent?.operation_type ?? null,
      created_at: intent?.created_at ?? null,
      changed_paths: intent?.changed_paths ?? [],
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
  return { initialised: readVaultId(root) !== null, vault_id: readVaultId(root), lock, pending, applied_operations: applied };
}
