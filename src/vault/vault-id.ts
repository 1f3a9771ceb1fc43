import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { rememberedPrediction } from './predicted-id-cache.js';
import { readStateFile } from './state-file.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

export function vaultgateDir(root: string): string {
  return path.join(root, '.vaultgate');
}

/** The vault's id from `.vaultgate/vault-id`, or null when the vault was never initialised. Never writes. */
export function readVaultId(root: string): string | null {
  const raw = readStateFile(root, 'vault-id');
  if (raw === null) return null;
  const text = raw.trim();
  if (!UUID.test(text)) {
    throw new VaultgateError('STATE_CORRUPT', `.vaultgate/vault-id does not hold a UUID`, {
      hint: 'Restore .vaultgate/vault-id from a backup; approvals are bound to it.',
    });
  }
  return text;
}

/**
 * The id an uninitialised vault will get. Read commands and `tx inspect` write
 * nothing, yet `init` (or the first apply) must give the vault the id they already
 * used, so that an approval hash and the index cache key survive initialisation.
 * So the id is *predicted*: a UUID-shaped digest of the root's real path, device,
 * inode and birth time. Once written it is just a file: copying the vault copies it.
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

/** The id approvals and caches bind to: the stored id, or the one init would store. Never writes. */
export function vaultIdentity(root: string): { vault_id: string; initialised: boolean } {
  const id = readVaultId(root);
  return id ? { vault_id: id, initialised: true } : { vault_id: predictVaultId(root), initialised: false };
}

/**
 * The folder name of the vault's caches (the index): its id, stored or
 * predicted. With `env`, a predicted id comes through the cache root's memory
 * of it (predicted-id-cache.ts), so a read of an uninitialised vault does not
 * load node:crypto: only for the index, which writes under the cache root
 * anyway (reads of the stores under the data root create nothing, so they
 * predict the id each time).
 */
export function vaultCacheKey(root: string, env?: Record<string, string | undefined>): string {
  if (env === undefined) return vaultIdentity(root).vault_id;
  return readVaultId(root) ?? rememberedPrediction(root, env, predictVaultId);
}
