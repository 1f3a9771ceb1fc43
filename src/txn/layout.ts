import crypto from 'node:crypto';
import path from 'node:path';
import { vaultgateDir } from '../vault/index.js';
import { OPERATION_ID } from './limits.js';

/**
 * Where the engine keeps its state inside `<vault>/.vaultgate/` (DESIGN §3):
 *
 * ```
 * .vaultgate/lock/owner.json            the vault lock (a directory: mkdir/rename are atomic)
 * .vaultgate/txn/pending/<op>/          one folder per unfinished operation: intent.json, b<i> backups,
 *                                       quarantine.json when recovery found someone else's edit
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

/** Whether a `pending/` entry can be an operation folder (skips `.DS_Store` and friends). */
export function isOperationDirName(name: string): boolean {
  return OPERATION_ID.test(name) || /^undo-[A-Za-z0-9._-]{1,200}$/.test(name);
}

/** First 8 hex digits of the op id's hash: keeps temp names short and fixed-length. */
export function op8(operationId: string): string {
  return crypto.createHash('sha256').update(operationId).digest('hex').slice(0, 8);
}

/** Deterministic temp name for write `n` of an operation, beside its target (a dot-file). */
export function tempName(name: string, operationId: string, n: number): string {
  return `.${name}.vg-${op8(operationId)}-${String(n).padStart(4, '0')}.tmp`;
}

/** Vault-relative disk path → absolute path. */
export function abs(root: string, diskRel: string): string {
  return path.join(root, ...diskRel.split('/'));
}
