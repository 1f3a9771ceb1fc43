import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where one vault's daemon lives: beside its index, under the cache root (DESIGN §3). */
export interface DaemonPaths {
  /** `<cache>/<vault key>/`: the index's folder. */
  dir: string;
  /** The Unix domain socket (mode 0600). */
  socket: string;
  /** A random token (mode 0600): a client proves it may read this user's files by reading it. */
  token: string;
  /** pid, start time, vault, build: what `daemon status` and `stop` need when the daemon does not answer. */
  info: string;
  /** The detached daemon's stdout and stderr. */
  log: string;
}

/**
 * Linux limits a socket path to 107 bytes (sun_path). A cache root deep enough
 * to exceed it gets a short socket in a private folder under the temp dir
 * instead, named by a hash of the vault's cache folder.
 */
const MAX_SOCKET_PATH = 100;

export function daemonPaths(cacheRoot: string, vaultKey: string): DaemonPaths {
  const dir = path.join(cacheRoot, vaultKey);
  let socket = path.join(dir, 'daemon.sock');
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) {
    const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
    socket = path.join(os.tmpdir(), `vaultgate-${uid}`, `${crypto.createHash('sha256').update(dir).digest('hex').slice(0, 24)}.sock`);
  }
  return { dir, socket, token: path.join(dir, 'daemon.token'), info: path.join(dir, 'daemon.json'), log: path.join(dir, 'daemon.log') };
}

/**
 * Make the socket's folder when it is the private temp folder: created 0700,
 * and refused unless it is a real folder owned by this user that nobody else
 * can enter (another user could otherwise put their own socket there first).
 */
export function ensureSocketDir(socket: string, indexDir: string): void {
  const dir = path.dirname(socket);
  if (dir === indexDir) {
    fs.mkdirSync(dir, { recursive: true });
    return;
  }
  fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
  const st = fs.lstatSync(dir);
  const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
  if (!st.isDirectory() || st.uid !== uid || (st.mode & 0o077) !== 0) {
    throw new Error(`${dir} must be a folder owned by this user with mode 0700`);
  }
}
