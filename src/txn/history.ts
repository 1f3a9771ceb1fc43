import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { removeTree, writeDurable } from './durable.js';
import { readTextIfExists, rethrowIfCrash, type FsOps, type OperationSite } from './fs-ops.js';
import { parseJournalWrite, type Intent, type JournalWrite } from './journal.js';
import { isOperationId, txnLayout } from './layout.js';
import { HISTORY_TAIL_BYTES, LEGACY_UNDO_PREFIX, UNDO_PREFIX } from './settings.js';

/**
 * Finishing an operation. An applied operation's folder (intent + backups) moves
 * from `pending/` to `backups/<ms>-<op>/` in one rename, after its result record
 * `done/<op>.json` and its history line are durable. A rolled-back one leaves a
 * history line only, so its id may be used again.
 */
export type Outcome = 'applied' | 'rolled_back' | 'resolved_keep_current' | 'resolved_restore_original';
const OUTCOMES: readonly Outcome[] = ['applied', 'rolled_back', 'resolved_keep_current', 'resolved_restore_original'];

export interface DoneRecord {
  schema: 'vaultgate.done.v1';
  operation_id: string;
  operation_type: string;
  outcome: Outcome;
  bundle_sha256: string;
  approval_sha256: string;
  undo_of?: string;
  completed_at: string;
  changed_paths: string[];
  /** Folder under txn/backups/ holding intent and originals; pruned by txn.keep_backups. */
  backup_dir: string | null;
  writes: JournalWrite[];
  /** Folders the operation created (undo removes them again when empty). */
  created_dirs: string[];
  displaced?: string[];
}

/**
 * The result record of operation `op`, or null when there is none. `op` must be an
 * operation id (a file name, never a path). A record that exists but is not a valid
 * one is STATE_CORRUPT: treating it as absent would let its id be used again.
 */
export function readDone(root: string, op: string, ops: FsOps): DoneRecord | null {
  if (!isOperationId(op)) return null;
  const file = path.join(txnLayout(root).done, `${op}.json`);
  const rel = `.vaultgate/txn/done/${op}.json`;
  const text = readTextIfExists(file, ops, `Restore ${rel} from a backup of the vault, or move it away (its operation id then counts as unused).`);
  if (text === null) return null;
  const bad = (why: string): never => {
    throw new VaultgateError('STATE_CORRUPT', `${rel} is not a valid result record (${why})`, {
      path: rel,
      hint: 'Restore it from a backup of the vault, or move it away (its operation id then counts as unused).',
    });
  };
  let r: Record<string, unknown>;
  try {
    r = JSON.parse(text) as Record<string, unknown>;
  } catch {
    return bad('not JSON');
  }
  if (!r || typeof r !== 'object' || r.schema !== 'vaultgate.done.v1') return bad('wrong schema');
  const str = (k: string) => (typeof r[k] === 'string' ? (r[k] as string) : bad(k));
  const strs = (k: string, dflt?: string[]) =>
    r[k] === undefined && dflt ? dflt : Array.isArray(r[k]) && (r[k] as unknown[]).every((x) => typeof x === 'string') ? (r[k] as string[]) : bad(k);
  const outcome = OUTCOMES.find((o) => o === r.outcome) ?? bad('outcome');
  if (r.backup_dir !== null && typeof r.backup_dir !== 'string') bad('backup_dir');
  if (!Array.isArray(r.writes)) bad('writes');
  return {
    schema: 'vaultgate.done.v1',
    operation_id: str('operation_id'),
    operation_type: str('operation_type'),
    outcome,
    bundle_sha256: str('bundle_sha256'),
    approval_sha256: str('approval_sha256'),
    ...(r.undo_of === undefined ? {} : { undo_of: str('undo_of') }),
    completed_at: str('completed_at'),
    changed_paths: strs('changed_paths'),
    backup_dir: (r.backup_dir as string | null) ?? null,
    writes: (r.writes as unknown[]).map((w, n) => parseJournalWrite(w, `${rel} writes[${n}]`)),
    created_dirs: strs('created_dirs', []),
    ...(r.displaced === undefined ? {} : { displaced: strs('displaced') }),
  };
}

/**
 * The applied undo of `op`, if there is one: `_undo-<op>`, or a record written
 * before user and engine ids were separated (`undo-<op>` whose record says it undid
 * `op`; a user's own operation named `undo-<op>` says no such thing).
 */
export function readUndoOf(root: string, op: string, ops: FsOps): DoneRecord | null {
  const rec = readDone(root, UNDO_PREFIX + op, ops);
  if (rec?.outcome === 'applied') return rec;
  const legacy = readDone(root, LEGACY_UNDO_PREFIX + op, ops);
  return legacy?.outcome === 'applied' && legacy.undo_of === op ? legacy : null;
}

/** The undo that holds now: `op` was undone, and that undo was not itself undone (a redo). */
export function currentUndo(root: string, op: string, ops: FsOps): DoneRecord | null {
  const undo = readUndoOf(root, op, ops);
  if (!undo) return null;
  return currentUndo(root, undo.operation_id, ops) ? null : undo;
}

/** Records how an operation ended (history, done/), and moves its folder to backups/ (or retires it when rolled back). */
export function finalize({ root, opDir, ops }: OperationSite, intent: Intent, end: { outcome: Outcome; keepBackups: number; displaced?: string[] }): DoneRecord {
  const { outcome } = end;
  const l = txnLayout(root);
  const completed = new Date();
  const backupDir = outcome === 'rolled_back' ? null : `${String(completed.getTime()).padStart(13, '0')}-${intent.operation_id}`;
  const record: DoneRecord = {
    schema: 'vaultgate.done.v1',
    operation_id: intent.operation_id,
    operation_type: intent.operation_type,
    outcome,
    bundle_sha256: intent.bundle_sha256,
    approval_sha256: intent.approval_sha256,
    ...(intent.undo_of === undefined ? {} : { undo_of: intent.undo_of }),
    completed_at: completed.toISOString(),
    changed_paths: intent.changed_paths,
    backup_dir: backupDir,
    writes: intent.writes,
    created_dirs: intent.created_dirs,
    ...(end.displaced ? { displaced: end.displaced } : {}),
  };
  appendHistory(root, record, ops);
  if (backupDir === null) {
    retire(opDir, ops);
    return record;
  }
  writeDurable(l.done, `${intent.operation_id}.json`, JSON.stringify(record), ops);
  // No fsync after this rename: if power loss undoes it, the folder is back in
  // pending/ with every write landed, and recovery finalizes it again (idempotent).
  ops.rename(opDir, path.join(l.backups, backupDir));
  pruneBackups(root, end.keepBackups, ops);
  return record;
}

function fsyncDirs(ops: FsOps, ...dirs: string[]): void {
  for (const d of dirs) {
    const fd = ops.openDir(d);
    try {
      ops.fsync(fd);
    } finally {
      ops.close(fd);
    }
  }
}

/** Remove a finished pending folder: renamed to a dot-name first, so recovery never sees half of it. */
export function retire(opDir: string, ops: FsOps): void {
  const gone = path.join(path.dirname(opDir), `.gone-${path.basename(opDir)}-${Math.random().toString(36).slice(2, 8)}`);
  ops.rename(opDir, gone);
  fsyncDirs(ops, path.dirname(opDir));
  removeTree(gone, ops);
}

/**
 * Append one line to history.jsonl, unless the last line already records this
 * operation's outcome (a crash between the append and the folder move makes
 * recovery finalize twice). A torn last line gets a newline first.
 */
function appendHistory(root: string, record: DoneRecord, ops: FsOps): void {
  const file = txnLayout(root).history;
  const line = JSON.stringify({
    operation_id: record.operation_id,
    operation_type: record.operation_type,
    outcome: record.outcome,
    completed_at: record.completed_at,
    changed_paths: record.changed_paths,
    bundle_sha256: record.bundle_sha256,
    ...(record.undo_of ? { undo_of: record.undo_of } : {}),
  });
  const tail = readTail(file, ops);
  const lastLine = tail.trimEnd().split('\n').pop() ?? '';
  try {
    const last = JSON.parse(lastLine) as { operation_id?: string; outcome?: string };
    if (last.operation_id === record.operation_id && last.outcome === record.outcome) return;
  } catch {
    /* no or torn last line */
  }
  const prefix = tail.length > 0 && !tail.endsWith('\n') ? '\n' : '';
  const fd = ops.openAppend(file);
  try {
    ops.write(fd, Buffer.from(prefix + line + '\n'));
    ops.fsync(fd);
  } finally {
    ops.close(fd);
  }
}

function readTail(file: string, ops: FsOps): string {
  const st = ops.lstat(file);
  if (!st) return '';
  // history is append-only and can grow to thousands of lines: read only the end
  const size = Number(st.size);
  const fd = ops.openRead(file);
  try {
    const n = Math.min(size, HISTORY_TAIL_BYTES);
    const buf = Buffer.alloc(n);
    fs.readSync(fd, buf, 0, n, size - n);
    return buf.toString('utf8');
  } finally {
    ops.close(fd);
  }
}


/** Keep the newest `keep` backup folders (names sort by completion time). */
export function pruneBackups(root: string, keep: number, ops: FsOps): number {
  const dir = txnLayout(root).backups;
  const names = ops.readdir(dir).filter((n) => /^\d{13}-/.test(n)).sort();
  let removed = 0;
  for (const name of names.slice(0, Math.max(0, names.length - keep))) {
    try {
      removeTree(path.join(dir, name), ops);
      removed++;
    } catch (e) {
      rethrowIfCrash(e);
    }
  }
  return removed;
}
