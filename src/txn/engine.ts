import { isVaultgateError, VaultgateError } from '../errors.js';
import { readVaultConfig } from '../vault/index.js';
import { foldKey } from './bundle-schema.js';
import { realFsOps, rethrowIfCrash, type FsOps } from './fs-ops.js';
import { initVault } from './init.js';
import { acquireLock, type LockHandle } from './lock.js';
import { recoverAll, type Blocked, type RecoverOutcome } from './recover.js';
import type { ScopeTable } from './scopes.js';

/**
 * The frame every writing command runs in: implicit init, the vault lock,
 * recovery of pending operations, then the command's body, then unlock.
 */
export interface EngineOptions {
  /** The fs layer (fault-injection tests pass a faulty one). */
  ops?: FsOps;
  lockTimeoutMs?: number;
  scopes?: ScopeTable;
}

export type EngineBody<T> = (ops: FsOps, lock: LockHandle, keepBackups: number, recovered: RecoverOutcome[], blocked: Blocked) => Promise<T>;

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

