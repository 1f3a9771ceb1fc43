import { isResourceLimit, isVaultgateError, resourceLimitError, VaultgateError } from '../errors.js';
import { filesystemFoldKey, readVaultConfig } from '../vault/index.js';
import { realFsOps, rethrowIfCrash, type FsOps } from './fs-ops.js';
import { initVault } from './init.js';
import { acquireLock, type LockHandle } from './lock.js';
import { recoverAll, type Blocked, type RecoverOutcome } from './recover.js';
import type { ScopeTable } from './scopes.js';
import { checkStateLayout, guardOps, rootIdentity } from './state-guard.js';

/**
 * The frame every writing command runs in: the layout check, implicit init, the
 * vault lock, recovery of pending operations, then the command's body, then unlock.
 * The body gets the fs layer wrapped by {@link guardOps}: no state path through a
 * link, no write into a vault folder that was replaced meanwhile.
 */
export interface EngineOptions {
  /** The fs layer (fault-injection tests pass a faulty one). */
  ops?: FsOps;
  lockTimeoutMs?: number;
  scopes?: ScopeTable;
}

export interface EngineContext {
  ops: FsOps;
  lock: LockHandle;
  /** `txn.keep_backups` of the vault config. */
  keepBackups: number;
  /** What recovery did before the body ran. */
  recovered: RecoverOutcome[];
  /** Paths held by quarantined operations. */
  blocked: Blocked;
}

export async function withEngine<T>(root: string, opts: EngineOptions, body: (ctx: EngineContext) => Promise<T>): Promise<T> {
  const ops = guardOps(root, opts.ops ?? realFsOps);
  let keepBackups: number;
  let lock: LockHandle;
  try {
    checkStateLayout(root, ops);
    keepBackups = readVaultConfig(root).txn.keep_backups;
    initVault(root, ops);
    lock = await acquireLock(root, { ops, ...(opts.lockTimeoutMs === undefined ? {} : { timeoutMs: opts.lockTimeoutMs }) });
  } catch (e) {
    rethrowIfCrash(e);
    if (isVaultgateError(e)) throw e;
    if (isResourceLimit(e)) throw resourceLimitError(e, 'could not prepare .vaultgate/ or take the lock');
    const errno = (e as NodeJS.ErrnoException).code ?? null;
    throw new VaultgateError('WRITE_FAILED', `could not prepare .vaultgate/ or take the lock: ${(e as Error).message}`, {
      details: { errno },
      hint:
        errno === 'EACCES' || errno === 'EPERM' || errno === 'EROFS'
          ? 'Nothing was changed. The vault folder is not writable for this user (check its permissions, or whether the disk is read-only).'
          : 'Nothing was changed. Check disk space and permissions of the vault folder, then retry.',
      cause: e,
    });
  }
  try {
    const { recovered, blocked } = recoverAll(root, ops, { keepBackups });
    return await body({ ops, lock, keepBackups, recovered, blocked });
  } catch (e) {
    rethrowIfCrash(e);
    if (!isVaultgateError(e) && isResourceLimit(e)) throw resourceLimitError(e, 'the command ran out of file descriptors', false);
    throw e;
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
    const b = blocked.get(filesystemFoldKey(p));
    if (b) {
      throw new VaultgateError('QUARANTINED', `${p} is held by unresolved operation ${b.operation_id}`, {
        path: p,
        details: { operation_id: b.operation_id, requested_by: op },
        hint: `Decide what to keep: \`vaultgate tx resolve ${b.operation_id} --keep-current\` or \`vaultgate tx resolve ${b.operation_id} --restore-original\` (see \`vaultgate tx status\`).`,
      });
    }
  }
}

/**
 * After a failure: if the vault folder itself is not the one the plan was made in
 * (renamed, replaced by a copy), nothing more may happen through its path; the
 * interrupted operation's journal is in the folder that moved.
 */
export function assertVaultRoot(root: string, expected: { dev: string; ino: string }, op: string): void {
  const now = rootIdentity(root);
  if (now && now.dev === expected.dev && now.ino === expected.ino) return;
  throw new VaultgateError('RECOVERY_NEEDED', `the vault folder ${root} was moved or replaced while operation ${op} ran; nothing more was written through that path`, {
    details: { operation_id: op, vault_moved: true },
    hint: `Find the folder that was at ${root} when ${op} started (it holds .vaultgate/txn/pending/${op}) and run \`vaultgate --vault <that folder> tx recover\`.`,
  });
}
