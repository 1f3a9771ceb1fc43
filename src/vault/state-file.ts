import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';

/**
 * Read a small file of vaultgate's own state in `<vault>/.vaultgate/` (the vault id,
 * the vault config) without following a symbolic link, neither at `.vaultgate`
 * itself nor at the file: a vault cloned from an untrusted place must not make us
 * read (and trust) a file elsewhere. Returns null when the file does not exist.
 */
/** Largest `.vaultgate/vault-id` or `config.yaml` read: 1 MiB is fine, one byte more is STATE_CORRUPT (a real one is a few KB). */
export const MAX_VAULT_STATE_FILE_BYTES = 1024 * 1024;

export function readStateFile(root: string, name: string): string | null {
  return readStateBytes(root, name)?.toString('utf8') ?? null;
}

/** {@link readStateFile}, as bytes. */
export function readStateBytes(root: string, name: string): Buffer | null {
  const base = path.join(root, '.vaultgate');
  const rel = `.vaultgate/${name}`;
  const corrupt = (what: string) =>
    new VaultgateError('STATE_CORRUPT', `${what} is a symbolic link: vaultgate never follows links in its own state`, {
      path: what,
      hint: `Move ${what} out of the way (it did not come from vaultgate), then run the command again.`,
    });
  let st: fs.Stats;
  try {
    st = fs.lstatSync(base);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  if (st.isSymbolicLink()) throw corrupt('.vaultgate');
  let fd: number;
  try {
    fd = fs.openSync(path.join(base, name), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return null;
    if (code === 'ELOOP') throw corrupt(rel);
    throw e;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile()) {
      throw new VaultgateError('STATE_CORRUPT', `${rel} is not a regular file`, { path: rel, hint: `Move ${rel} out of the way, then run the command again.` });
    }
    // bounded like every input: at most one byte past the bound is ever read (sized by fstat; grown if the file grew)
    let buf = Buffer.allocUnsafe(Math.min(st.size, MAX_VAULT_STATE_FILE_BYTES) + 1);
    let n = 0;
    for (;;) {
      if (n === buf.length) {
        if (buf.length > MAX_VAULT_STATE_FILE_BYTES) break;
        const bigger = Buffer.allocUnsafe(Math.min(buf.length * 2, MAX_VAULT_STATE_FILE_BYTES + 1));
        buf.copy(bigger, 0, 0, n);
        buf = bigger;
      }
      const got = fs.readSync(fd, buf, n, buf.length - n, null);
      if (got === 0) break;
      n += got;
    }
    if (n > MAX_VAULT_STATE_FILE_BYTES) {
      throw new VaultgateError('STATE_CORRUPT', `${rel} is over the ${MAX_VAULT_STATE_FILE_BYTES}-byte bound for vaultgate's own files in .vaultgate/; it was not read`, {
        path: rel,
        details: { file: rel, limit: MAX_VAULT_STATE_FILE_BYTES },
        hint: `vaultgate never writes one that large and a real ${name} is a few kilobytes: move ${rel} out of the way (keep a copy to look at), then run the command again.`,
      });
    }
    return Buffer.from(buf.subarray(0, n));
  } finally {
    fs.closeSync(fd);
  }
}
