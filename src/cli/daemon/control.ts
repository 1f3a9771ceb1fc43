import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { VaultgateError } from '../../errors.js';
import type { Freshness } from '../../session/index.js';
import { dataRoots, selectVault } from '../../vault/index.js';
import { BUILD } from '../../version.js';
import { controlDaemon, type ControlOutcome } from './client.js';
import { daemonPaths, type DaemonPaths } from './paths.js';
import type { DaemonInfo } from './protocol.js';
import { processAlive } from '../../process-alive.js';

type Env = Record<string, string | undefined>;

/**
 * The compiled CLI the detached daemon runs: the package's dist/cli/main.js,
 * found from this module's place (a bundle chunk in dist/cli/, tsc's output in
 * dist/cli/daemon/, or the sources when tests run them).
 */
function mainScript(): string {
  let dir = path.dirname(fileURLToPath(import.meta.url));
  for (let i = 0; i < 5 && !fs.existsSync(path.join(dir, 'package.json')); i++) dir = path.dirname(dir);
  return path.join(dir, 'dist/cli/main.js');
}

/** A daemon has this long to answer after `start` before it counts as failed (a cold index is built after it answers). */
const START_TIMEOUT_MS = 20_000;
const STOP_TIMEOUT_MS = 10_000;

export interface Target {
  vault: string;
  paths: DaemonPaths;
}

/** The vault a daemon command is about, and its daemon's files. */
export function target(vault: string | undefined, env: Env, cwd: string): Target {
  const { root } = selectVault(vault, env, cwd);
  return { vault: root, paths: daemonPaths(dataRoots(env).cache, root) };
}

function describe(t: Target, reply: DaemonInfo & { t?: string }): Record<string, unknown> {
  const { t: _type, ...info } = reply;
  return { running: true, responding: true, ...info, socket: t.paths.socket, log: t.paths.log };
}

/** `daemon status`. */
export async function daemonStatus(t: Target): Promise<Record<string, unknown>> {
  const probe = await controlDaemon(t.paths, 'status');
  if (probe.state === 'answered' && probe.reply.t === 'status') return describe(t, probe.reply);
  const base = { vault: t.vault, socket: t.paths.socket, log: t.paths.log };
  if (probe.state === 'unresponsive') return { running: true, responding: false, pid: recordedPid(t.paths), ...base, why: probe.why };
  return { running: false, ...base, stale_socket: probe.state === 'stale' };
}

export interface StartOptions {
  env: Env;
  cwd: string;
  freshness: Freshness;
  walkIntervalS: number;
}

/**
 * `daemon start`: detach a `daemon run` for the vault and wait until it answers.
 * A daemon of this build already answering is left alone; one of another build
 * is stopped and replaced; a stale socket (a killed daemon) is replaced.
 */
export async function startDaemon(t: Target, o: StartOptions): Promise<Record<string, unknown>> {
  const probe = await controlDaemon(t.paths, 'status');
  if (probe.state === 'answered' && probe.reply.t === 'status') {
    if (probe.reply.build === BUILD) return { started: false, already_running: true, ...describe(t, probe.reply) };
    await stopDaemon(t);
  } else if (probe.state === 'unresponsive') {
    throw new VaultgateError('DAEMON_FAILED', `a daemon holds ${t.paths.socket} but does not answer (${probe.why})`, {
      hint: 'Run `vaultgate daemon stop` (it ends that process by its pid), then start again.',
    });
  }
  const main = mainScript();
  if (!fs.existsSync(main)) throw new VaultgateError('DAEMON_FAILED', `${main} is missing`, { hint: 'Run `npm run build`.' });
  fs.mkdirSync(t.paths.dir, { recursive: true, mode: 0o700 });
  const log = fs.openSync(t.paths.log, 'w', 0o600);
  const child = spawn(
    process.execPath,
    [main, '--vault', t.vault, 'daemon', 'run', '--freshness', o.freshness, '--walk-interval', String(o.walkIntervalS)],
    { detached: true, stdio: ['ignore', log, log], env: o.env as NodeJS.ProcessEnv, cwd: o.cwd },
  );
  fs.closeSync(log);
  let exited: string | null = null;
  child.on('exit', (code, signal) => (exited = signal ? `signal ${signal}` : `exit ${code}`));
  child.on('error', (e) => (exited = e.message));
  child.unref();
  const deadline = Date.now() + START_TIMEOUT_MS;
  let last: ControlOutcome = { state: 'absent' };
  while (Date.now() < deadline) {
    await sleep(50);
    if (exited) break;
    last = await controlDaemon(t.paths, 'status', 1000);
    if (last.state === 'answered' && last.reply.t === 'status' && last.reply.pid === child.pid) return { started: true, ...describe(t, last.reply) };
  }
  if (!exited) child.kill('SIGTERM');
  // Another `daemon start` may have won the race for the socket: then a daemon of this build answers (within a
  // second its token file is its own again), and that is the point.
  for (let i = 0; i < 40; i++) {
    const other = await controlDaemon(t.paths, 'status');
    if (other.state === 'answered' && other.reply.t === 'status' && other.reply.build === BUILD) return { started: false, already_running: true, ...describe(t, other.reply) };
    if (other.state === 'absent') break;
    await sleep(100);
  }
  throw new VaultgateError('DAEMON_FAILED', `the daemon did not start (${exited ?? `no answer within ${START_TIMEOUT_MS / 1000} s`}): ${tail(t.paths.log)}`, {
    hint: `Its log is ${t.paths.log}; \`vaultgate daemon run\` runs it in the foreground.`,
    details: { log: t.paths.log, last: last.state },
  });
}

/** `daemon stop`: ask it to stop and wait until the process is gone; end an unresponsive one by its pid; clear a stale socket. */
export async function stopDaemon(t: Target): Promise<Record<string, unknown>> {
  const probe = await controlDaemon(t.paths, 'stop');
  const base = { vault: t.vault, socket: t.paths.socket };
  if (probe.state === 'answered' && probe.reply.t === 'stopping') {
    const pid = probe.reply.pid;
    await untilGone(pid, STOP_TIMEOUT_MS);
    return { stopped: true, pid, ...base };
  }
  if (probe.state === 'unresponsive') {
    const pid = recordedPid(t.paths);
    if (pid !== null && isOurDaemon(pid)) {
      process.kill(pid, 'SIGTERM');
      if (!(await untilGone(pid, STOP_TIMEOUT_MS))) process.kill(pid, 'SIGKILL');
      clearFiles(t.paths);
      return { stopped: true, pid, forced: true, ...base };
    }
    throw new VaultgateError('DAEMON_FAILED', `something holds ${t.paths.socket} but does not answer (${probe.why}), and no daemon process is recorded for it`, {
      hint: `Remove ${t.paths.socket} if no vaultgate process uses it.`,
    });
  }
  const stale = probe.state === 'stale';
  if (stale) clearFiles(t.paths);
  return { stopped: false, running: false, stale_socket_removed: stale, ...base };
}

function clearFiles(p: DaemonPaths): void {
  for (const f of [p.socket, p.token, p.info]) fs.rmSync(f, { force: true });
}

function recordedPid(p: DaemonPaths): number | null {
  try {
    const pid = (JSON.parse(fs.readFileSync(p.info, 'utf8')) as { pid?: unknown }).pid;
    return typeof pid === 'number' ? pid : null;
  } catch {
    return null;
  }
}

/** Only a process whose command line is a vaultgate daemon is ever signalled (pids are reused). */
function isOurDaemon(pid: number): boolean {
  try {
    const argv = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
    return argv.includes('daemon') && argv.includes('run') && argv.some((a) => /main\.c?js$/.test(a));
  } catch {
    return false;
  }
}

async function untilGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    if (!processAlive(pid)) return true;
    await sleep(25);
  }
  return !processAlive(pid);
}

/** The end of the daemon's log: only its last 4 KiB are read (a long-lived daemon's log can be large). */
function tail(file: string): string {
  try {
    const fd = fs.openSync(file, fs.constants.O_RDONLY | fs.constants.O_NOFOLLOW | fs.constants.O_NONBLOCK);
    try {
      const size = fs.fstatSync(fd).size;
      const n = Math.min(size, 4096);
      const buf = Buffer.alloc(n);
      const got = fs.readSync(fd, buf, 0, n, size - n);
      const text = buf.subarray(0, got).toString('utf8').trim();
      return text.length > 600 || size > n ? `…${text.slice(-600)}` : text || '(empty log)';
    } finally {
      fs.closeSync(fd);
    }
  } catch {
    return '(no log)';
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
