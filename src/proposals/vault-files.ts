import { isVaultgateError, VaultgateError } from '../errors.js';
import { decodeUtf8, normalizeVaultPath, readVaultBytes, sha256Hex } from '../vault/index.js';

/**
 * A touched file as it is on disk now: its hash and, when it is UTF-8, its text
 * (a leading U+FEFF stands for a byte-order mark, so text and bytes round-trip).
 */
export interface CurrentFile {
  sha256: string;
  bytes: Buffer;
  /** null when the bytes are not UTF-8. */
  text: string | null;
}

/** The file's bytes now, or null when it does not exist. Symlinks, folders and over-large files are typed errors. */
function currentBytes(root: string, rel: string): Buffer | null {
  try {
    return readVaultBytes(root, normalizeVaultPath(rel)).bytes;
  } catch (e) {
    if (isVaultgateError(e) && e.code === 'NOT_FOUND') return null;
    throw e;
  }
}

/** The file now, or null when it does not exist. Symlinks, folders and over-large files are typed errors. */
export function readCurrent(root: string, rel: string): CurrentFile | null {
  const bytes = currentBytes(root, rel);
  if (bytes === null) return null;
  let text: string | null = null;
  try {
    const d = decodeUtf8(bytes, rel);
    text = (d.bom ? '\ufeff' : '') + d.text;
  } catch (e) {
    if (!isVaultgateError(e)) throw e;
  }
  return { sha256: sha256Hex(bytes), bytes, text };
}

/** The hash of what {@link readCurrent} reads, without decoding it (a base check compares hashes only); null: no file. */
export function currentSha256(root: string, rel: string): string | null {
  const bytes = currentBytes(root, rel);
  return bytes === null ? null : sha256Hex(bytes);
}

/** STALE_HASH for a base that is not what the vault holds. */
export function staleBase(rel: string, base: string | null, actual: string | null, when: 'propose' | 'review'): VaultgateError {
  const found = actual === null ? 'it does not exist' : `it is ${actual}`;
  const expected = base === null ? 'not to exist (a new note)' : `to be ${base}`;
  return new VaultgateError('STALE_HASH', `${rel} changed since it was read: the ${when === 'propose' ? 'proposal' : 'review'} expects it ${expected}, but ${found}`, {
    path: rel,
    details: { expected: base, actual },
    hint: 'Re-read the note (`vaultgate note PATH` prints its sha256), make the change on that text, and propose again with that hash as --base.',
  });
}
