import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { txStatus } from '../../src/txn/index.js';
import { runCli } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';
import { makeBundle, writeBundleFile } from '../unit/txn/txn-helpers.js';

/**
 * Issue #7 defect 3: an `owner.json` that is valid JSON without the expected fields
 * (`{}`, `{"pid":"abc","host":null}`) was judged live forever (`Date.now() - undefined`
 * is NaN, never above the TTL), so every writer got LOCK_BUSY and `tx status` said
 * "live" hours later. A record is now validated field by field; an invalid or
 * unreadable one is stale once the lock has not changed for the heartbeat TTL, and
 * `tx status` says why.
 */
const cli = (root: string, home: string, args: string[]) => runCli(args, { vault: root, home, env: { VAULTGATE_LOCK_TIMEOUT_MS: '0' } });

function plantOwner(root: string, owner: unknown, ageMs: number) {
  const dir = path.join(root, '.vaultgate/lock');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, 'owner.json');
  if (owner === 'directory') fs.mkdirSync(file, { recursive: true });
  else fs.writeFileSync(file, typeof owner === 'string' ? owner : JSON.stringify(owner));
  const then = new Date(Date.now() - ageMs);
  fs.utimesSync(file, then, then);
  fs.utimesSync(dir, then, then);
}

async function applyOne(root: string, home: string, op: string) {
  const file = writeBundleFile(path.dirname(root), makeBundle(root, op, [{ path: 'a.md', mode: 'replace', content: op }]), `${op}.json`);
  const i = await cli(root, home, ['tx', 'inspect', file]);
  assert.equal(i.exitCode, 0, i.stdout);
  return cli(root, home, ['tx', 'apply', file, '--approval', i.json.approval_sha256]);
}

const HOUR = 3_600_000;
const MALFORMED: Array<[string, unknown]> = [
  ['{}', {}],
  ['pid "abc", host null', { pid: 'abc', host: null }],
  ['a heartbeat from the far future on another host', { pid: 4242, host: 'elsewhere.example', token: 't', start_time: null, acquired_at: new Date().toISOString(), heartbeat_ms: Date.now() + 1e12 }],
  ['a negative pid', { pid: -1, host: os.hostname(), token: 't', start_time: null, acquired_at: new Date().toISOString(), heartbeat_ms: Date.now() }],
  ['not JSON', '{"pid":'],
  ['an array', [1, 2]],
  ['a folder instead of a file', 'directory'],
];

for (const [name, owner] of MALFORMED) {
  test(`issue 7.3: a lock owner record that is ${name} is stale after the heartbeat TTL, and tx status says why`, async () => {
    const { root, home } = tempVault({ 'a.md': 'A' });
    assert.equal((await cli(root, home, ['init'])).exitCode, 0);
    // fresh: it may be a writer that has not finished writing its record, so it holds
    plantOwner(root, owner, 0);
    const fresh = txStatus(root).lock!;
    assert.notEqual(fresh.liveness, 'live', 'an invalid record is never reported as a live owner');
    assert.match(fresh.reason ?? '', /owner\.json/);
    const busy = await applyOne(root, home, 'op1');
    assert.deepEqual([busy.exitCode, busy.json.error.code], [75, 'LOCK_BUSY']);
    // an hour without change: stale, reaped at once
    plantOwner(root, owner, HOUR);
    const old = txStatus(root).lock!;
    assert.notEqual(old.liveness, 'live');
    assert.equal(old.stale, true);
    const ok = await applyOne(root, home, 'op2');
    assert.equal(ok.exitCode, 0, ok.stdout);
    assert.equal(txStatus(root).lock, null);
  });
}
