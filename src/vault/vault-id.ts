import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function vaultgateDir(root: string): string {
  return path.join(root, '.vaultgate');
}

/** The vault's id from `.vaultgate/vault-id`, or null when the vault was never initialised. Never writes. */
export function readVaultId(root: string): string | null {
  let text: string;
  try {
    text = fs.readFileSync(path.join(vaultgateDir(root), 'vault-id'), 'utf8').trim();
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  if (!UUID.test(text)) {
    throw new VaultgateError('STATE_CORRUPT', `.vaultgate/vault-id does not hold a UUID`, {
      hint: 'Restore .vaultgate/vault-id from a backup; approvals are bound to it.',
    });
  }
  return text;
}

/**
 * A stable key for the vault's caches. Read commands must not write into the vault,
 * so an uninitialised vault is keyed by its real root path instead of a vault id.
 */
export function vaultCacheKey(root: string): string {
  const id = readVaultId(root);
  if (id) return id;
  return 'path-' + crypto.createHash('sha256').update(root).digest('hex').slice(0, 24);
}

/**
 * Create `.vaultgate/` and its vault id if missing (`vaultgate init`, or the first
 * apply). The id file is published with link() so two racing inits agree on one id.
 */
export function ensureVaultId(root: string): { id: string; created: boolean } {
  const existing = readVaultId(root);
  if (existing) return { id: existing, created: false };
  const dir = vaultgateDir(root);
  fs.mkdirSync(dir, { recursive: true });
  const st = fs.lstatSync(dir);
  if (st.isSymbolicLink() || !st.isDirectory()) {
    throw new VaultgateError('STATE_CORRUPT', '.vaultgate is not a plain folder', {
      hint: 'Remove the .vaultgate symlink or file, then run `vaultgate init`.',
    });
  }
  const id = crypto.randomUUID();
  const tmp = path.join(dir, `.vault-id.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
  const fd = fs.openSync(tmp, 'wx', 0o644);
  try {
    fs.writeSync(fd, id + '\n');
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  try {
    fs.linkSync(tmp, path.join(dir, 'vault-id'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
  } finally {
    fs.unlinkSync(tmp);
  }
  const dfd = fs.openSync(dir, 'r');
  try {
    fs.fsyncSync(dfd);
  } finally {
    fs.closeSync(dfd);
  }
  const id2 = readVaultId(root)!;
  return { id: id2, created: id2 === id };
}
