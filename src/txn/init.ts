import crypto from 'node:crypto';
import path from 'node:path';
import { predictVaultId, readVaultId, vaultgateDir } from '../vault/index.js';
import { fsyncDir } from './durable.js';
import { realFsOps, rethrowIfCrash, type FsOps } from './fs-ops.js';
import { txnLayout } from './layout.js';
import { checkStateLayout } from './state-guard.js';

export interface InitResult {
  vault_id: string;
  created: boolean;
}

/**
 * Create `.vaultgate/` with the vault id and the txn folders. Idempotent; the id file
 * is published with link() so two racing inits agree on one id. A link (or a file)
 * where one of those folders belongs is STATE_CORRUPT, never followed: folders are
 * made parent first, and each is checked before anything is made inside it.
 */
export function initVault(root: string, ops: FsOps = realFsOps): InitResult {
  checkStateLayout(root, ops);
  const base = vaultgateDir(root);
  mkdirIfMissing(root, base, ops);
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
      rethrowIfCrash(e);
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    } finally {
      ops.unlink(tmp);
    }
    fsyncDir(base, ops);
    id = readVaultId(root) ?? id;
  }
  const l = txnLayout(root);
  for (const dir of [l.txn, l.pending, l.done, l.backups]) mkdirIfMissing(root, dir, ops);
  writeGitignoreIfMissing(base, ops);
  return { vault_id: id, created };
}

/**
 * A vault under git stays clean: the lock and the transaction folder (journals,
 * backups holding copies of notes, the operation history) are this machine's
 * runtime state and are ignored; `vault-id`, `config.yaml` and `scenarios/` are
 * the vault's own settings and stay versionable. Written only when absent: a
 * person's own .gitignore here is never replaced.
 */
export const VAULTGATE_GITIGNORE = '# vaultgate runtime state of this machine (journals, backups, lock): not for version control\nlock/\ntxn/\n*.tmp\n';

function writeGitignoreIfMissing(base: string, ops: FsOps): void {
  let fd: number;
  try {
    fd = ops.openExclusive(path.join(base, '.gitignore'), 0o644);
  } catch (e) {
    rethrowIfCrash(e);
    if ((e as NodeJS.ErrnoException).code === 'EEXIST') return;
    throw e;
  }
  try {
    ops.write(fd, Buffer.from(VAULTGATE_GITIGNORE));
    ops.fsync(fd);
  } finally {
    ops.close(fd);
  }
  fsyncDir(base, ops);
}

function mkdirIfMissing(root: string, dir: string, ops: FsOps): void {
  try {
    ops.mkdir(dir);
    fsyncDir(path.dirname(dir), ops);
  } catch (e) {
    rethrowIfCrash(e);
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  }
  // whatever exists there now (made by us or a racing init, or planted) must be a real folder
  checkStateLayout(root, ops);
}
