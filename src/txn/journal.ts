import path from 'node:path';
import { readJsonFile, writeDurable } from './durable.js';
import type { FsOps } from './fs-ops.js';
import type { Plan, PlannedWrite } from './plan.js';

/**
 * The intent record, `pending/<op>/intent.json`: everything recovery needs, written
 * durably *before* the first change to the vault. New content is not in it:
 * recovery rolls forward only when every write already reached the vault, so it
 * never needs new bytes; it rolls back from the backups `b<i>` beside the intent.
 */
export interface IntentWrite extends Omit<PlannedWrite, 'content'> {
  /** Backup file name in the operation folder, when there is an original. */
  backup?: string;
}

export interface Intent {
  schema: 'vaultgate.intent.v1';
  operation_id: string;
  operation_type: string;
  bundle_sha256: string;
  approval_sha256: string;
  /** Set on undo operations: the operation being undone. */
  undo_of?: string;
  created_at: string;
  /** Folders this operation creates, shallowest first; journaled before mkdir. */
  created_dirs: string[];
  changed_paths: string[];
  writes: IntentWrite[];
}

export function intentFromPlan(plan: Plan, extra: { undo_of?: string } = {}): Intent {
  return {
    schema: 'vaultgate.intent.v1',
    operation_id: plan.bundle.operation_id,
    operation_type: plan.bundle.operation_type,
    bundle_sha256: plan.bundle_sha256,
    approval_sha256: plan.approval_sha256,
    ...(extra.undo_of === undefined ? {} : { undo_of: extra.undo_of }),
    created_at: new Date().toISOString(),
    created_dirs: plan.created_dirs,
    changed_paths: plan.changed_paths,
    writes: plan.writes.map((w) => {
      const iw: IntentWrite = {
        index: w.index,
        mode: w.mode,
        path: w.path,
        disk: w.disk,
        old_sha256: w.old_sha256,
        new_sha256: w.new_sha256,
        old_mode: w.old_mode,
        new_mode: w.new_mode,
      };
      if (w.to !== undefined) (iw.to = w.to), (iw.to_disk = w.to_disk!);
      if (w.temp !== undefined) iw.temp = w.temp;
      if (w.old_sha256 !== null) iw.backup = `b${w.index}`;
      return iw;
    }),
  };
}

/** The intent file is fsynced here; its folder entry is fsynced by apply together with the backups. */
export function writeIntent(opDir: string, intent: Intent, ops: FsOps): void {
  writeDurable(opDir, 'intent.json', JSON.stringify(intent), ops, { syncDir: false });
}

export function readIntent(opDir: string, ops: FsOps): Intent | null {
  const i = readJsonFile<Intent>(path.join(opDir, 'intent.json'), ops);
  return i && i.schema === 'vaultgate.intent.v1' && Array.isArray(i.writes) ? i : null;
}

/** One place in the vault an operation changes, with its before and after. */
export interface Location {
  path: string;
  disk: string;
  old: string | null;
  new: string | null;
  old_mode: number | null;
  /** Backup file (in the operation folder) holding the old bytes. */
  backup?: string;
}

/** The places an intent changes: one per write, two for a move (source empties, destination fills). */
export function locationsOf(intent: Intent): Location[] {
  const out: Location[] = [];
  for (const w of intent.writes) {
    if (w.mode === 'move') {
      out.push({ path: w.path, disk: w.disk, old: w.old_sha256, new: null, old_mode: w.old_mode, ...(w.backup ? { backup: w.backup } : {}) });
      out.push({ path: w.to!, disk: w.to_disk!, old: null, new: w.old_sha256, old_mode: null });
    } else {
      out.push({
        path: w.path,
        disk: w.disk,
        old: w.old_sha256,
        new: w.mode === 'delete' ? null : w.new_sha256,
        old_mode: w.old_mode,
        ...(w.backup ? { backup: w.backup } : {}),
      });
    }
  }
  return out;
}

/** Quarantine record: recovery met bytes it did not write or find. */
export interface Quarantine {
  schema: 'vaultgate.quarantine.v1';
  operation_id: string;
  reason: 'foreign_change' | 'recovery_failed';
  message: string;
  /** Paths whose current bytes are neither the old nor the new ones (or could not be restored). */
  conflicts: Array<{ path: string; expected_one_of: Array<string | null>; found: string | null | 'unreadable' }>;
  /** Every path of the operation: blocked for later bundles until resolved. */
  blocked_paths: string[];
  at: string;
}
