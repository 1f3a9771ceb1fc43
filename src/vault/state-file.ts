import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';

/**
 * Read a small file of vaultgate's own state in `<vault>/.vaultgate/` (the vault id,
 * the vault config) without following a symbolic link, neither at `.vaultgate`
 * itself nor at the file: a vault cloned from an untrusted place must not make us
 * read (and trust) a file elsewhere. Returns null when the file does not exist.
 */
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
    if (!fs.fstatSync(fd).isFile()) {
      throw new VaultgateError('STATE_CORRUPT', `${rel} is not a regular file`, { path: rel, hint: `Move ${rel} out of the way, then run the command again.` });
    }
    return fs.readFileSync(fd);
  } finally {
    fs.closeSync(fd);
  }
}
