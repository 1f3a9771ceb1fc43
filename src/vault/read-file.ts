import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isVaultgateError, VaultgateError } from '../errors.js';
import type { VaultFile } from './scan.js';
import { locateOnDisk, toVaultRelative } from './vault-path.js';

/** Largest note vaultgate reads as text (bytes). Larger files are refused, not truncated. */
export const MAX_NOTE_BYTES = 64 * 1024 * 1024;

export interface NoteFile {
  /** Canonical vault-relative path. */
  path: string;
  /** Decoded text, without a leading byte-order mark. Offsets count UTF-16 units of this string. */
  text: string;
  /** SHA-256 of the exact bytes on disk (BOM included), lower-case hex. */
  sha256: string;
  /** Size in bytes. */
  size: number;
  /** Whether the bytes started with a UTF-8 byte-order mark (stripped from `text`). */
  bom: boolean;
}

export function sha256Hex(data: string | Uint8Array): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decode bytes as strict UTF-8; a stray byte is an error, never a U+FFFD. */
export function decodeUtf8(bytes: Uint8Array, rel: string): { text: string; bom: boolean } {
  let text: string;
  try {
    text = strictUtf8.decode(bytes);
  } catch {
    throw new VaultgateError('NOT_UTF8', `${rel} is not valid UTF-8`, {
      path: rel,
      hint: 'vaultgate reads notes as UTF-8; re-save the file as UTF-8 (most editors offer this).',
    });
  }
  const bom = text.charCodeAt(0) === 0xfeff;
  return { text: bom ? text.slice(1) : text, bom };
}

/**
 * Read the raw bytes of a vault file without following symlinks, refusing
 * directories, special files and files over `maxBytes`. Read-only: never writes.
 */
export function readVaultBytes(root: string, input: string, maxBytes = MAX_NOTE_BYTES): { path: string; bytes: Buffer } {
  const rel = toVaultRelative(root, input);
  const abs = locateOnDisk(root, rel);
  if (abs === null) {
    throw new VaultgateError('NOT_FOUND', `${rel} does not exist in the vault`, {
      path: rel,
      hint: 'Check the path; `vaultgate search` finds notes by their content.',
    });
  }
  let fd: number;
  try {
    fd = fs.openSync(abs, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'ELOOP') {
      throw new VaultgateError('PATH_SYMLINK', `${rel} is a symbolic link`, { path: rel, hint: 'Use the real path of the file.' });
    }
    throw e;
  }
  try {
    const st = fs.fstatSync(fd);
    if (st.isDirectory()) {
      throw new VaultgateError('NOT_A_FILE', `${rel} is a folder, not a note`, { path: rel, hint: 'Name a file inside it.' });
    }
    if (!st.isFile()) throw new VaultgateError('NOT_A_FILE', `${rel} is not a regular file`, { path: rel });
    if (st.size > maxBytes) {
      throw new VaultgateError('FILE_TOO_LARGE', `${rel} is ${st.size} bytes, over the ${maxBytes}-byte limit`, {
        path: rel,
        details: { size: st.size, limit: maxBytes },
        hint: 'Split the note, or exclude its folder from indexing.',
      });
    }
    return { path: rel, bytes: readOpen(fd, st.size) };
  } finally {
    fs.closeSync(fd);
  }
}

/** Up to `size` bytes of an open file from its start (fewer if it shrank meanwhile). */
export function readOpen(fd: number, size: number): Buffer {
  const bytes = Buffer.alloc(size);
  let off = 0;
  while (off < size) {
    const n = fs.readSync(fd, bytes, off, size - off, off);
    if (n === 0) break;
    off += n;
  }
  return off === size ? bytes : bytes.subarray(0, off);
}

/** A file as the stat walk found it: where it is on disk, and which inode it was. */
export type WalkedFile = Pick<VaultFile, 'path' | 'diskPath' | 'ino' | 'dev'>;

/**
 * {@link readVaultBytes} for a file the stat walk has just found, without
 * checking every folder of its path for a symlink again: the file is opened at
 * the walk's own disk path with O_NOFOLLOW, and its bytes are kept only if the
 * open file is the very inode the walk saw there (same device and inode, a
 * regular file within `maxBytes`). The walk never enters a symlinked folder,
 * so that inode is the vault's file, whatever became of the folders since; and
 * the check is on the open descriptor, so nothing can be swapped in between.
 * Null when anything differs (the file was replaced, a folder moved, an inode
 * number of 0 that proves nothing): the caller reads through readVaultBytes,
 * which checks every component and names what is wrong. A cold index of the
 * 10k synthetic vault made ~3 lstat calls a note for those checks, ~0.2 s of
 * its CPU.
 */
export function readWalkedBytes(root: string, file: WalkedFile, maxBytes = MAX_NOTE_BYTES): Buffer | null {
  if (file.ino === 0) return null;
  let fd: number;
  try {
    fd = fs.openSync(path.join(root, file.diskPath), fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW);
  } catch {
    return null;
  }
  try {
    const st = fs.fstatSync(fd);
    if (!st.isFile() || st.ino !== file.ino || st.dev !== file.dev || st.size > maxBytes) return null;
    return readOpen(fd, st.size);
  } finally {
    fs.closeSync(fd);
  }
}

/** Read a note as text with its hash. See {@link readVaultBytes} for the refusals. */
export function readNoteFile(root: string, input: string, maxBytes = MAX_NOTE_BYTES): NoteFile {
  const { path: rel, bytes } = readVaultBytes(root, input, maxBytes);
  const { text, bom } = decodeUtf8(bytes, rel);
  return { path: rel, text, sha256: sha256Hex(bytes), size: bytes.length, bom };
}

/**
 * `readNoteFile` memoised per path for one pass over many cited places: each
 * note is read once, and a note that cannot be read (gone, moved away, a
 * symlink, over-large) answers with its typed error every time it is asked.
 */
export function noteReader(root: string): (rel: string) => NoteFile | VaultgateError {
  const notes = new Map<string, NoteFile | VaultgateError>();
  return (rel) => {
    let got = notes.get(rel);
    if (got === undefined) {
      try {
        got = readNoteFile(root, rel);
      } catch (e) {
        if (!isVaultgateError(e)) throw e;
        got = e;
      }
      notes.set(rel, got);
    }
    return got;
  };
}
