import fs from 'node:fs';
import { VaultgateError } from '../errors.js';
import { sha256Hex } from '../vault/index.js';
import { approvalSha256, bundleSha256 } from './approval.js';
import type { Bundle, WriteMode } from './bundle-schema.js';
import type { FsOps } from './fs-ops.js';
import { vaultIdentity } from '../vault/index.js';
import { tempName } from './layout.js';
import { checkScope, DEFAULT_SCOPES, type ScopeContext, type ScopeTable } from './scopes.js';
import { readState, resolveTarget, type DirCache } from './vault-state.js';

/**
 * A plan is a bundle resolved against the vault as it is now: disk names, old
 * hashes and modes, folders to create, temp names, and the approval hash. inspect
 * returns it; apply recomputes it under the lock and compares approval hashes.
 * Pure reading: building a plan never writes.
 */
export interface PlannedWrite {
  index: number;
  mode: WriteMode;
  path: string;
  disk: string;
  to?: string;
  to_disk?: string;
  content?: Buffer;
  old_sha256: string | null;
  new_sha256: string | null;
  old_mode: number | null;
  new_mode: number | null;
  /** Temp file beside the target (create/replace), disk path. */
  temp?: string;
}

export interface Plan {
  bundle: Bundle;
  bundle_sha256: string;
  approval_sha256: string;
  vault_id: string;
  writes: PlannedWrite[];
  /** Folders the operation creates, shallowest first (disk paths). */
  created_dirs: string[];
  /** Every vault path the operation changes, in write order (a move lists both ends). */
  changed_paths: string[];
  read_preconditions: Record<string, string>;
}

export interface PlanOptions {
  ops: FsOps;
  scopes?: ScopeTable;
  scopeContext: ScopeContext;
  /** Internal operations (undo) skip the scope table: they only restore bytes the engine wrote. */
  skipScope?: boolean;
  /** Explicit modes for internal operations (undo restores the original mode). */
  modes?: Map<number, number>;
}

function umask(): number {
  return process.umask();
}

const stale = (rel: string, expected: string | null, actual: string | null, what = 'expected') =>
  new VaultgateError('STALE_HASH', `${rel} changed since the bundle was made (${what} ${expected ?? 'absent'}, found ${actual ?? 'absent'})`, {
    path: rel,
    details: { expected, actual },
    hint: 'Re-read the file, rebuild the bundle, and run `vaultgate tx inspect` again.',
  });

export function buildPlan(root: string, bundle: Bundle, opts: PlanOptions): Plan {
  const { ops } = opts;
  if (!opts.skipScope) checkScope(bundle.operation_type, bundle.writes, opts.scopeContext, opts.scopes ?? DEFAULT_SCOPES);
  const cache: DirCache = new Map();
  const created = new Set<string>();
  const createdDirs: string[] = [];
  const writes: PlannedWrite[] = [];
  const changed: string[] = [];
  const newMode = 0o666 & ~umask();
  for (const [index, w] of bundle.writes.entries()) {
    const t = resolveTarget(root, w.path, ops, cache);
    const cur = t.exists ? readState(root, t.disk, ops) : null;
    const expected = bundle.expected_hashes[w.path] ?? null;
    if ((cur?.sha256 ?? null) !== expected) throw stale(w.path, expected, cur?.sha256 ?? null);
    const pw: PlannedWrite = {
      index,
      mode: w.mode,
      path: w.path,
      disk: t.disk,
      old_sha256: cur?.sha256 ?? null,
      new_sha256: null,
      old_mode: cur?.mode ?? null,
      new_mode: null,
    };
    const addDirs = (dirs: string[]) => {
      for (const d of dirs) if (!created.has(d)) (created.add(d), createdDirs.push(d));
    };
    if (w.mode === 'create' || w.mode === 'replace') {
      pw.content = w.content!;
      pw.new_sha256 = sha256Hex(w.content!);
      pw.new_mode = opts.modes?.get(index) ?? (w.mode === 'replace' ? cur!.mode : newMode);
      const slash = t.disk.lastIndexOf('/');
      pw.temp = t.disk.slice(0, slash + 1) + tempName(t.disk.slice(slash + 1), bundle.operation_id, index);
      if (w.mode === 'create') addDirs(t.missingDirs);
    }
    if (w.mode === 'move') {
      const to = resolveTarget(root, w.to!, ops, cache);
      const toExpected = bundle.expected_hashes[w.to!] ?? null;
      const toCur = to.exists ? readState(root, to.disk, ops) : null;
      if ((toCur?.sha256 ?? null) !== toExpected) throw stale(w.to!, toExpected, toCur?.sha256 ?? null);
      pw.to = w.to!;
      pw.to_disk = to.disk;
      pw.new_sha256 = cur!.sha256;
      pw.new_mode = cur!.mode;
      addDirs(to.missingDirs);
    }
    changed.push(w.path);
    if (w.to !== undefined) changed.push(w.to);
    writes.push(pw);
  }
  const reads: Record<string, string> = {};
  for (const [rel, want] of Object.entries(bundle.read_preconditions)) {
    const t = resolveTarget(root, rel, ops, cache);
    const cur = t.exists ? readState(root, t.disk, ops) : null;
    if (cur?.sha256 !== want) throw stale(rel, want, cur?.sha256 ?? null, 'read precondition');
    reads[rel] = cur.sha256;
  }
  const rootSt = fs.statSync(root, { bigint: true });
  const { vault_id } = vaultIdentity(root);
  const approval = approvalSha256({
    vault_id,
    vault_root: { dev: String(rootSt.dev), ino: String(rootSt.ino) },
    bundle,
    writes: writes.map((w) => ({
      path: w.path,
      ...(w.to === undefined ? {} : { to: w.to }),
      old_sha256: w.old_sha256,
      new_sha256: w.new_sha256,
      old_mode: w.old_mode,
      new_mode: w.new_mode,
    })),
    read_preconditions: reads,
  });
  return {
    bundle,
    bundle_sha256: bundleSha256(bundle),
    approval_sha256: approval,
    vault_id,
    writes,
    created_dirs: createdDirs,
    changed_paths: changed,
    read_preconditions: reads,
  };
}
