import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { readJsonFile, removeTree } from './durable.js';
import { realFsOps, rethrowIfCrash, type FsOps } from './fs-ops.js';
import { txnLayout } from './layout.js';

/**
 * The vault lock: `.vaultgate/lock/` holding `owner.json`. It is born complete —
 * built as `.vaultgate/.lock-<token>/` and renamed into place — so a lock folder
 * without an owner record never exists in normal operation.
 *
 * Stale means: the owner is on this host and its pid is dead, or alive but
 * started at another time (the pid was reused); or the owner is on another host
 * and its heartbeat expired. A live owner on this host is never reaped, however
 * old its lock: "old" is not evidence of death (a 64 MiB fsync can be slow).
 */
export interface LockOwner {
  pid: number;
  host: string;
  token: string;
  /** /proc/<pid>/stat field 22 (clock ticks since boot), or null off Linux. */
  start_time: string | null;
  acquired_at: string;
  heartbeat_ms: number;
}

export interface LockOptions {
  ops?: FsOps;
  /** Give up after this long (LOCK_BUSY, exit 75). */
  timeoutMs?: number;
  /** Another host's owner is stale after this long without a heartbeat. */
  heartbeatTtlMs?: number;
}

export interface LockHandle {
  readonly token: string;
  /** Refresh the heartbeat if it is due; the engine calls it between steps. */
  beat(): void;
  release(): void;
}

export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
export const HEARTBEAT_TTL_MS = 60_000;
const HEARTBEAT_EVERY_MS = 5_000;

/** Process start time from /proc, to tell a live owner from a reused pid. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    // the command name may contain spaces and parentheses: fields start after the last ')'
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return fields[19] ?? null; // field 22 overall; fields[0] is field 3
  } catch {
    return null;
  }
}

function pidAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Tokens of locks this process holds right now. A lock record naming our own pid
 * with a token not in this set was left by a release that failed (EIO): it is
 * stale, or a long-lived process (MCP server) would wait on itself forever.
 */
const heldTokens = new Set<string>();

export type Liveness = 'live' | 'dead' | 'reused-pid' | 'heartbeat-expired' | 'unreadable';

/** Judge an owner record (null = no readable owner.json). */
export function judgeOwner(owner: LockOwner | null, lockAgeMs: number, ttl = HEARTBEAT_TTL_MS): Liveness {
  if (!owner) return lockAgeMs > ttl ? 'unreadable' : 'live';
  if (owner.host === os.hostname()) {
    if (owner.pid === process.pid) return heldTokens.has(owner.token) ? 'live' : 'dead';
    if (!pidAlive(owner.pid)) return 'dead';
    const now = processStartTime(owner.pid);
    if (owner.start_time !== null && now !== null && now !== owner.start_time) return 'reused-pid';
    return 'live';
  }
  return Date.now() - owner.heartbeat_ms > ttl ? 'heartbeat-expired' : 'live';
}

export function readLockOwner(root: string, ops: FsOps = realFsOps): { owner: LockOwner | null; liveness: Liveness } | null {
  const dir = txnLayout(root).lock;
  const st = ops.lstat(dir);
  if (!st) return null;
  const owner = readJsonFile<LockOwner>(path.join(dir, 'owner.json'), ops);
  return { owner, liveness: judgeOwner(owner, Date.now() - Number(st.mtimeMs)) };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

export async function acquireLock(root: string, opts: LockOptions = {}): Promise<LockHandle> {
  const ops = opts.ops ?? realFsOps;
  const timeout = opts.timeoutMs ?? DEFAULT_LOCK_TIMEOUT_MS;
  const ttl = opts.heartbeatTtlMs ?? HEARTBEAT_TTL_MS;
  const { base, lock } = txnLayout(root);
  const token = crypto.randomBytes(12).toString('hex');
  const owner: LockOwner = {
    pid: process.pid,
    host: os.hostname(),
    token,
    start_time: processStartTime(process.pid),
    acquired_at: new Date().toISOString(),
    heartbeat_ms: Date.now(),
  };
  const staging = path.join(base, `.lock-${token}`);
  ops.mkdir(staging);
  writeOwner(staging, owner, ops);
  const deadline = Date.now() + timeout;
  let last: ReturnType<typeof readLockOwner> = null;
  for (let attempt = 0; ; attempt++) {
    try {
      ops.rename(staging, lock);
      break;
    } catch (e) {
      rethrowIfCrash(e);
      const code = (e as NodeJS.ErrnoException).code;
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST' && code !== 'ENOTDIR' && code !== 'EISDIR') {
        removeTree(staging, ops);
        throw e;
      }
    }
    last = readLockOwner(root, ops);
    if (last && last.liveness !== 'live') {
      reap(root, last.owner, ops, ttl);
      continue;
    }
    if (Date.now() >= deadline) {
      removeTree(staging, ops);
      const o = last?.owner;
      throw new VaultgateError('LOCK_BUSY', `the vault is locked by ${o ? `pid ${o.pid} on ${o.host} since ${o.acquired_at}` : 'another process'}`, {
        details: { owner: o ?? null, waited_ms: timeout },
        hint: 'Another vaultgate is writing this vault; retry shortly. `vaultgate tx status` shows the lock owner.',
      });
    }
    await sleep(Math.min(200, 10 + attempt * 5) + Math.floor(Math.random() * 10));
  }
  heldTokens.add(token);
  sweepStaging(root, token, ops, ttl);
  let lastBeat = owner.heartbeat_ms;
  return {
    token,
    beat() {
      if (Date.now() - lastBeat < HEARTBEAT_EVERY_MS) return;
      lastBeat = Date.now();
      writeOwner(lock, { ...owner, heartbeat_ms: lastBeat }, ops);
    },
    release() {
      heldTokens.delete(token);
      const cur = readJsonFile<LockOwner>(path.join(lock, 'owner.json'), ops);
      if (cur?.token !== token) return; // reaped and re-taken by someone else: not ours to remove
      const gone = path.join(base, `.lock-released-${token}`);
      ops.rename(lock, gone);
      removeTree(gone, ops);
    },
  };
}

function writeOwner(dir: string, owner: LockOwner, ops: FsOps): void {
  // no fsync: after a power loss every owner is dead, and a dead owner's lock is reaped
  const tmp = path.join(dir, `.owner.${crypto.randomBytes(4).toString('hex')}.tmp`);
  const fd = ops.openExclusive(tmp, 0o644);
  try {
    ops.write(fd, Buffer.from(JSON.stringify(owner)));
  } finally {
    ops.close(fd);
  }
  ops.rename(tmp, path.join(dir, 'owner.json'));
}

/**
 * Move a stale lock aside. Renaming is atomic, so of two reapers only one moves
 * it; if what we moved turns out not to be the owner we judged (it was re-taken
 * in between), we put it back.
 */
function reap(root: string, judged: LockOwner | null, ops: FsOps, ttl: number): void {
  const { base, lock } = txnLayout(root);
  const aside = path.join(base, `.lock-stale-${crypto.randomBytes(6).toString('hex')}`);
  try {
    ops.rename(lock, aside);
  } catch (e) {
    rethrowIfCrash(e);
    return; // someone else reaped or released it
  }
  const moved = readJsonFile<LockOwner>(path.join(aside, 'owner.json'), ops);
  if (judged && moved?.token !== judged.token && judgeOwner(moved, 0, ttl) === 'live') {
    try {
      ops.rename(aside, lock);
      return;
    } catch (e) {
      rethrowIfCrash(e);
    }
  }
  removeTree(aside, ops);
}

/** Staging folders left by processes that died between mkdir and rename. Called while holding the lock. */
function sweepStaging(root: string, ours: string, ops: FsOps, ttl: number): void {
  const { base } = txnLayout(root);
  for (const name of ops.readdir(base)) {
    if (!name.startsWith('.lock-') || name === `.lock-${ours}`) continue;
    const dir = path.join(base, name);
    const st = ops.lstat(dir);
    if (!st?.isDirectory()) continue;
    const o = readJsonFile<LockOwner>(path.join(dir, 'owner.json'), ops);
    if (name.startsWith('.lock-released-') || judgeOwner(o, Date.now() - Number(st.mtimeMs), ttl) !== 'live') {
      try {
        removeTree(dir, ops);
      } catch (e) {
        rethrowIfCrash(e);
      }
    }
  }
}
