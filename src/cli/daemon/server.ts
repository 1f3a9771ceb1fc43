import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { VaultgateError } from '../../errors.js';
import { BackgroundEmbedder } from '../../wing/dense/index.js';
import { VaultSession, type Freshness } from '../../session/index.js';
import { dataRoots, fileStamp, selectVault, writePrivateFile } from '../../vault/index.js';
import type { runCli } from '../run-cli.js';
import { BUILD, VERSION } from '../../version.js';
import { verbOf } from '../argv.js';
import { controlDaemon, FORWARDED_VERBS, vaultOption } from './client.js';
import { rememberMachineConfig } from './machine-config-cache.js';
import { daemonPaths, ensurePrivateDirs } from './paths.js';
import { startLockOf, takeStartLock } from './start-lock.js';
import { MAX_REQUEST_BYTES, PROTOCOL, readLines, send, type DaemonInfo, type Request, type RunRequest } from './protocol.js';

type Env = Record<string, string | undefined>;

export interface DaemonOptions {
  vault: string | undefined;
  env: Env;
  cwd: string;
  freshness: Freshness;
  /** Walk the vault at least this often (the watcher's safety net; on a network filesystem, the bound on staleness). */
  walkIntervalMs: number;
  /** A line for the daemon's log (its stderr). */
  log: (line: string) => void;
  /** The CLI that answers each request, handed in by the CLI that started the daemon (importing it here would close a cycle). */
  runCli: typeof runCli;
}

/** How often the daemon checks that its vault, its socket and its build are still there. */
const HOUSEKEEPING_MS = 1000;

/** What the request handlers share: the open session, the socket's files, and the queue commands run in. */
interface DaemonState {
  readonly opts: DaemonOptions;
  readonly session: VaultSession;
  readonly root: string;
  readonly cacheRoot: string;
  readonly paths: ReturnType<typeof daemonPaths>;
  readonly token: string;
  readonly startedAt: Date;
  readonly embedder: BackgroundEmbedder;
  /** Commands run one at a time, in arrival order (and the idle walks between them). */
  queue: Promise<void>;
  requests: number;
  stopping: boolean;
  shutdown(reason: string): Promise<void>;
}

/**
 * What the daemon does with each kind of request, once its token matched:
 * status and ping are answered at once, stop stops, run queues a command.
 */
const REQUEST_HANDLERS: { [T in Request['t']]: (d: DaemonState, socket: net.Socket, request: Extract<Request, { t: T }>) => void } = {
  ping: answerStatus,
  status: answerStatus,
  stop: answerStop,
  run: acceptRun,
};

function daemonInfo(d: DaemonState): DaemonInfo {
  return {
    pid: process.pid,
    vault: d.root,
    socket: d.paths.socket,
    started_at: d.startedAt.toISOString(),
    uptime_s: Math.round((Date.now() - d.startedAt.getTime()) / 1000),
    version: VERSION,
    build: BUILD,
    requests: d.requests,
    freshness: d.session.freshness() ?? { mode: 'walk', reason: 'freshness: walk' },
    read_pool: d.session.readPool(),
    embeddings: d.embedder.status(),
  };
}

function answerStatus(d: DaemonState, socket: net.Socket): void {
  send(socket, { t: 'status', ...daemonInfo(d) });
  socket.end();
}

function answerStop(d: DaemonState, socket: net.Socket): void {
  send(socket, { t: 'stopping', pid: process.pid });
  socket.end();
  void d.shutdown('daemon stop');
}

/** A command: refused (the client runs it itself) or accepted and queued. */
function acceptRun(d: DaemonState, socket: net.Socket, request: RunRequest): void {
  const refusal = d.stopping ? 'stopping' : refuse(request, d.root, d.cacheRoot);
  if (refusal) {
    send(socket, { t: 'refuse', reason: refusal });
    socket.end();
    return;
  }
  send(socket, { t: 'accept' });
  d.queue = d.queue.then(() => runCommand(d, socket, request)).catch((e: unknown) => d.opts.log(`request failed: ${(e as Error)?.stack ?? String(e)}`));
}

/** Runs an accepted command through runCli, its output streamed back on the socket. */
async function runCommand(d: DaemonState, socket: net.Socket, request: RunRequest): Promise<void> {
  if (socket.destroyed) return;
  const own: VaultSession[] = [];
  const code = await d.opts.runCli(request.argv, {
    stdout: (s) => send(socket, { t: 'out', d: s }),
    stderr: (s) => send(socket, { t: 'err', d: s }),
    env: request.env,
    cwd: request.cwd,
    isTTY: request.isTTY,
    stderrIsTTY: request.stderrIsTTY,
    // The shared session when the command selects this vault (it does: `refuse` checked); otherwise one of its own, as in-process.
    session: (vault) => {
      if (selectVault(vault, request.env, request.cwd).root === d.root) return d.session;
      const mine = VaultSession.open({ vault, env: request.env, cwd: request.cwd });
      own.push(mine);
      return mine;
    },
    settle: () => d.session.settle(),
  });
  for (const s of own) await s.close();
  d.requests++;
  send(socket, { t: 'exit', code });
  socket.end();
}

/** A new connection: its first line is the request (within 5 s); a wrong token is refused. */
function acceptConnection(d: DaemonState, socket: net.Socket): void {
  let seen = false;
  socket.on('error', () => socket.destroy());
  socket.setTimeout(5000, () => {
    if (!seen) socket.destroy();
  });
  readLines(
    socket,
    (line) => {
      if (seen) return;
      seen = true;
      socket.setTimeout(0);
      let request: Request;
      try {
        request = JSON.parse(line) as Request;
      } catch {
        return socket.destroy();
      }
      if (!sameToken(request?.token, d.token)) {
        send(socket, { t: 'refuse', reason: 'token' });
        socket.end();
        return;
      }
      // own keys only: a request's `t` of "toString" is no handler
      if (!Object.hasOwn(REQUEST_HANDLERS, request.t)) return void socket.destroy();
      (REQUEST_HANDLERS[request.t] as (d: DaemonState, socket: net.Socket, request: Request) => void)(d, socket, request);
    },
    MAX_REQUEST_BYTES,
    () => socket.destroy(),
  );
}

/** Brings the index up to date now (a walk), logging a failure instead of stopping. */
function refreshIndex(d: DaemonState, why: string): void {
  try {
    d.session.read(() => null);
  } catch (e) {
    d.opts.log(`refresh (${why}) failed: ${(e as Error).message}`);
  }
}

function rememberConfig(d: DaemonState): void {
  try {
    rememberMachineConfig(d.opts.env);
  } catch (e) {
    d.opts.log(`machine config: ${(e as Error).message}`);
  }
}

/**
 * Takes the start lock, checks no daemon answers on the socket, clears a stale
 * one, writes the token and listens (owner-only). Two starts at once: only one
 * may do this; without the lock, one could delete the other's fresh socket or
 * overwrite its token (its clients then refused), or fail to listen
 * (EADDRINUSE) as a crash.
 */
async function listenOnSocket(server: net.Server, paths: ReturnType<typeof daemonPaths>, token: string): Promise<void> {
  const release = await takeStartLock(startLockOf(paths.token));
  try {
    const existing = await controlDaemon(paths, 'ping');
    if (existing.state === 'answered' || existing.state === 'unresponsive') {
      throw new VaultgateError('DAEMON_FAILED', `a daemon already holds ${paths.socket}`, { hint: 'Run `vaultgate daemon status`, or `vaultgate daemon stop` first.' });
    }
    // Left by a daemon that was killed: nobody listens on it.
    fs.rmSync(paths.socket, { force: true });
    writePrivateFile(paths.token, `${token}\n`);
    // The socket is created owner-only: no other user can connect even before the chmod.
    const umask = process.umask(0o177);
    try {
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject);
        server.listen(paths.socket, () => {
          server.off('error', reject);
          resolve();
        });
      });
    } finally {
      process.umask(umask);
    }
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new VaultgateError('DAEMON_FAILED', `another process listens on ${paths.socket}`, { hint: 'Run `vaultgate daemon status`, or `vaultgate daemon stop` first.' });
    }
    throw e;
  } finally {
    release();
  }
}

/** The daemon's info file (what `daemon status` reads without asking) and its first log line. */
function announce({ paths, root, startedAt, log }: { paths: ReturnType<typeof daemonPaths>; root: string; startedAt: Date; log: (line: string) => void }): void {
  writePrivateFile(paths.info, `${JSON.stringify({ pid: process.pid, vault: root, socket: paths.socket, started_at: startedAt.toISOString(), version: VERSION, build: BUILD })}\n`);
  log(`vaultgate daemon ${VERSION} (${BUILD}) pid ${process.pid} serving ${root} on ${paths.socket}`);
}

/**
 * Once a second: stop when the vault folder, the socket or the build on disk is
 * no longer the one the daemon started with; keep the token file; remember the
 * machine config; queue the periodic walk while idle.
 */
function housekeep(d: DaemonState, started: { rootIno: number; socketIno: number; mainScript: string | undefined; buildStamp: string | null }): void {
  const { root, paths, token, session } = d;
  const vault = fs.statSync(root, { throwIfNoEntry: false });
  if (!vault?.isDirectory() || vault.ino !== started.rootIno) return void d.shutdown('the vault folder is gone');
  if (fs.lstatSync(paths.socket, { throwIfNoEntry: false })?.ino !== started.socketIno) return void d.shutdown('the socket was removed or replaced');
  // Two daemons started at once: the one that lost the socket exits and removes its token, which may have been the
  // one on disk. The socket is ours, so the token file is ours to write again.
  if (!fs.existsSync(paths.token)) writePrivateFile(paths.token, `${token}\n`);
  if (started.mainScript && started.buildStamp !== fileStamp(started.mainScript)) return void d.shutdown('vaultgate was rebuilt or upgraded');
  rememberConfig(d);
  // The periodic walk runs while idle, so no command waits for it.
  if (session.walkDue()) d.queue = d.queue.then(() => refreshIndex(d, 'walk interval'));
}

/**
 * `vaultgate daemon run`: one long-lived process per vault answering the CLI's
 * read commands over a Unix socket, with the index open and a file watcher
 * keeping it fresh (VaultSession `freshness: 'watch'`). Each command runs
 * through the same runCli as in a process of its own, with the client's argv,
 * environment, working folder and terminal flags, so its output is byte for
 * byte what that process would print; only the session is shared.
 *
 * It serves until `daemon stop`, SIGTERM/SIGINT, its vault folder disappearing,
 * its socket being removed or replaced, or the vaultgate build on disk
 * changing. Resolves with the reason.
 */
export async function serveDaemon(opts: DaemonOptions): Promise<{ reason: string }> {
  const session = VaultSession.open({ vault: opts.vault, env: opts.env, cwd: opts.cwd, freshness: opts.freshness, walkIntervalMs: opts.walkIntervalMs });
  const root = session.root;
  const cacheRoot = dataRoots(opts.env).cache;
  const paths = daemonPaths(cacheRoot, root);
  try {
    ensurePrivateDirs(paths);
  } catch (e) {
    await session.close();
    throw new VaultgateError('DAEMON_FAILED', (e as Error).message, { hint: 'Fix the folder\'s owner and mode (chmod 700), or remove it.' });
  }
  const token = crypto.randomBytes(32).toString('hex');
  const server = net.createServer();
  try {
    await listenOnSocket(server, paths, token);
  } catch (e) {
    await session.close();
    throw e;
  }
  fs.chmodSync(paths.socket, 0o600);
  const socketIno = fs.statSync(paths.socket).ino;
  const rootIno = fs.statSync(root).ino;
  const mainScript = process.argv[1];
  const buildStamp = mainScript ? fileStamp(mainScript) : null;
  const startedAt = new Date();
  announce({ paths, root, startedAt, log: opts.log });

  // New and changed sections get their vectors while the daemon is idle, so fusion needs no separate step.
  const embedder = new BackgroundEmbedder(session, opts.env, { log: opts.log });
  let resolveStopped: (r: { reason: string }) => void = () => {};
  const stopped = new Promise<{ reason: string }>((r) => (resolveStopped = r));

  const d: DaemonState = {
    opts,
    session,
    root,
    cacheRoot,
    paths,
    token,
    startedAt,
    embedder,
    queue: Promise.resolve(),
    requests: 0,
    stopping: false,
    async shutdown(reason) {
      if (d.stopping) return;
      d.stopping = true;
      clearInterval(housekeeping);
      server.close();
      opts.log(`stopping: ${reason}`);
      // Leave the files alone if another daemon has taken the vault over since.
      if (fs.statSync(paths.socket, { throwIfNoEntry: false })?.ino === socketIno) fs.rmSync(paths.socket, { force: true });
      if (readOr(paths.token) === `${token}\n`) fs.rmSync(paths.token, { force: true });
      if (readOr(paths.info).includes(`"pid":${process.pid},`)) fs.rmSync(paths.info, { force: true });
      await d.queue;
      await embedder.close();
      await session.close();
      resolveStopped({ reason });
    },
  };

  server.on('connection', (socket) => acceptConnection(d, socket));

  const housekeeping = setInterval(() => housekeep(d, { rootIno, socketIno, mainScript, buildStamp }), HOUSEKEEPING_MS);
  housekeeping.unref();

  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void d.shutdown(signal));
  rememberConfig(d);
  // Build or refresh the index now, so the first command finds it warm.
  d.queue = d.queue.then(() => refreshIndex(d, 'start'));
  return stopped;
}

/** Why a command is not for this daemon (the client then runs it itself), or null. */
function refuse(request: RunRequest, root: string, cacheRoot: string): string | null {
  if (request.v !== PROTOCOL || request.version !== VERSION || request.build !== BUILD) return 'another build of vaultgate';
  if (!Array.isArray(request.argv) || !request.argv.every((a) => typeof a === 'string') || typeof request.cwd !== 'string' || typeof request.env !== 'object' || request.env === null) {
    return 'malformed request';
  }
  const verb = verbOf(request.argv);
  if (verb === null || !FORWARDED_VERBS.has(verb)) return 'not a read command';
  try {
    if (dataRoots(request.env).cache !== cacheRoot) return 'another cache root';
    if (selectVault(vaultOption(request.argv), request.env, request.cwd).root !== root) return 'another vault';
  } catch {
    return 'the vault cannot be selected';
  }
  return null;
}

/** Constant-time comparison of two tokens. */
function sameToken(a: unknown, b: string): boolean {
  if (typeof a !== 'string') return false;
  const x = Buffer.from(a);
  const y = Buffer.from(b);
  return x.length === y.length && crypto.timingSafeEqual(x, y);
}

function readOr(file: string): string {
  try {
    return fs.readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}


