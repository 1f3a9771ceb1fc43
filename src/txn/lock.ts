import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { unreachable, VaultgateError } from '../errors.js';
import { removeTree } from './durable.js';
import { realFsOps, rethrowIfCrash, type FsOps } from './fs-ops.js';
import { txnLayout } from './layout.js';
import { DEFAULT_LOCK_TIMEOUT_MS, HEARTBEAT_EVERY_MS, HEARTBEAT_TTL_MS, MAX_CLOCK_SKEW_MS, MAX_STATE_FILE_BYTES } from './settings.js';
import { processAlive } from '../process-alive.js';

/**
 * The vault lock: `.vaultgate/lock/` holding `owner.json`. It is born complete —
 * built as `.vaultgate/.lock-<token>/` and renamed into place — so a lock folder
 * without an owner record never exists in normal operation.
 *
 * Stale means: the owner is on this host and its pid is dead, or alive but
 * started at another time (the pid was reused); or the owner is on another host
 * and its heartbeat expired; or the record cannot be read or is not a valid owner
 * record (checked field by field) and the lock has not changed for the heartbeat
 * TTL. A live owner on this host is never reaped, however old its lock: "old" is
 * not evidence of death (a 64 MiB fsync can be slow).
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
  /** Another host's owner, or an unreadable or invalid record, is stale after this long without a change. */
  heartbeatTtlMs?: number;
}

export interface LockHandle {
  readonly token: string;
  /** Refresh the heartbeat if it is due; the engine calls it between steps. */
  beat(): void;
  release(): void;
}

export { DEFAULT_LOCK_TIMEOUT_MS, HEARTBEAT_TTL_MS };

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

/**
 * Tokens of locks this process holds right now. A lock record naming our own pid
 * with a token not in this set was left by a release that failed (EIO): it is
 * stale, or a long-lived process (MCP server) would wait on itself forever.
 */
const heldTokens = new Set<string>();

/**
 * - `live`: the owner runs (this host: its pid with its start time; another host: a fresh heartbeat);
 * - `unverified`: the record cannot be read or is not a valid record, and the lock changed
 *   less than the heartbeat TTL ago (a writer may be between creating and filling it): held;
 * - `dead`, `reused-pid`, `heartbeat-expired`: the owner is gone: stale;
 * - `unreadable`, `invalid`: an unreadable or invalid record unchanged for the TTL: stale.
 */
export type Liveness = 'live' | 'unverified' | 'dead' | 'reused-pid' | 'heartbeat-expired' | 'unreadable' | 'invalid';

/** Whether a lock in this state keeps others out. */
export function isHeld(liveness: Liveness): boolean {
  return liveness === 'live' || liveness === 'unverified';
}

/** An owner record, checked field by field; `problem` says what is wrong with it. */
export type OwnerRecord = { owner: LockOwner; problem: null } | { owner: null; problem: string; unreadable: boolean };

export function parseLockOwner(raw: unknown, now = Date.now()): OwnerRecord {
  const bad = (problem: string): OwnerRecord => ({ owner: null, problem, unreadable: false });
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) return bad('is not a JSON object');
  const r = raw as Record<string, unknown>;
  if (!Number.isSafeInteger(r.pid) || (r.pid as number) <= 0) return bad('has no valid pid (a positive whole number)');
  if (typeof r.host !== 'string' || r.host === '') return bad('has no valid host');
  if (typeof r.token !== 'string' || r.token === '') return bad('has no valid token');
  if (r.start_time !== null && typeof r.start_time !== 'string') return bad('has no valid start_time');
  if (typeof r.acquired_at !== 'string') return bad('has no valid acquired_at');
  if (typeof r.heartbeat_ms !== 'number' || !Number.isFinite(r.heartbeat_ms) || r.heartbeat_ms < 0) return bad('has no valid heartbeat_ms');
  if (r.heartbeat_ms > now + MAX_CLOCK_SKEW_MS) return bad('has a heartbeat in the future');
  return {
    owner: { pid: r.pid as number, host: r.host, token: r.token, start_time: r.start_time as string | null, acquired_at: r.acquired_at, heartbeat_ms: r.heartbeat_ms },
    problem: null,
  };
}

/** Read `<dir>/owner.json` without trusting it; `changedMs` is the newest mtime of the folder and the record. */
function readOwner(dir: string, ops: FsOps): { record: OwnerRecord; changedMs: number } {
  const dirSt = ops.lstat(dir);
  const file = path.join(dir, 'owner.json');
  const fileSt = ops.lstat(file);
  const changedMs = Math.max(dirSt ? Number(dirSt.mtimeMs) : 0, fileSt ? Number(fileSt.mtimeMs) : 0);
  let text: string;
  try {
    // bounded like every state file: a planted owner.json of gigabytes is an invalid record, not a crash
    const bytes = ops.readFileBounded(file, MAX_STATE_FILE_BYTES);
    if (bytes.byteLength > MAX_STATE_FILE_BYTES) return { record: { owner: null, problem: `is over the ${MAX_STATE_FILE_BYTES}-byte bound for a state file`, unreadable: true }, changedMs };
    text = bytes.toString('utf8');
  } catch (e) {
    rethrowIfCrash(e);
    const code = (e as NodeJS.ErrnoException).code ?? 'an error';
    return { record: { owner: null, problem: code === 'ENOENT' ? 'is missing' : `cannot be read (${code})`, unreadable: true }, changedMs };
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    return { record: { owner: null, problem: 'is not JSON', unreadable: true }, changedMs };
  }
  return { record: parseLockOwner(raw), changedMs };
}

/** Judge an owner record (null = no valid owner.json; `ageMs` = how long the lock has not changed). */
export function judgeOwner(owner: LockOwner | null, ageMs: number, ttl = HEARTBEAT_TTL_MS, unreadable = true): Liveness {
  if (!owner) return ageMs > ttl ? (unreadable ? 'unreadable' : 'invalid') : 'unverified';
  if (owner.host === os.hostname()) {
    if (owner.pid === process.pid) return heldTokens.has(owner.token) ? 'live' : 'dead';
    if (!processAlive(owner.pid)) return 'dead';
    const now = processStartTime(owner.pid);
    if (owner.start_time !== null && now !== null && now !== owner.start_time) return 'reused-pid';
    return 'live';
  }
  return Date.now() - owner.heartbeat_ms > ttl ? 'heartbeat-expired' : 'live';
}

function reasonFor(liveness: Liveness, record: OwnerRecord, ageMs: number, ttl: number): string {
  const secs = (ms: number) => `${Math.max(0, Math.round(ms / 1000))} s`;
  const o = record.owner;
  switch (liveness) {
    case 'live':
      return o && o.host === os.hostname() ? `pid ${o.pid} on this host is running` : `the owner on ${o?.host} refreshed its heartbeat ${secs(Date.now() - (o?.heartbeat_ms ?? 0))} ago`;
    case 'dead':
      return `pid ${o?.pid} on this host has exited`;
    case 'reused-pid':
      return `pid ${o?.pid} on this host is another process now (its start time differs)`;
    case 'heartbeat-expired':
      return `the owner on ${o?.host} has not refreshed its heartbeat for ${secs(Date.now() - (o?.heartbeat_ms ?? 0))} (more than ${secs(ttl)})`;
    case 'unverified':
      return `owner.json ${record.problem}; the lock counts as held until it has gone ${secs(ttl)} without a change (${secs(ageMs)} so far)`;
    case 'unreadable':
    case 'invalid':
      return `owner.json ${record.problem}, and the lock has not changed for ${secs(ageMs)} (more than ${secs(ttl)}): stale`;
    default:
      return unreachable(liveness, 'liveness');
  }
}

export interface LockState {
  owner: LockOwner | null;
  liveness: Liveness;
  /** Whether the next writer may reap it. */
  stale: boolean;
  /** Why, in words (`tx status` shows it). */
  reason: string;
}

export function readLockOwner(root: string, ops: FsOps = realFsOps, ttl = HEARTBEAT_TTL_MS): LockState | null {
  const dir = txnLayout(root).lock;
  if (!ops.lstat(dir)) return null;
  const { record, changedMs } = readOwner(dir, ops);
  const ageMs = Date.now() - changedMs;
  const liveness = judgeOwner(record.owner, ageMs, ttl, record.owner ? true : record.unreadable);
  return { owner: record.owner, liveness, stale: !isHeld(liveness), reason: reasonFor(liveness, record, ageMs, ttl) };
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
    last = readLockOwner(root, ops, ttl);
    if (last?.stale) {
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
      const cur = readOwner(lock, ops).record.owner;
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
  // what we moved may be a lock re-taken in between (a valid owner we did not judge): put it back
  const moved = readOwner(aside, ops).record.owner;
  if (moved && moved.token !== judged?.token && isHeld(judgeOwner(moved, 0, ttl))) {
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
    const { record, changedMs } = readOwner(dir, ops);
    if (name.startsWith('.lock-released-') || !isHeld(judgeOwner(record.owner, Date.now() - changedMs, ttl))) {
      try {
        removeTree(dir, ops);
      } catch (e) {
        rethrowIfCrash(e);
      }
    }
  }
}
