import crypto from 'node:crypto';
import path from 'node:path';
import { unreachable, VaultgateError } from '../errors.js';
import { readJsonFile, writeDurable } from './durable.js';
import { readTextIfExists, rethrowIfCrash, type FsOps } from './fs-ops.js';
import type { Plan, PlannedWrite } from './plan.js';

/**
 * The intent record, `pending/<op>/intent.json`: everything recovery needs, written
 * durably *before* the first change to the vault. New content is not in it:
 * recovery rolls forward only when every write already reached the vault, so it
 * never needs new bytes; it rolls back from the originals (moved aside beside the
 * note, or the backups `b<i>` beside the intent).
 *
 * One variant per mode, as in the plan, without the content. Intents written before
 * the aside step existed have no `aside`; recovery treats that as "never moved aside".
 */
interface JournalBase {
  index: number;
  path: string;
  disk: string;
}
export interface JournalCreate extends JournalBase {
  mode: 'create';
  new_sha256: string;
  new_mode: number;
  temp: string;
}
export interface JournalReplace extends JournalBase {
  mode: 'replace';
  old_sha256: string;
  old_mode: number;
  new_sha256: string;
  new_mode: number;
  temp: string;
  aside?: string;
  /** Backup file name in the operation folder. */
  backup: string;
}
export interface JournalDelete extends JournalBase {
  mode: 'delete';
  old_sha256: string;
  old_mode: number;
  aside?: string;
  backup: string;
}
export interface JournalMove extends JournalBase {
  mode: 'move';
  to: string;
  to_disk: string;
  old_sha256: string;
  old_mode: number;
  aside?: string;
  backup: string;
}
export type JournalWrite = JournalCreate | JournalReplace | JournalDelete | JournalMove;

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
  writes: JournalWrite[];
}

export const backupName = (index: number) => `b${index}`;

export function journalWrite(w: PlannedWrite): JournalWrite {
  const { index, path: p, disk } = w;
  switch (w.mode) {
    case 'create':
      return { index, mode: 'create', path: p, disk, new_sha256: w.new_sha256, new_mode: w.new_mode, temp: w.temp };
    case 'replace':
      return { index, mode: 'replace', path: p, disk, old_sha256: w.old_sha256, old_mode: w.old_mode, new_sha256: w.new_sha256, new_mode: w.new_mode, temp: w.temp, aside: w.aside, backup: backupName(index) };
    case 'delete':
      return { index, mode: 'delete', path: p, disk, old_sha256: w.old_sha256, old_mode: w.old_mode, aside: w.aside, backup: backupName(index) };
    case 'move':
      return { index, mode: 'move', path: p, disk, to: w.to, to_disk: w.to_disk, old_sha256: w.old_sha256, old_mode: w.old_mode, aside: w.aside, backup: backupName(index) };
    default:
      return unreachable(w, 'write mode');
  }
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
    writes: plan.writes.map(journalWrite),
  };
}

/** The intent file is fsynced here; its folder entry is fsynced by apply together with the backups. */
export function writeIntent(opDir: string, intent: Intent, ops: FsOps): void {
  writeDurable(opDir, 'intent.json', JSON.stringify(intent), ops, { syncDir: false });
}

const corrupt = (file: string, why: string) =>
  new VaultgateError('STATE_CORRUPT', `${file} is not a valid intent record (${why})`, {
    path: file,
    hint: 'The journal of an interrupted operation was altered. Leave the folder in place and see docs/guarantees.md; `vaultgate tx status` lists it.',
  });

/**
 * The intent of an operation folder: null when there is none (the process died
 * before it was durable: nothing in the vault was touched). A present but invalid
 * record is STATE_CORRUPT, never "absent": discarding it would discard the backups
 * of a half-applied operation.
 */
export function readIntent(opDir: string, ops: FsOps): Intent | null {
  const file = path.join(opDir, 'intent.json');
  const text = readTextIfExists(file, ops, 'The journal of an interrupted operation was altered. Leave the folder in place and see docs/guarantees.md; `vaultgate tx status` lists it.');
  if (text === null) return null;
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw corrupt(file, 'not JSON');
  }
  return parseIntent(raw, file);
}

const isStr = (v: unknown): v is string => typeof v === 'string';
const isSha = (v: unknown): v is string => typeof v === 'string' && /^[0-9a-f]{64}$/.test(v);
const isMode = (v: unknown): v is number => Number.isInteger(v) && (v as number) >= 0 && (v as number) <= 0o7777;

export function parseIntent(raw: unknown, file: string): Intent {
  const r = raw as Record<string, unknown> | null;
  if (!r || typeof r !== 'object' || r.schema !== 'vaultgate.intent.v1') throw corrupt(file, 'wrong schema');
  if (!isStr(r.operation_id) || !isStr(r.operation_type) || !isStr(r.bundle_sha256) || !isStr(r.approval_sha256) || !isStr(r.created_at)) throw corrupt(file, 'missing fields');
  if (!Array.isArray(r.created_dirs) || !r.created_dirs.every(isStr)) throw corrupt(file, 'created_dirs');
  if (!Array.isArray(r.changed_paths) || !r.changed_paths.every(isStr)) throw corrupt(file, 'changed_paths');
  if (!Array.isArray(r.writes)) throw corrupt(file, 'writes');
  if (r.undo_of !== undefined && !isStr(r.undo_of)) throw corrupt(file, 'undo_of');
  return {
    schema: 'vaultgate.intent.v1',
    operation_id: r.operation_id,
    operation_type: r.operation_type,
    bundle_sha256: r.bundle_sha256,
    approval_sha256: r.approval_sha256,
    ...(r.undo_of === undefined ? {} : { undo_of: r.undo_of }),
    created_at: r.created_at,
    created_dirs: r.created_dirs,
    changed_paths: r.changed_paths,
    writes: r.writes.map((w, n) => parseJournalWrite(w, `${file} writes[${n}]`)),
  };
}

/** One journaled write, checked field by field (records written by earlier versions carry extra null fields: ignored). */
export function parseJournalWrite(raw: unknown, where: string): JournalWrite {
  const w = raw as Record<string, unknown> | null;
  const bad = (field: string): never => {
    throw corrupt(where, field);
  };
  if (!w || typeof w !== 'object') return bad('not an object');
  const index = Number.isInteger(w.index) ? (w.index as number) : bad('index');
  const p = isStr(w.path) ? w.path : bad('path');
  const disk = isStr(w.disk) ? w.disk : bad('disk');
  const aside = w.aside === undefined ? {} : isStr(w.aside) ? { aside: w.aside } : bad('aside');
  const original = () => ({
    old_sha256: isSha(w.old_sha256) ? w.old_sha256 : bad('old_sha256'),
    old_mode: isMode(w.old_mode) ? w.old_mode : bad('old_mode'),
    backup: isStr(w.backup) ? w.backup : backupName(index),
    ...aside,
  });
  const fresh = () => ({
    new_sha256: isSha(w.new_sha256) ? w.new_sha256 : bad('new_sha256'),
    new_mode: isMode(w.new_mode) ? w.new_mode : bad('new_mode'),
    temp: isStr(w.temp) ? w.temp : bad('temp'),
  });
  switch (w.mode) {
    case 'create':
      return { index, mode: 'create', path: p, disk, ...fresh() };
    case 'replace':
      return { index, mode: 'replace', path: p, disk, ...original(), ...fresh() };
    case 'delete':
      return { index, mode: 'delete', path: p, disk, ...original() };
    case 'move':
      return { index, mode: 'move', path: p, disk, to: isStr(w.to) ? w.to : bad('to'), to_disk: isStr(w.to_disk) ? w.to_disk : bad('to_disk'), ...original() };
    default:
      return bad(`mode ${JSON.stringify(w.mode)}`);
  }
}

/**
 * One place in the vault an operation changes, with its before and after. A write
 * with an original has its `backup` (in the operation folder) and, once the apply
 * got that far, the original itself at `aside` beside the note; a move's
 * destination is a hard link of that same original (`linkedFrom`).
 */
export interface Location {
  /** Index of the write this location belongs to. */
  index: number;
  path: string;
  disk: string;
  old: string | null;
  new: string | null;
  old_mode: number | null;
  backup?: string;
  aside?: string;
  /** The journaled temp name (create, replace): rollback publishes an original through it. */
  temp?: string;
  /** A move's destination: it is ours when it is the very inode at this aside path. */
  linkedFrom?: string;
}

/** The places an intent changes: one per write, two for a move (source empties, destination fills). */
export function locationsOf(intent: Intent): Location[] {
  const out: Location[] = [];
  for (const w of intent.writes) {
    const base = { index: w.index, path: w.path, disk: w.disk };
    switch (w.mode) {
      case 'create':
        out.push({ ...base, old: null, new: w.new_sha256, old_mode: null, temp: w.temp });
        break;
      case 'replace':
        out.push({ ...base, old: w.old_sha256, new: w.new_sha256, old_mode: w.old_mode, backup: w.backup, temp: w.temp, ...(w.aside ? { aside: w.aside } : {}) });
        break;
      case 'delete':
        out.push({ ...base, old: w.old_sha256, new: null, old_mode: w.old_mode, backup: w.backup, ...(w.aside ? { aside: w.aside } : {}) });
        break;
      case 'move':
        out.push({ ...base, old: w.old_sha256, new: null, old_mode: w.old_mode, backup: w.backup, ...(w.aside ? { aside: w.aside } : {}) });
        out.push({ index: w.index, path: w.to, disk: w.to_disk, old: null, new: w.old_sha256, old_mode: null, ...(w.aside ? { linkedFrom: w.aside } : {}) });
        break;
      default:
        unreachable(w, 'write mode');
    }
  }
  return out;
}

/**
 * A release marker, `pending/<op>/released-<h>.json`: "stop judging this location by
 * its old and new hashes". Written durably by the apply when it finds someone
 * else's file at a name it has not written yet (that file stays as it is), and by
 * recovery right before it puts back an original that holds someone's edit (the
 * name then holds neither the old nor the new bytes, and a later recovery must not
 * call that a conflict). Recovery finishes a marked location's put-back if the
 * original is still aside, and otherwise leaves it alone.
 */
export function markReleased(opDir: string, disk: string, ops: FsOps): void {
  const h = crypto.createHash('sha256').update(disk).digest('hex').slice(0, 16);
  writeDurable(opDir, `released-${h}.json`, JSON.stringify({ disk }), ops);
}

export function readReleased(opDir: string, ops: FsOps): Set<string> {
  const out = new Set<string>();
  let names: string[];
  try {
    names = ops.readdir(opDir);
  } catch (e) {
    rethrowIfCrash(e);
    return out;
  }
  for (const name of names) {
    if (!/^released-[0-9a-f]{16}\.json$/.test(name)) continue;
    const r = readJsonFile<{ disk?: unknown }>(path.join(opDir, name), ops);
    if (typeof r?.disk === 'string') out.add(r.disk);
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
