import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { startLockOf, takeStartLock } from '../../../src/cli/daemon/start-lock.js';

const tempDir = () => fs.mkdtempSync(path.join(os.tmpdir(), 'vaultgate-test-startlock-'));

test('daemon start lock: concurrent takers run one at a time, in turn', async () => {
  const dir = tempDir();
  const lock = startLockOf(path.join(dir, 'abc.token'));
  assert.equal(lock, path.join(dir, 'abc.starting'));
  let inside = 0;
  let most = 0;
  await Promise.all(
    Array.from({ length: 5 }, async () => {
      const release = await takeStartLock(lock);
      inside++;
      most = Math.max(most, inside);
      await new Promise((r) => setTimeout(r, 20));
      inside--;
      release();
    }),
  );
  assert.equal(most, 1);
  assert.equal(fs.existsSync(lock), false, 'released');
  fs.rmSync(dir, { recursive: true, force: true });
});

test('daemon start lock: a crashed start’s lock is taken over once stale; a live one ends in DAEMON_FAILED, not a hang', async () => {
  const dir = tempDir();
  const lock = path.join(dir, 'x.starting');
  fs.mkdirSync(lock);
  const old = new Date(Date.now() - 10_000);
  fs.utimesSync(lock, old, old);
  const release = await takeStartLock(lock, { staleMs: 5_000 });
  // held now (fresh): a second taker with a short bound gives up with a typed error
  await assert.rejects(takeStartLock(lock, { waitMs: 200 }), (e: any) => e.code === 'DAEMON_FAILED' && e.message.includes(lock));
  release();
  fs.rmSync(dir, { recursive: true, force: true });
});
