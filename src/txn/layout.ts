import crypto from 'node:crypto';
import path from 'node:path';
import { vaultgateDir } from '../vault/index.js';
import { INTERNAL_OPERATION_ID, OPERATION_ID } from './settings.js';

/**
 * Where the engine keeps its state inside `<vault>/.vaultgate/` (DESIGN §3):
 *
 * ```
 * .vaultgate/lock/owner.json            the vault lock (a directory: mkdir/rename are atomic)
 * .vaultgate/txn/pending/<op>/          one folder per unfinished operation: intent.json, b<i> backups,
 *                                       quarantine.json when recovery found someone else's edit
 *                                       (<op> is a user's id, or `_undo-<op>` for the engine's undo)
 * .vaultgate/txn/done/<op>.json         result of every applied operation (replay, undo, checkpoint)
 * .vaultgate/txn/backups/<ms>-<op>/     the finished operation's folder: originals kept for undo, pruned
 * .vaultgate/txn/history.jsonl          append-only log of finished operations
 * .vaultgate/txn/displaced/<op>/        bytes `tx resolve --restore-original` moved aside
 * ```
 * Recovery reads only `pending/`; anything else in `txn/` it does not know is ignored.
 */
export interface TxnLayout {
  root: string;
  base: string;
  lock: string;
  txn: string;
  pending: string;
  done: string;
  backups: string;
  history: string;
  displaced: string;
}

export function txnLayout(root: string): TxnLayout {
  const base = vaultgateDir(root);
  const txn = path.join(base, 'txn');
  return {
    root,
    base,
    lock: path.join(base, 'lock'),
    txn,
    pending: path.join(txn, 'pending'),
    done: path.join(txn, 'done'),
    backups: path.join(txn, 'backups'),
    history: path.join(txn, 'history.jsonl'),
    displaced: path.join(txn, 'displaced'),
  };
}

/**
 * Whether a string is an operation id: a user's (`OPERATION_ID`) or the engine's own
 * (`INTERNAL_OPERATION_ID`, undo). Also whether a `pending/` entry can be an operation
 * folder (skips `.DS_Store` and friends), and what `undo`, `checkpoint` and `tx resolve`
 * accept before they look anything up: an id is a file name, never a path.
 */
export function isOperationId(name: string): boolean {
  return OPERATION_ID.test(name) || INTERNAL_OPERATION_ID.test(name);
}
export const isOperationDirName = isOperationId;

/** First 8 hex digits of the op id's hash: keeps temp names short and fixed-length. */
export function op8(operationId: string): string {
  return crypto.createHash('sha256').update(operationId).digest('hex').slice(0, 8);
}

/** Deterministic temp name for write `n` of an operation, beside its target (a dot-file): the new bytes before they are published. */
export function tempName(name: string, operationId: string, n: number): string {
  return `.${name}.vg-${op8(operationId)}-${String(n).padStart(4, '0')}.tmp`;
}

/** Deterministic name for write `n`'s original, moved aside beside it right before it is replaced, deleted or moved. */
export function asideName(name: string, operationId: string, n: number): string {
  return `.${name}.vg-${op8(operationId)}-${String(n).padStart(4, '0')}.old`;
}

/** A sibling of a disk path: `dir/name` → `dir/` + `make(name)`. */
export function besideDisk(disk: string, make: (name: string) => string): string {
  const slash = disk.lastIndexOf('/');
  return disk.slice(0, slash + 1) + make(disk.slice(slash + 1));
}

/** Vault-relative disk path → absolute path. */
export function abs(root: string, diskRel: string): string {
  return path.join(root, ...diskRel.split('/'));
}
