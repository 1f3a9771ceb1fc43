import fs from 'node:fs';
import path from 'node:path';
import { loadNet } from '../../lazy-require.js';
import { dataRoots } from '../../vault/dirs.js';
import { selectVault } from '../../vault/select-vault.js';
import { BUILD, VERSION } from '../../version.js';
import { verbOf } from '../argv.js';
import { cachedMachineConfig } from './machine-config-cache.js';
import { daemonPaths, isPrivateDir, type DaemonPaths } from './paths.js';
import { PROTOCOL, readLines, send, type ControlRequest, type Reply, type RunRequest } from './protocol.js';

/**
 * The CLI's side of the daemon: before loading anything else, a read command
 * asks the vault's daemon (if one runs) to answer it, and otherwise returns
 * null so the process answers it itself. Kept small on purpose: main.ts loads
 * this module and nothing of the index, SQLite or commander until it knows.
 *
 * Any problem means "answer it yourself": no socket file, a stale socket
 * (nobody listening), a socket or folder not owned by this user, no token, a
 * refusal (another build of vaultgate, another vault, another cache root),
 * no acceptance within {@link ACCEPT_TIMEOUT_MS}, or the connection dropping
 * before the exit code arrived. Nothing reaches stdout before the exit code,
 * so a fallback never prints half an answer.
 */

/** The verbs a daemon answers: reads of the operation table. Writes never go through it. */
export const FORWARDED_VERBS: ReadonlySet<string> = new Set(['search', 'context', 'note', 'resolve', 'links', 'backlinks', 'check']);

/** Connecting and being accepted take a millisecond; a daemon that takes longer is busy or hung, and the process answers itself. */
export const ACCEPT_TIMEOUT_MS = 1500;

type Env = Record<string, string | undefined>;

export interface ForwardIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: Env;
  cwd: string;
  isTTY: boolean;
  stderrIsTTY: boolean;
}

/** The `--vault` value as commander would take it (the last one given), or undefined. */
export function vaultOption(argv: readonly string[]): string | undefined {
  let value: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === '--vault' && i + 1 < argv.length) value = argv[++i];
    else if (a.startsWith('--vault=')) value = a.slice('--vault='.length);
  }
  return value;
}

/**
 * The daemon for the vault this command line selects, when its socket exists:
 * the vault selected as every command selects it (the machine config from the
 * daemon's cached parse), its daemon files under the cache root. Only a socket
 * this user made, in a folder nobody else can enter, is used: another user's
 * would learn the token and could answer anything. Throws on anything unusual;
 * the caller falls back.
 */
export function locateDaemon(argv: readonly string[], env: Env, cwd: string): DaemonPaths | null {
  const { root } = selectVault(vaultOption(argv), env, cwd, cachedMachineConfig);
  const paths = daemonPaths(dataRoots(env).cache, root);
  const st = fs.lstatSync(paths.socket, { throwIfNoEntry: false });
  if (!st) return null;
  const uid = typeof process.getuid === 'function' ? process.getuid() : st.uid;
  if (!st.isSocket() || st.uid !== uid || !isPrivateDir(path.dirname(paths.socket)) || !isPrivateDir(paths.dir)) return null;
  return paths;
}

/**
 * Have the vault's daemon answer this command line. Returns its exit code
 * after writing its output, or null (nothing written to stdout) when the
 * process must answer it itself.
 */
export async function forwardToDaemon(argv: string[], io: ForwardIO): Promise<number | null> {
  if (io.env.VAULTGATE_DAEMON === 'off') return null;
  const verb = verbOf(argv);
  if (verb === null || !FORWARDED_VERBS.has(verb)) return null;
  // `--consent` asks the person on this process's terminal: the daemon has none.
  if (argv.some((a) => a === '--consent' || a.startsWith('--consent='))) return null;
  let paths: DaemonPaths | null;
  let token: string;
  try {
    paths = locateDaemon(argv, io.env, io.cwd);
    if (!paths) return null;
    token = fs.readFileSync(paths.token, 'utf8').trim();
  } catch {
    return null;
  }
  const request: RunRequest = {
    t: 'run',
    v: PROTOCOL,
    version: VERSION,
    build: BUILD,
    token,
    argv,
    cwd: io.cwd,
    env: io.env,
    isTTY: io.isTTY,
    stderrIsTTY: io.stderrIsTTY,
  };
  return new Promise((resolve) => {
    const out: string[] = [];
    let settled = false;
    const socket = loadNet().createConnection(paths.socket);
    const finish = (code: number | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      if (code !== null) io.stdout(out.join(''));
      resolve(code);
    };
    const timer = setTimeout(() => finish(null), ACCEPT_TIMEOUT_MS);
    socket.on('connect', () => send(socket, request));
    socket.on('error', () => finish(null));
    socket.on('close', () => finish(null));
    let accepted = false;
    readLines(
      socket,
      (line) => {
        let reply: Reply;
        try {
          reply = JSON.parse(line) as Reply;
        } catch {
          return finish(null);
        }
        if (!accepted) {
          if (reply.t !== 'accept') return finish(null);
          accepted = true;
          // Accepted: the answer may take as long as the command takes in-process.
          clearTimeout(timer);
          return;
        }
        if (reply.t === 'out') out.push(reply.d);
        else if (reply.t === 'err') io.stderr(reply.d);
        else if (reply.t === 'exit') finish(reply.code);
        else finish(null);
      },
      Number.MAX_SAFE_INTEGER,
      () => finish(null),
    );
  });
}

/** What came of a control request. */
export type ControlOutcome =
  | { state: 'answered'; reply: Reply }
  /** No socket file. */
  | { state: 'absent' }
  /** A socket file nobody listens on: a daemon that was killed. */
  | { state: 'stale' }
  /** Someone listens but did not answer in time, or refused our token. */
  | { state: 'unresponsive'; why: string };

/** Send a control request (status, ping, stop) to a daemon. */
export function controlDaemon(paths: DaemonPaths, t: ControlRequest['t'], timeoutMs = ACCEPT_TIMEOUT_MS): Promise<ControlOutcome> {
  if (!fs.existsSync(paths.socket)) return Promise.resolve({ state: 'absent' });
  let token: string;
  try {
    token = fs.readFileSync(paths.token, 'utf8').trim();
  } catch {
    token = '';
  }
  return new Promise((resolve) => {
    let done = false;
    let connected = false;
    const socket = loadNet().createConnection(paths.socket);
    const finish = (r: ControlOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(r);
    };
    const timer = setTimeout(() => finish({ state: 'unresponsive', why: `no answer within ${timeoutMs} ms` }), timeoutMs);
    socket.on('connect', () => {
      connected = true;
      send(socket, { t, v: PROTOCOL, token });
    });
    socket.on('error', (e: NodeJS.ErrnoException) => {
      if (!connected && (e.code === 'ECONNREFUSED' || e.code === 'ENOENT')) finish(fs.existsSync(paths.socket) ? { state: 'stale' } : { state: 'absent' });
      else finish({ state: 'unresponsive', why: e.message });
    });
    socket.on('close', () => finish({ state: 'unresponsive', why: 'the connection closed without an answer' }));
    readLines(
      socket,
      (line) => {
        try {
          const reply = JSON.parse(line) as Reply;
          finish(reply.t === 'refuse' ? { state: 'unresponsive', why: `refused: ${reply.reason}` } : { state: 'answered', reply });
        } catch {
          finish({ state: 'unresponsive', why: 'an answer that is not JSON' });
        }
      },
      2 ** 20,
      () => finish({ state: 'unresponsive', why: 'an answer too long' }),
    );
  });
}
