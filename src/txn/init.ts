import crypto from 'node:crypto';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { predictVaultId, readVaultId, vaultgateDir } from '../vault/index.js';
import { realFsOps, type FsOps } from './fs-ops.js';
import { txnLayout } from './layout.js';
import { fsyncDir } from './durable.js';

export interface InitResult {
  vault_id: string;
  created: boolean;
}

/**
 * Create `.vaultgate/` with the vault id and the txn folders. Idempotent; the id file
 * is published with link() so two racing inits agree on one id.
 */
export function initVault(root: string, ops: FsOps = realFsOps): InitResult {
  const base = vaultgateDir(root);
  const st = ops.lstat(base);
  if (st && (st.isSymbolicLink() || !st.isDirectory())) {
    throw new VaultgateError('STATE_CORRUPT', '.vaultgate is not a plain folder', {
      hint: 'Move the .vaultgate file or symlink away, then run `vaultgate init`.',
    });
  }
  if (!st) mkdirIfMissing(base, ops);
  let created = false;
  let id = readVaultId(root);
  if (!id) {
    id = predictVaultId(root);
    const tmp = path.join(base, `.vault-id.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
    const fd = ops.openExclusive(tmp, 0o644);
    try {
      ops.write(fd, Buffer.from(id + '\n'));
      ops.fsync(fd);
    } finally {
      ops.close(fd);
    }
    try {
      ops.link(tmp, path.join(base, 'vault-id'));
      created = true;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      ops.unlink(tmp);
    }
    fsyncDir(base, ops);
    id = readVaultId(root)!;
  }
  const l = txnLayout(root);
  for (const dir of [l.txn, l.pending, l.done, l.backups]) mkdirIfMissing(dir, ops);
  return { vault_id: id, created };
}

function mkdirIfMissing(dir: string, ops: FsOps): void {
  try {
    ops.mkdir(dir);
    fsyncDir(path.dirname(dir), ops);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
}
