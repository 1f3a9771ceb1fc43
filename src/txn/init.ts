import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { readVaultId, vaultgateDir } from '../vault/index.js';
import { realFsOps, type FsOps } from './fs-ops.js';
import { txnLayout } from './layout.js';
import { fsyncDir } from './durable.js';

/**
 * Vault identity for approvals.
 *
 * `tx inspect` writes nothing, yet `tx apply` initialises the vault implicitly, and
 * an approval hash must not change between the two. So an uninitialised vault's
 * identity is *predicted*: a UUID-shaped digest of the root's real path, device,
 * inode and birth time; `vaultgate init` (and the first apply) writes exactly that
 * id. Inspect before init and inspect after init therefore agree. Once written the
 * id is just a file: copying the vault copies it, and a vault initialised by some
 * other tool with a random UUID keeps that UUID.
 */
export function predictVaultId(root: string): string {
  const st = fs.statSync(root, { bigint: true });
  const digest = crypto
    .createHash('sha256')
    .update(`vaultgate.vault-id.v1\0${fs.realpathSync(root)}\0${st.dev}\0${st.ino}\0${st.birthtimeNs}`)
    .digest('hex');
  // RFC 9562 layout, version 8 ("custom"), RFC variant: honest about being derived
  const v = (0x8000 | (parseInt(digest.slice(12, 16), 16) & 0x0fff)).toString(16);
  const r = (0x8000 | (parseInt(digest.slice(16, 20), 16) & 0x3fff)).toString(16);
  return `${digest.slice(0, 8)}-${digest.slice(8, 12)}-${v}-${r}-${digest.slice(20, 32)}`;
}

/** The id approvals bind to: the stored id, or the one init would store. Never writes. */
export function vaultIdentity(root: string): { vault_id: string; initialised: boolean } {
  const id = readVaultId(root);
  return id ? { vault_id: id, initialised: true } : { vault_id: predictVaultId(root), initialised: false };
}

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
