import path from 'node:path';
import { isVaultgateError, VaultgateError } from '../errors.js';
import { sha256Hex } from '../vault/index.js';
import { executePlan } from './apply.js';
import { assertNotBlocked, withEngine, type EngineOptions } from './engine.js';
import { BUNDLE_SCHEMA, type Bundle, type BundleWrite } from './bundle-schema.js';
import { readDone } from './history.js';
import { abs, txnLayout } from './layout.js';
import { rethrowIfCrash, type FsOps } from './fs-ops.js';
import { buildPlan } from './plan.js';
import { checkParents, readState, resolveTarget } from './vault-state.js';

/**
 * `undo OP`: the inverse of OP as a new operation `undo-OP`, allowed only while
 * every file OP touched still holds exactly what OP left there (else 75, naming
 * each changed file). Works after a restart: it reads `txn/done/OP.json` and the
 * originals kept under `txn/backups/` (until pruned by `txn.keep_backups`).
 */
export interface UndoResult {
  operation_id: string;
  undone: string;
  changed_paths: string[];
  replayed: boolean;
}

export async function undoOperation(root: string, op: string, opts: EngineOptions = {}): Promise<UndoResult> {
  return withEngine(root, opts, async (ops, lock, keepBackups, _recovered, blocked) => {
    const rec = readDone(root, op, ops);
    if (!rec) {
      throw new VaultgateError('OPERATION_UNKNOWN', `no applied operation ${op}`, { hint: 'Check the id in .vaultgate/txn/history.jsonl.' });
    }
    if (rec.outcome !== 'applied') {
      throw new VaultgateError('UNDO_UNAVAILABLE', `operation ${op} was ${rec.outcome.replace(/_/g, ' ')}, not applied`, {});
    }
    const undoId = `undo-${op}`;
    const prior = readDone(root, undoId, ops);
    if (prior?.outcome === 'applied') return { operation_id: undoId, undone: op, changed_paths: prior.changed_paths, replayed: true };
    const backupDir = rec.backup_dir ? path.join(txnLayout(root).backups, rec.backup_dir) : null;
    const original = (index: number, rel: string, want: string): Buffer => {
      const file = backupDir ? path.join(backupDir, `b${index}`) : null;
      const bytes = file && ops.lstat(file) ? ops.readFile(file) : null;
      if (!bytes || sha256Hex(bytes) !== want) {
        throw new VaultgateError('UNDO_UNAVAILABLE', `the original of ${rel} is no longer kept (backups are pruned to txn.keep_backups)`, {
          path: rel,
          hint: 'Restore it from git or your own backup; raise txn.keep_backups in .vaultgate/config.yaml to keep more.',
        });
      }
      return bytes;
    };
    const conflicts: Array<{ path: string; expected: string | null; actual: string | null }> = [];
    const check = (rel: string, want: string | null) => {
      let actual: string | null;
      try {
        const t = resolveTarget(root, rel, ops);
        actual = t.exists ? (readState(root, t.disk, ops)?.sha256 ?? null) : null;
      } catch (e) {
        if (!isVaultgateError(e)) throw e;
        actual = 'unreadable';
      }
      if (actual !== want) conflicts.push({ path: rel, expected: want, actual });
    };
    const writes: BundleWrite[] = [];
    const expected: Record<string, string | null> = {};
    const modes = new Map<number, number>();
    for (const w of [...rec.writes].reverse()) {
      const n = writes.length;
      if (w.mode === 'create') {
        check(w.path, w.new_sha256);
        writes.push({ path: w.path, mode: 'delete' });
        expected[w.path] = w.new_sha256;
      } else if (w.mode === 'replace') {
        check(w.path, w.new_sha256);
        writes.push({ path: w.path, mode: 'replace', content: original(w.index, w.path, w.old_sha256!) });
        expected[w.path] = w.new_sha256;
        modes.set(n, w.old_mode!);
      } else if (w.mode === 'delete') {
        check(w.path, null);
        writes.push({ path: w.path, mode: 'create', content: original(w.index, w.path, w.old_sha256!) });
        expected[w.path] = null;
        modes.set(n, w.old_mode!);
      } else {
        check(w.to!, w.old_sha256);
        check(w.path, null);
        writes.push({ path: w.to!, mode: 'move', to: w.path });
        expected[w.to!] = w.old_sha256;
        expected[w.path] = null;
      }
    }
    if (conflicts.length > 0) {
      throw new VaultgateError('UNDO_CONFLICT', `cannot undo ${op}: ${conflicts.map((c) => c.path).join(', ')} changed since it was applied`, {
        details: { operation_id: op, changed: conflicts },
        hint: 'Undo only restores files that still hold exactly what the operation wrote; edit the changed files by hand or with a new bundle.',
      });
    }
    const bundle: Bundle = { schema: BUNDLE_SCHEMA, operation_id: undoId, operation_type: 'generic', writes, expected_hashes: expected, read_preconditions: {} };
    assertNotBlocked(undoId, writes.flatMap((w) => (w.to ? [w.path, w.to] : [w.path])), blocked);
    const plan = buildPlan(root, bundle, { ops, scopeContext: { captures_folder: '' }, skipScope: true, modes });
    const r = executePlan(root, plan, ops, lock, { keepBackups, undo_of: op });
    removeEmptyDirs(root, rec.created_dirs ?? [], ops);
    return { operation_id: undoId, undone: op, changed_paths: r.changed_paths, replayed: false };
  });
}

/** Folders OP created go too, deepest first, when nothing else has moved in. */
function removeEmptyDirs(root: string, dirs: string[], ops: FsOps): void {
  for (const d of [...dirs].reverse()) {
    try {
      checkParents(root, d, ops);
      const p = abs(root, d);
      if (ops.lstat(p)?.isDirectory()) ops.rmdir(p);
    } catch (e) {
      rethrowIfCrash(e);
      // not empty, or no longer ours: leave it
    }
  }
}
