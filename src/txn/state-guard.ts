import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import type { FsOps } from './fs-ops.js';
import { txnLayout } from './layout.js';

/**
 * The engine's own runtime paths (`.vaultgate/…`) get the confinement the vault's
 * paths get: never through a symbolic link. A vault synced or cloned from an
 * untrusted place can carry a link at `.vaultgate/txn/pending`, and following it
 * would put the journal, folders and hard links of notes outside the vault.
 *
 * - {@link checkStateLayout}: before anything else, every fixed entry of the layout
 *   that exists is what it should be (a folder, or a file), not a link;
 * - {@link guardOps}: during the command, every call on a path under `.vaultgate/`
 *   first checks each folder on the way (and for a folder listing, the folder
 *   itself); every mutating call first checks that the vault folder is still the
 *   one the command started in (a vault renamed or replaced mid-apply stops it).
 */
const corrupt = (root: string, abs: string, why: string) => {
  const rel = path.relative(root, abs).split(path.sep).join('/');
  let target = '';
  try {
    target = ` → ${fs.readlinkSync(abs)}`;
  } catch {
    /* not a link, or gone */
  }
  return new VaultgateError('STATE_CORRUPT', `${rel} is ${why}${target}: vaultgate never follows links in its own state`, {
    path: rel,
    hint: `Move ${rel} out of the way (it did not come from vaultgate), then run the command again. See docs/guarantees.md.`,
  });
};

function expect(root: string, abs: string, kind: 'dir' | 'file', ops: FsOps): void {
  const st = ops.lstat(abs);
  if (!st) return;
  if (st.isSymbolicLink()) throw corrupt(root, abs, 'a symbolic link');
  if (kind === 'dir' && !st.isDirectory()) throw corrupt(root, abs, 'not a folder');
  if (kind === 'file' && !st.isFile()) throw corrupt(root, abs, 'not a regular file');
}

/** Refuse a layout with a link (or a file where a folder belongs) at any of its fixed entries. Read-only. */
export function checkStateLayout(root: string, ops: FsOps): void {
  const l = txnLayout(root);
  for (const dir of [l.base, l.txn, l.pending, l.done, l.backups, l.displaced, l.lock]) expect(root, dir, 'dir', ops);
  // (lock/owner.json is not listed: an unreadable owner record is judged by the lock, stale after its TTL)
  for (const file of [l.history, path.join(l.base, 'vault-id'), path.join(l.base, 'config.yaml')]) expect(root, file, 'file', ops);
}

/**
 * A `pending/` entry named like an operation that is a symbolic link: planted where
 * an operation's journal would be. Listing code calls this before skipping entries
 * that are not folders, so a link stops the command instead of being ignored (a
 * stray plain file, `notes.txt`, is still ignored and left alone).
 */
export function checkPendingEntry(root: string, dir: string, ops: FsOps): void {
  if (ops.lstat(dir)?.isSymbolicLink()) throw corrupt(root, dir, 'a symbolic link');
}

/** Device and inode of the folder a vault path names now (it may be a symlink to the vault: followed, on purpose). */
export function rootIdentity(root: string): { dev: string; ino: string } | null {
  try {
    const st = fs.statSync(root, { bigint: true });
    return { dev: String(st.dev), ino: String(st.ino) };
  } catch {
    return null;
  }
}

const MUTATING = ['openExclusive', 'rename', 'link', 'unlink', 'mkdir', 'rmdir', 'openAppend'] as const;
const READING = ['openRead', 'openDir', 'readFile', 'readFileBounded', 'readdir'] as const;

/** Wrap `ops` so that state paths are never reached through a link and the vault folder cannot change under us. */
export function guardOps(root: string, ops: FsOps): FsOps {
  const base = txnLayout(root).base;
  const id = rootIdentity(root);
  const inState = (p: string) => p.startsWith(base + path.sep);
  /** Every folder from `.vaultgate` down to the parent of `p` (and `p` itself when `self`) is a real folder. */
  const checkState = (p: string, self: boolean) => {
    const parts = path.relative(base, p).split(path.sep);
    let cur = base;
    const upto = self ? parts.length : parts.length - 1;
    expect(root, cur, 'dir', ops);
    for (let n = 0; n < upto; n++) {
      cur = path.join(cur, parts[n] ?? '');
      expect(root, cur, 'dir', ops);
    }
  };
  const checkRoot = () => {
    const now = rootIdentity(root);
    if (!id || !now || now.dev !== id.dev || now.ino !== id.ino) {
      throw new VaultgateError('INTEGRITY', `the vault folder ${root} was moved or replaced while vaultgate worked in it`, {
        details: { vault_moved: true },
        hint: 'Nothing more was written through that path. Run `vaultgate --vault <folder> tx recover` in the folder that holds the interrupted operation (.vaultgate/txn/pending/).',
      });
    }
  };
  const guarded: FsOps = { ...ops };
  const wrap = (key: (typeof MUTATING)[number] | (typeof READING)[number], mutating: boolean) => {
    const fn = ops[key] as (...a: unknown[]) => unknown;
    (guarded as unknown as Record<string, unknown>)[key] = (...args: unknown[]) => {
      if (mutating) checkRoot();
      for (const a of args) {
        if (typeof a === 'string' && inState(a)) checkState(a, key === 'readdir' || key === 'openDir');
      }
      return fn(...args);
    };
  };
  for (const key of MUTATING) wrap(key, true);
  for (const key of READING) wrap(key, false);
  return guarded;
}
