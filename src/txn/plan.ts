import fs from 'node:fs';
import { unreachable, VaultgateError } from '../errors.js';
import { sha256Hex, vaultIdentity } from '../vault/index.js';
import { approvalSha256, bundleSha256, type ApprovalInput } from './approval.js';
import { pathMap, pathsOf, type Bundle, type BundleWrite, type PathMap } from './bundle-schema.js';
import type { FsOps } from './fs-ops.js';
import { asideName, besideDisk, tempName } from './layout.js';
import { checkScope, type ScopeContext, type ScopeTable } from './scopes.js';
import { readState, resolveTarget, type DirCache, type FileState, type Target } from './vault-state.js';

/**
 * A plan is a bundle resolved against the vault as it is now: disk names, old
 * hashes and modes, folders to create, temp and aside names, and the approval hash.
 * inspect returns it; apply recomputes it under the lock and compares approval
 * hashes. Pure reading: building a plan never writes.
 *
 * One variant per write mode, each with exactly the fields its mode has (no
 * optional fields that "must be there for a replace"):
 * - `temp`: the new bytes are written there, then published (create, replace);
 * - `aside`: the original is moved there right before it is replaced, deleted or
 *   moved, and checked (the inode and the bytes) before anything is published.
 */
interface PlannedBase {
  index: number;
  path: string;
  /** The path as it is on disk (NFC match of an NFD name, for example). */
  disk: string;
}
export interface PlannedCreate extends PlannedBase {
  mode: 'create';
  content: Buffer;
  new_sha256: string;
  new_mode: number;
  temp: string;
}
export interface PlannedReplace extends PlannedBase {
  mode: 'replace';
  content: Buffer;
  old_sha256: string;
  old_mode: number;
  new_sha256: string;
  new_mode: number;
  temp: string;
  aside: string;
}
export interface PlannedDelete extends PlannedBase {
  mode: 'delete';
  old_sha256: string;
  old_mode: number;
  aside: string;
}
export interface PlannedMove extends PlannedBase {
  mode: 'move';
  to: string;
  to_disk: string;
  old_sha256: string;
  old_mode: number;
  aside: string;
}
export type PlannedWrite = PlannedCreate | PlannedReplace | PlannedDelete | PlannedMove;
/** The writes that have an original to back up, move aside and check. */
export type PlannedWithOriginal = PlannedReplace | PlannedDelete | PlannedMove;

export function hasOriginal(w: PlannedWrite): w is PlannedWithOriginal {
  switch (w.mode) {
    case 'create':
      return false;
    case 'replace':
    case 'delete':
    case 'move':
      return true;
    default:
      return unreachable(w, 'write mode');
  }
}

/** Old and new hash as inspect reports them (null: absent). A move's "new" is its unchanged bytes at `to`. */
export function hashesOf(w: PlannedWrite): { old_sha256: string | null; new_sha256: string | null } {
  switch (w.mode) {
    case 'create':
      return { old_sha256: null, new_sha256: w.new_sha256 };
    case 'replace':
      return { old_sha256: w.old_sha256, new_sha256: w.new_sha256 };
    case 'delete':
      return { old_sha256: w.old_sha256, new_sha256: null };
    case 'move':
      return { old_sha256: w.old_sha256, new_sha256: w.old_sha256 };
    default:
      return unreachable(w, 'write mode');
  }
}

/** What the approval hash covers of one write (the shape is part of the approval: keep it stable). */
function approvalWrite(w: PlannedWrite): ApprovalInput['writes'][number] {
  const { old_sha256, new_sha256 } = hashesOf(w);
  switch (w.mode) {
    case 'create':
      return { path: w.path, old_sha256, new_sha256, old_mode: null, new_mode: w.new_mode };
    case 'replace':
      return { path: w.path, old_sha256, new_sha256, old_mode: w.old_mode, new_mode: w.new_mode };
    case 'delete':
      return { path: w.path, old_sha256, new_sha256, old_mode: w.old_mode, new_mode: null };
    case 'move':
      return { path: w.path, to: w.to, old_sha256, new_sha256, old_mode: w.old_mode, new_mode: w.old_mode };
    default:
      return unreachable(w, 'write mode');
  }
}

export interface Plan {
  bundle: Bundle;
  bundle_sha256: string;
  approval_sha256: string;
  vault_id: string;
  /** Device and inode of the vault root the plan was made against. */
  vault_root: { dev: string; ino: string };
  writes: PlannedWrite[];
  /** Folders the operation creates, shallowest first (disk paths). */
  created_dirs: string[];
  /** Every vault path the operation changes, in write order (a move lists both ends). */
  changed_paths: string[];
  read_preconditions: PathMap<string>;
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

const stale = (rel: string, expected: string | null, actual: string | null, what = 'expected') =>
  new VaultgateError('STALE_HASH', `${rel} changed since the bundle was made (${what} ${expected ?? 'absent'}, found ${actual ?? 'absent'})`, {
    path: rel,
    details: { expected, actual },
    hint: 'Re-read the file, rebuild the bundle, and run `vaultgate tx inspect` again.',
  });

/** What planning one write needs: the operation id, modes, and the checked states of the paths it touches. */
interface Planner {
  op: string;
  createMode: number;
  modes: Map<number, number> | undefined;
  /** The current state of a path, which must be what the bundle expects. */
  current: (rel: string) => { t: Target; cur: FileState | null };
  /** An existing original (the bundle's hash table said so, and `current` checked it). */
  existing: (rel: string) => { t: Target; cur: FileState };
  /** Folders a create or a move makes. */
  addDirs: (dirs: string[]) => void;
}

/** One bundle write as planned: its disk names (temp, aside), hashes and modes. */
function planWrite(p: Planner, index: number, w: BundleWrite): PlannedWrite {
  const { op, createMode, current, existing, addDirs } = p;
  switch (w.mode) {
    case 'create': {
      const { t } = current(w.path);
      addDirs(t.missingDirs);
      return {
        index,
        mode: 'create',
        path: w.path,
        disk: t.disk,
        content: w.content,
        new_sha256: sha256Hex(w.content),
        new_mode: p.modes?.get(index) ?? createMode,
        temp: besideDisk(t.disk, (n) => tempName(n, op, index)),
      };
    }
    case 'replace': {
      const { t, cur } = existing(w.path);
      return {
        index,
        mode: 'replace',
        path: w.path,
        disk: t.disk,
        content: w.content,
        old_sha256: cur.sha256,
        old_mode: cur.mode,
        new_sha256: sha256Hex(w.content),
        new_mode: p.modes?.get(index) ?? cur.mode,
        temp: besideDisk(t.disk, (n) => tempName(n, op, index)),
        aside: besideDisk(t.disk, (n) => asideName(n, op, index)),
      };
    }
    case 'delete': {
      const { t, cur } = existing(w.path);
      return { index, mode: 'delete', path: w.path, disk: t.disk, old_sha256: cur.sha256, old_mode: cur.mode, aside: besideDisk(t.disk, (n) => asideName(n, op, index)) };
    }
    case 'move': {
      const { t, cur } = existing(w.path);
      const { t: to } = current(w.to);
      addDirs(to.missingDirs);
      return {
        index,
        mode: 'move',
        path: w.path,
        disk: t.disk,
        to: w.to,
        to_disk: to.disk,
        old_sha256: cur.sha256,
        old_mode: cur.mode,
        aside: besideDisk(t.disk, (n) => asideName(n, op, index)),
      };
    }
    default:
      return unreachable(w, 'write mode');
  }
}

export function buildPlan(root: string, bundle: Bundle, opts: PlanOptions): Plan {
  const { ops } = opts;
  if (!opts.skipScope) checkScope(bundle.operation_type, bundle.writes, opts.scopeContext, opts.scopes);
  const op = bundle.operation_id;
  const cache: DirCache = new Map();
  const created = new Set<string>();
  const createdDirs: string[] = [];
  const writes: PlannedWrite[] = [];
  const changed: string[] = [];
  const createMode = 0o666 & ~process.umask();
  const addDirs = (dirs: string[]) => {
    for (const d of dirs) if (!created.has(d)) (created.add(d), createdDirs.push(d));
  };
  /** The current state of a path, which must be what the bundle expects. */
  const current = (rel: string) => {
    const t = resolveTarget(root, rel, ops, cache);
    const cur = t.exists ? readState(root, t.disk, ops) : null;
    const expected = bundle.expected_hashes[rel] ?? null;
    if ((cur?.sha256 ?? null) !== expected) throw stale(rel, expected, cur?.sha256 ?? null);
    return { t, cur };
  };
  /** An existing original (the bundle's hash table said so, and `current` checked it). */
  const existing = (rel: string) => {
    const { t, cur } = current(rel);
    if (!cur) throw stale(rel, bundle.expected_hashes[rel] ?? null, null);
    return { t, cur };
  };
  const planner: Planner = { op, createMode, modes: opts.modes, current, existing, addDirs };
  for (const [index, w] of bundle.writes.entries()) {
    writes.push(planWrite(planner, index, w));
    changed.push(...pathsOf(w));
  }
  const reads = pathMap<string>();
  for (const rel of Object.keys(bundle.read_preconditions)) {
    const want = bundle.read_preconditions[rel];
    const t = resolveTarget(root, rel, ops, cache);
    const cur = t.exists ? readState(root, t.disk, ops) : null;
    if (cur === null || cur.sha256 !== want) throw stale(rel, want ?? null, cur?.sha256 ?? null, 'read precondition');
    reads[rel] = cur.sha256;
  }
  const rootSt = fs.statSync(root, { bigint: true });
  const vaultRoot = { dev: String(rootSt.dev), ino: String(rootSt.ino) };
  const { vault_id } = vaultIdentity(root);
  const approval = approvalSha256({ vault_id, vault_root: vaultRoot, bundle, writes: writes.map(approvalWrite), read_preconditions: reads });
  return {
    bundle,
    bundle_sha256: bundleSha256(bundle),
    approval_sha256: approval,
    vault_id,
    vault_root: vaultRoot,
    writes,
    created_dirs: createdDirs,
    changed_paths: changed,
    read_preconditions: reads,
  };
}
