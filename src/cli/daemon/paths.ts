import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

/** Where one vault's daemon lives: a private folder under the cache root (DESIGN §3). */
export interface DaemonPaths {
  /** `<cache>/daemons/`, mode 0700. */
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
 * to exceed it gets a short socket in a private folder under the temp dir.
 */
const MAX_SOCKET_PATH = 100;

/**
 * The daemon files of the vault at `root` (its real path). Named by a 64-bit
 * FNV-1a hash of the cache root and the vault root: the CLI finds them without
 * reading the vault id or loading node:crypto (~10-30 ms of a process start).
 * A collision could only make a daemon refuse a command (it checks the vault
 * of every request), never answer for the wrong vault.
 */
export function daemonPaths(cacheRoot: string, root: string): DaemonPaths {
  const dir = path.join(cacheRoot, 'daemons');
  const name = fnv1a64(`${cacheRoot}\0${root}`);
  let socket = path.join(dir, `${name}.sock`);
  if (Buffer.byteLength(socket) > MAX_SOCKET_PATH) {
    const uid = typeof process.getuid === 'function' ? process.getuid() : 0;
    socket = path.join(os.tmpdir(), `vaultgate-${uid}`, `${name}.sock`);
  }
  return { dir, socket, token: path.join(dir, `${name}.token`), info: path.join(dir, `${name}.json`), log: path.join(dir, `${name}.log`) };
}

function fnv1a64(text: string): string {
  let h = 0xcbf29ce484222325n;
  for (const byte of Buffer.from(text)) h = ((h ^ BigInt(byte)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

/**
 * Whether a folder is private to this user: a real folder (not a symlink) it
 * owns that nobody else can enter. The daemon's folders must be: another user
 * able to put a socket there could learn the token and answer anything.
 */
export function isPrivateDir(dir: string): boolean {
  const st = fs.lstatSync(dir, { throwIfNoEntry: false });
  const uid = typeof process.getuid === 'function' ? process.getuid() : st?.uid;
  return st !== undefined && st.isDirectory() && st.uid === uid && (st.mode & 0o077) === 0;
}

/** Make the daemon's folders (0700) and refuse to go on unless they are private. */
export function ensurePrivateDirs(p: DaemonPaths): void {
  for (const dir of new Set([p.dir, path.dirname(p.socket)])) {
    fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (!isPrivateDir(dir)) throw new Error(`${dir} must be a folder owned by this user with mode 0700`);
  }
}
