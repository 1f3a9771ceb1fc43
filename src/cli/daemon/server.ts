import crypto from 'node:crypto';
import fs from 'node:fs';
import net from 'node:net';
import { VaultgateError } from '../../errors.js';
import { BackgroundEmbedder } from '../../dense/index.js';
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
  // Two starts at once: only one may check, clear a stale socket, listen and write its
  // token; without this, one could delete the other's fresh socket or overwrite its
  // token (its clients then refused), or fail to listen (EADDRINUSE) as a crash.
  const token = crypto.randomBytes(32).toString('hex');
  const server = net.createServer();
  let release = () => {};
  try {
    release = await takeStartLock(startLockOf(paths.token));
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
    release();
    await session.close();
    if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') {
      throw new VaultgateError('DAEMON_FAILED', `another process listens on ${paths.socket}`, { hint: 'Run `vaultgate daemon status`, or `vaultgate daemon stop` first.' });
    }
    throw e;
  }
  release();
  fs.chmodSync(paths.socket, 0o600);
  const socketIno = fs.statSync(paths.socket).ino;
  const rootIno = fs.statSync(root).ino;
  const mainScript = process.argv[1];
  const buildStamp = mainScript ? fileStamp(mainScript) : null;
  const startedAt = new Date();
  writePrivateFile(paths.info, `${JSON.stringify({ pid: process.pid, vault: root, socket: paths.socket, started_at: startedAt.toISOString(), version: VERSION, build: BUILD })}\n`);
  opts.log(`vaultgate daemon ${VERSION} (${BUILD}) pid ${process.pid} serving ${root} on ${paths.socket}`);

  let requests = 0;
  let queue: Promise<void> = Promise.resolve();
  // New and changed sections get their vectors while the daemon is idle, so fusion needs no separate step.
  const embedder = new BackgroundEmbedder(session, opts.env, { log: opts.log });
  let stopping = false;
  let resolveStopped: (r: { reason: string }) => void = () => {};
  const stopped = new Promise<{ reason: string }>((r) => (resolveStopped = r));

  const info = (): DaemonInfo => ({
    pid: process.pid,
    vault: root,
    socket: paths.socket,
    started_at: startedAt.toISOString(),
    uptime_s: Math.round((Date.now() - startedAt.getTime()) / 1000),
    version: VERSION,
    build: BUILD,
    requests,
    freshness: session.freshness() ?? { mode: 'walk', reason: 'freshness: walk' },
    read_pool: session.readPool(),
    embeddings: embedder.status(),
  });

  const refresh = (why: string) => {
    try {
      session.read(() => null);
    } catch (e) {
      opts.log(`refresh (${why}) failed: ${(e as Error).message}`);
    }
  };

  const shutdown = async (reason: string) => {
    if (stopping) return;
    stopping = true;
    clearInterval(housekeeping);
    server.close();
    opts.log(`stopping: ${reason}`);
    // Leave the files alone if another daemon has taken the vault over since.
    if (fs.statSync(paths.socket, { throwIfNoEntry: false })?.ino === socketIno) fs.rmSync(paths.socket, { force: true });
    if (readOr(paths.token) === `${token}\n`) fs.rmSync(paths.token, { force: true });
    if (readOr(paths.info).includes(`"pid":${process.pid},`)) fs.rmSync(paths.info, { force: true });
    await queue;
    await embedder.close();
    await session.close();
    resolveStopped({ reason });
  };

  const handle = (socket: net.Socket, request: Request) => {
    if (request.t === 'ping' || request.t === 'status') {
      send(socket, { t: 'status', ...info() });
      socket.end();
      return;
    }
    if (request.t === 'stop') {
      send(socket, { t: 'stopping', pid: process.pid });
      socket.end();
      void shutdown('daemon stop');
      return;
    }
    if (request.t !== 'run') return void socket.destroy();
    const refusal = stopping ? 'stopping' : refuse(request, root, cacheRoot);
    if (refusal) {
      send(socket, { t: 'refuse', reason: refusal });
      socket.end();
      return;
    }
    send(socket, { t: 'accept' });
    queue = queue.then(() => answer(socket, request)).catch((e: unknown) => opts.log(`request failed: ${(e as Error)?.stack ?? String(e)}`));
  };

  const answer = async (socket: net.Socket, request: RunRequest) => {
    if (socket.destroyed) return;
    const own: VaultSession[] = [];
    const code = await opts.runCli(request.argv, {
      stdout: (s) => send(socket, { t: 'out', d: s }),
      stderr: (s) => send(socket, { t: 'err', d: s }),
      env: request.env,
      cwd: request.cwd,
      isTTY: request.isTTY,
      stderrIsTTY: request.stderrIsTTY,
      // The shared session when the command selects this vault (it does: `refuse` checked); otherwise one of its own, as in-process.
      session: (vault) => {
        if (selectVault(vault, request.env, request.cwd).root === root) return session;
        const mine = VaultSession.open({ vault, env: request.env, cwd: request.cwd });
        own.push(mine);
        return mine;
      },
      settle: () => session.settle(),
    });
    for (const s of own) await s.close();
    requests++;
    send(socket, { t: 'exit', code });
    socket.end();
  };

  server.on('connection', (socket) => {
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
        if (!sameToken(request?.token, token)) {
          send(socket, { t: 'refuse', reason: 'token' });
          socket.end();
          return;
        }
        handle(socket, request);
      },
      MAX_REQUEST_BYTES,
      () => socket.destroy(),
    );
  });

  const housekeeping = setInterval(() => {
    const vault = fs.statSync(root, { throwIfNoEntry: false });
    if (!vault?.isDirectory() || vault.ino !== rootIno) return void shutdown('the vault folder is gone');
    if (fs.lstatSync(paths.socket, { throwIfNoEntry: false })?.ino !== socketIno) return void shutdown('the socket was removed or replaced');
    // Two daemons started at once: the one that lost the socket exits and removes its token, which may have been the
    // one on disk. The socket is ours, so the token file is ours to write again.
    if (!fs.existsSync(paths.token)) writePrivateFile(paths.token, `${token}\n`);
    if (mainScript && buildStamp !== fileStamp(mainScript)) return void shutdown('vaultgate was rebuilt or upgraded');
    try {
      rememberMachineConfig(opts.env);
    } catch (e) {
      opts.log(`machine config: ${(e as Error).message}`);
    }
    // The periodic walk runs while idle, so no command waits for it.
    if (session.walkDue()) queue = queue.then(() => refresh('walk interval'));
  }, HOUSEKEEPING_MS);
  housekeeping.unref();

  for (const signal of ['SIGTERM', 'SIGINT'] as const) process.once(signal, () => void shutdown(signal));
  try {
    rememberMachineConfig(opts.env);
  } catch (e) {
    opts.log(`machine config: ${(e as Error).message}`);
  }
  // Build or refresh the index now, so the first command finds it warm.
  queue = queue.then(() => refresh('start'));
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


