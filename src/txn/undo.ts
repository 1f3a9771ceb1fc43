import path from 'node:path';
import { isVaultgateError, unreachable, VaultgateError } from '../errors.js';
import { sha256Hex } from '../vault/index.js';
import { executePlan } from './apply.js';
import { BUNDLE_SCHEMA, pathMap, pathsOf, type Bundle, type BundleWrite } from './bundle-schema.js';
import { assertNotBlocked, withEngine, type EngineOptions } from './engine.js';
import { rethrowIfCrash, type FsOps } from './fs-ops.js';
import { currentUndo, readDone, readUndoOf, type DoneRecord } from './history.js';
import { backupName } from './journal.js';
import { abs, isOperationId, txnLayout } from './layout.js';
import { buildPlan } from './plan.js';
import { UNDO_PREFIX } from './settings.js';
import { checkParents, readState, resolveTarget } from './vault-state.js';

/**
 * `undo OP`: the inverse of OP as a new operation in the engine's own namespace,
 * `_undo-OP` (a user's id never starts with `_`, so a bundle applied under the id
 * `undo-OP` is just another operation), allowed only while every file OP touched
 * still holds exactly what OP left there (else 75, naming each changed file). Works
 * after a restart: it reads `txn/done/OP.json` and the originals kept under
 * `txn/backups/` (until pruned by `txn.keep_backups`).
 */
export interface UndoResult {
  operation_id: string;
  undone: string;
  changed_paths: string[];
  replayed: boolean;
}

const unknown = (op: string) =>
  new VaultgateError('OPERATION_UNKNOWN', `no applied operation ${JSON.stringify(op)}`, { hint: 'Check the id in .vaultgate/txn/history.jsonl (`vaultgate tx status` counts them).' });

/** Where an undo finds what it restores: the vault, the operation undone, and the folder its originals were kept in. */
interface UndoSource {
  root: string;
  ops: FsOps;
  op: string;
  backupDir: string | null;
}

/** The bytes write `index` replaced or deleted, from the kept backup, checked against the hash they had. */
function keptOriginal({ root, ops, op, backupDir }: UndoSource, w: { index: number; rel: string; want: string }): Buffer {
  const { index, rel, want } = w;
  const file = backupDir ? path.join(backupDir, backupName(index)) : null;
  const bytes = file && ops.lstat(file)?.isFile() ? ops.readFile(file) : null;
  if (!bytes) {
    throw new VaultgateError('UNDO_UNAVAILABLE', `the original of ${rel} is no longer kept (backups are pruned to txn.keep_backups)`, {
      path: rel,
      hint: 'Restore it from git or your own backup; raise txn.keep_backups in .vaultgate/config.yaml to keep more.',
    });
  }
  const actual = sha256Hex(bytes);
  if (actual !== want) {
    // the kept original is the very inode that was replaced: an editor that held it open may have written into it
    const kept = path.relative(root, file ?? '').split(path.sep).join('/');
    throw new VaultgateError('INTEGRITY', `the kept original of ${rel} (${kept}) no longer holds the bytes ${op} replaced: it may hold an edit made while ${op} was applied`, {
      path: rel,
      details: { backup: kept, expected: want, backup_sha256: actual },
      hint: `Nothing was changed. Look at ${kept} and copy what you need from it before anything else; then edit ${rel} by hand.`,
    });
  }
  return bytes;
}

/**
 * The inverse of an applied operation's writes, last first: each path must still
 * hold what the operation left there (`expected`; a path that does not is a
 * conflict), and a restored file gets back its old mode.
 */
function inverseWrites(rec: DoneRecord, src: UndoSource) {
  const { root, ops } = src;
  const original = (index: number, rel: string, want: string) => keptOriginal(src, { index, rel, want });
  const conflicts: Array<{ path: string; expected: string | null; actual: string | null }> = [];
  const check = (rel: string, want: string | null) => {
    let actual: string | null;
    try {
      const t = resolveTarget(root, rel, ops);
      actual = t.exists ? (readState(root, t.disk, ops)?.sha256 ?? null) : null;
    } catch (e) {
      rethrowIfCrash(e);
      if (!isVaultgateError(e)) throw e;
      actual = 'unreadable';
    }
    if (actual !== want) conflicts.push({ path: rel, expected: want, actual });
  };
  const writes: BundleWrite[] = [];
  const expected = pathMap<string | null>();
  const modes = new Map<number, number>();
  for (const w of [...rec.writes].reverse()) {
    const n = writes.length;
    switch (w.mode) {
      case 'create':
        check(w.path, w.new_sha256);
        writes.push({ path: w.path, mode: 'delete' });
        expected[w.path] = w.new_sha256;
        break;
      case 'replace':
        check(w.path, w.new_sha256);
        writes.push({ path: w.path, mode: 'replace', content: original(w.index, w.path, w.old_sha256) });
        expected[w.path] = w.new_sha256;
        modes.set(n, w.old_mode);
        break;
      case 'delete':
        check(w.path, null);
        writes.push({ path: w.path, mode: 'create', content: original(w.index, w.path, w.old_sha256) });
        expected[w.path] = null;
        modes.set(n, w.old_mode);
        break;
      case 'move':
        check(w.to, w.old_sha256);
        check(w.path, null);
        writes.push({ path: w.to, mode: 'move', to: w.path });
        expected[w.to] = w.old_sha256;
        expected[w.path] = null;
        break;
      default:
        unreachable(w, 'write mode');
    }
  }
  return { writes, expected, modes, conflicts };
}

export async function undoOperation(root: string, op: string, opts: EngineOptions = {}): Promise<UndoResult> {
  if (!isOperationId(op)) throw unknown(op);
  return withEngine(root, opts, async ({ ops, lock, keepBackups, blocked }) => {
    const rec = readDone(root, op, ops);
    if (!rec) throw unknown(op);
    if (rec.outcome !== 'applied') {
      throw new VaultgateError('UNDO_UNAVAILABLE', `operation ${op} was ${rec.outcome.replace(/_/g, ' ')}, not applied`, {});
    }
    const prior = readUndoOf(root, op, ops);
    if (prior) {
      if (currentUndo(root, op, ops)) return { operation_id: prior.operation_id, undone: op, changed_paths: prior.changed_paths, replayed: true };
      throw new VaultgateError('UNDO_UNAVAILABLE', `${op} was undone by ${prior.operation_id}, and that undo was itself undone since`, {
        hint: `Undo the undo's undo instead: \`vaultgate undo ${UNDO_PREFIX}${prior.operation_id}\`.`,
      });
    }
    const undoId = UNDO_PREFIX + op;
    const backupDir = rec.backup_dir ? path.join(txnLayout(root).backups, rec.backup_dir) : null;
    const { writes, expected, modes, conflicts } = inverseWrites(rec, { root, ops, backupDir, op });
    if (conflicts.length > 0) {
      throw new VaultgateError('UNDO_CONFLICT', `cannot undo ${op}: ${conflicts.map((c) => c.path).join(', ')} changed since it was applied`, {
        details: { operation_id: op, changed: conflicts },
        hint: 'Undo only restores files that still hold exactly what the operation wrote; edit the changed files by hand or with a new bundle.',
      });
    }
    const bundle: Bundle = { schema: BUNDLE_SCHEMA, operation_id: undoId, operation_type: 'generic', writes, expected_hashes: expected, read_preconditions: pathMap() };
    assertNotBlocked(undoId, writes.flatMap(pathsOf), blocked);
    const plan = buildPlan(root, bundle, { ops, scopeContext: { captures_folder: '' }, skipScope: true, modes });
    const r = executePlan({ root, ops, lock }, plan, { keepBackups, undo_of: op });
    removeEmptyDirs(root, rec.created_dirs, ops);
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
