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
