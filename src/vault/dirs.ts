import fs from 'node:fs';
import os from 'node:os';
import { VaultgateError } from '../errors.js';
import path from 'node:path';

/** Where vaultgate keeps things outside the vault (DESIGN §3). */
export interface DataRoots {
  /** machine config, scenarios */
  config: string;
  /** disposable: the index */
  cache: string;
  /** not a cache: proposals, audit, consent, state */
  data: string;
}

type Env = Record<string, string | undefined>;

/**
 * The three XDG roots, each with a `vaultgate` folder inside. `VAULTGATE_HOME`
 * overrides all three at once so a test can confine everything to one folder.
 */
export function dataRoots(env: Env = process.env): DataRoots {
  const home = env.VAULTGATE_HOME;
  if (home) {
    const base = path.resolve(home);
    if (fs.statSync(base, { throwIfNoEntry: false })?.isDirectory() === false) {
      throw new VaultgateError('CONFIG_INVALID', `VAULTGATE_HOME=${home} is not a folder`, {
        hint: 'Point VAULTGATE_HOME at a folder (it is created if missing), or unset it to use the XDG folders.',
      });
    }
    return { config: path.join(base, 'config'), cache: path.join(base, 'cache'), data: path.join(base, 'data') };
  }
  const userHome = env.HOME || os.homedir();
  const xdg = (name: string, fallback: string) => {
    const v = env[name];
    // The XDG spec says relative values are invalid and must be ignored.
    return v && path.isAbsolute(v) ? v : path.join(userHome, fallback);
  };
  return {
    config: path.join(xdg('XDG_CONFIG_HOME', '.config'), 'vaultgate'),
    cache: path.join(xdg('XDG_CACHE_HOME', '.cache'), 'vaultgate'),
    data: path.join(xdg('XDG_DATA_HOME', '.local/share'), 'vaultgate'),
  };
}

/**
 * A folder of vaultgate's own under one of the roots above (`root`: that root),
 * private to this user: created 0700 (missing parents too), and every folder from
 * `dir` up to `root` that is this user's and open to others (made by an older
 * version under a 0022 umask) tightened to 0700. These hold the text of every
 * note (the index), proposals and working state: in a home other users may
 * enter (0755, common), the folder's mode is what keeps them out (issue #20
 * class 9). Folders of another owner are left alone (a shared VAULTGATE_HOME is
 * the person's choice).
 */
export function privateDir(dir: string, root: string): void {
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const uid = process.getuid?.();
  const stop = path.resolve(root);
  for (let d = path.resolve(dir); ; d = path.dirname(d)) {
    const st = fs.statSync(d, { throwIfNoEntry: false });
    if (st?.isDirectory() && (st.mode & 0o077) !== 0 && st.uid === uid) fs.chmodSync(d, st.mode & 0o700);
    if (d === stop || path.dirname(d) === d || !d.startsWith(stop)) break;
  }
}

/**
 * A SQLite file of vaultgate's own, and its -wal and -shm, readable and writable
 * by this user only. SQLite creates a database with 0644 under a 0022 umask and
 * gives its -wal and -shm the database's mode, so the database is tightened as
 * soon as it is open (inside a {@link privateDir}, nobody else could reach it in
 * between), and files an older version left open are tightened too.
 */
export function privateFile(file: string): void {
  const uid = process.getuid?.();
  for (const f of [file, `${file}-wal`, `${file}-shm`]) {
    const st = fs.statSync(f, { throwIfNoEntry: false });
    if (st?.isFile() && (st.mode & 0o077) !== 0 && st.uid === uid) fs.chmodSync(f, st.mode & 0o600);
  }
}

/**
 * Write a file of vaultgate's own (under the roots above), readable by this user
 * only: to a temporary file beside it, then renamed into place, so a reader
 * never sees half of one; its folder is created (0700) when missing. No fsync:
 * these are caches and daemon records, rebuilt or rewritten when lost.
 */
export function writePrivateFile(file: string, data: string | NodeJS.ArrayBufferView): void {
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, data, { mode: 0o600 });
  fs.renameSync(tmp, file);
}
