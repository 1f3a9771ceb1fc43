import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { filesystemFoldKey, readVaultConfig } from '../vault/index.js';
import { pathsOf, type Bundle, type PathMap, type WriteMode } from './bundle-schema.js';
import { assertNotBlocked } from './engine.js';
import { realFsOps, type FsOps } from './fs-ops.js';
import { locationsOf, readIntent } from './journal.js';
import { isOperationDirName, txnLayout } from './layout.js';
import { isHeld, readLockOwner } from './lock.js';
import { buildPlan, hashesOf } from './plan.js';
import { readQuarantine, type Blocked } from './recover.js';
import type { ScopeTable } from './scopes.js';
import { checkPendingEntry, checkStateLayout } from './state-guard.js';

/**
 * `tx inspect`: everything apply checks, and the approval hash, with no write
 * anywhere (not even `.vaultgate/`). An interrupted operation that touches the
 * bundle's paths cannot be recovered from here (that writes), so inspect says so.
 */
export interface InspectResult {
  operation_id: string;
  approval_sha256: string;
  /**
   * `content_file`: where a write's bytes were read from (absolute), so the person
   * approving sees that a note is made from, say, a file outside the bundle's folder.
   */
  writes: Array<{ path: string; mode: WriteMode; to?: string; content_file?: string; old_sha256: string | null; new_sha256: string | null }>;
  read_preconditions: PathMap<string>;
}

export function inspectBundle(root: string, bundle: Bundle, opts: { ops?: FsOps; scopes?: ScopeTable } = {}): InspectResult {
  const ops = opts.ops ?? realFsOps;
  checkStateLayout(root, ops);
  const config = readVaultConfig(root);
  const paths = bundle.writes.flatMap(pathsOf);
  assertNotBlocked(bundle.operation_id, paths, pendingBlocks(root, ops, new Set(paths.map(filesystemFoldKey))));
  const plan = buildPlan(root, bundle, { ops, scopeContext: config, ...(opts.scopes ? { scopes: opts.scopes } : {}) });
  const sources = new Map(bundle.writes.flatMap((w) => ((w.mode === 'create' || w.mode === 'replace') && w.source !== undefined ? [[w.path, w.source] as const] : [])));
  return {
    operation_id: bundle.operation_id,
    approval_sha256: plan.approval_sha256,
    writes: plan.writes.map((w) => ({
      path: w.path,
      mode: w.mode,
      ...(w.mode === 'move' ? { to: w.to } : {}),
      ...(sources.has(w.path) ? { content_file: sources.get(w.path) } : {}),
      ...hashesOf(w),
    })),
    read_preconditions: plan.read_preconditions,
  };
}

/** Quarantined operations block; an unrecovered one touching these paths needs `tx recover` (or is running). */
function pendingBlocks(root: string, ops: FsOps, wanted: Set<string>): Blocked {
  const { pending } = txnLayout(root);
  const blocked: Blocked = new Map();
  let names: string[];
  try {
    names = ops.readdir(pending);
  } catch {
    return blocked;
  }
  for (const name of names) {
    if (!isOperationDirName(name)) continue;
    const dir = path.join(pending, name);
    checkPendingEntry(root, dir, ops);
    if (!ops.lstat(dir)?.isDirectory()) continue;
    const q = readQuarantine(dir, ops);
    if (q) {
      for (const p of q.blocked_paths) blocked.set(filesystemFoldKey(p), { operation_id: q.operation_id, path: p });
      continue;
    }
    const intent = readIntent(dir, ops);
    if (!intent) continue;
    const hit = locationsOf(intent).find((l) => wanted.has(filesystemFoldKey(l.path)));
    if (!hit) continue;
    const lock = readLockOwner(root, ops);
    if (lock && isHeld(lock.liveness)) {
      throw new VaultgateError('LOCK_BUSY', `operation ${intent.operation_id} is being applied to ${hit.path} right now`, {
        path: hit.path,
        hint: 'Retry `vaultgate tx inspect` when it has finished.',
      });
    }
    throw new VaultgateError('RECOVERY_NEEDED', `operation ${intent.operation_id} was interrupted while changing ${hit.path}`, {
      path: hit.path,
      details: { operation_id: intent.operation_id },
      hint: 'Run `vaultgate tx recover` (or any `vaultgate tx apply`), then inspect again.',
    });
  }
  return blocked;
}
