import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { isVaultgateError } from '../../../src/errors.js';
import { acquireLock, initVault, readLockOwner } from '../../../src/txn/index.js';
import { judgeOwner, processStartTime, type LockOwner } from '../../../src/txn/lock.js';
import { tempVault } from '../../helpers/temp-vault.js';

const owner = (o: Partial<LockOwner>): LockOwner => ({
  pid: process.pid,
  host: os.hostname(),
  token: 't',
  start_time: processStartTime(process.pid),
  acquired_at: new Date().toISOString(),
  heartbeat_ms: Date.now(),
  ...o,
});

test('lock liveness: dead pid and reused pid are stale on this host; elsewhere only an expired heartbeat is', () => {
  const dead = spawnSync('true').pid!;
  assert.equal(judgeOwner(owner({ pid: dead }), 0), 'dead');
  assert.equal(judgeOwner(owner({ pid: process.ppid, start_time: processStartTime(process.ppid) }), 0), 'live');
  assert.equal(judgeOwner(owner({ pid: process.ppid, start_time: '12345' }), 0), 'reused-pid');
  assert.equal(judgeOwner(owner({ pid: process.ppid, start_time: processStartTime(process.ppid), heartbeat_ms: 0 }), 0), 'live', 'age alone never makes a live owner stale');
  assert.equal(judgeOwner(owner({ host: 'other.example', pid: 1, heartbeat_ms: Date.now() }), 0), 'live');
  assert.equal(judgeOwner(owner({ host: 'other.example', pid: 1, heartbeat_ms: Date.now() - 3_600_000 }), 0), 'heartbeat-expired');
  assert.equal(judgeOwner(null, 1_000), 'unverified', 'an unreadable owner record is given the heartbeat period (held, but never called live)');
  assert.equal(judgeOwner(null, 3_600_000), 'unreadable');
  assert.equal(judgeOwner(owner({ token: 'not-held-by-us' }), 0), 'dead', "our own pid with a token we do not hold: a release that failed");
});

test('the lock excludes a second holder in the same process, releases by token, and times out with LOCK_BUSY', async () => {
  const { root } = tempVault({});
  initVault(root);
  const a = await acquireLock(root);
  assert.equal(readLockOwner(root)?.liveness, 'live');
  await assert.rejects(acquireLock(root, { timeoutMs: 50 }), (e) => isVaultgateError(e) && e.code === 'LOCK_BUSY' && e.exitCode === 75);
  // a record that is no longer ours is not removed by our release
  const file = path.join(root, '.vaultgate/lock/owner.json');
  const rec = JSON.parse(fs.readFileSync(file, 'utf8'));
  fs.writeFileSync(file, JSON.stringify({ ...rec, token: 'someone-else' }));
  a.release();
  assert.ok(fs.existsSync(file));
  fs.writeFileSync(file, JSON.stringify(rec));
  a.release();
  assert.equal(fs.existsSync(path.join(root, '.vaultgate/lock')), false);
  const b = await acquireLock(root, { timeoutMs: 0 });
  b.release();
  assert.deepEqual(fs.readdirSync(path.join(root, '.vaultgate')).filter((n) => n.includes('lock')), [], 'no staging or released folders left');
});

test('a waiting process gets the lock as soon as the holder releases it', async () => {
  const { root } = tempVault({});
  initVault(root);
  const a = await acquireLock(root);
  setTimeout(() => a.release(), 100);
  const b = await acquireLock(root, { timeoutMs: 5_000 });
  b.release();
});
