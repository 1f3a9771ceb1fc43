import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { bundleSha256, parseBundle, txStatus } from '../../src/txn/index.js';
import { processStartTime } from '../../src/txn/lock.js';
import { runCli } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';
import { crashAfter, makeBundle, sha, vaultImage, writeBundleFile, type WriteSpec } from '../unit/txn/txn-helpers.js';

/** "No wedges" (issue #3 §4): each failure seen in practice in other engines, as a test. */
const cli = (root: string, home: string, args: string[], env: Record<string, string> = {}) => runCli(args, { vault: root, home, env });

async function apply(root: string, home: string, op: string, writes: WriteSpec[], env: Record<string, string> = {}) {
  const file = writeBundleFile(path.dirname(root), makeBundle(root, op, writes), `${op}.json`);
  const i = await cli(root, home, ['tx', 'inspect', file]);
  if (i.exitCode !== 0) return i;
  return cli(root, home, ['tx', 'apply', file, '--approval', i.json.approval_sha256], env);
}

test('5,000 past operations neither block nor break apply, replay or pruning', async () => {
  const { root, home } = tempVault({ 'a.md': 'A' });
  await cli(root, home, ['init']);
  const txn = path.join(root, '.vaultgate/txn');
  const old = makeBundle(root, 'old-2500', [{ path: 'a.md', mode: 'replace', content: 'ancient' }]);
  const oldSha = bundleSha256(parseBundle(Buffer.from(JSON.stringify(old)), { baseDir: root }));
  const lines: string[] = [];
  for (let n = 0; n < 5000; n++) {
    const op = `old-${n}`;
    const rec = { schema: 'vaultgate.done.v1', operation_id: op, operation_type: 'note', outcome: 'applied', bundle_sha256: n === 2500 ? oldSha : sha(op), approval_sha256: sha(op),
      completed_at: new Date(1_700_000_000_000 + n).toISOString(), changed_paths: [`gone/${n}.md`], backup_dir: n >= 4700 ? `${1_700_000_000_000 + n}-${op}` : null, writes: [], created_dirs: [] };
    fs.writeFileSync(path.join(txn, 'done', `${op}.json`), JSON.stringify(rec));
    if (rec.backup_dir) fs.mkdirSync(path.join(txn, 'backups', rec.backup_dir));
    lines.push(JSON.stringify({ operation_id: op, outcome: 'applied', changed_paths: rec.changed_paths }));
  }
  fs.writeFileSync(path.join(txn, 'history.jsonl'), lines.join('\n') + '\n');
  const r = await apply(root, home, 'new-op', [{ path: 'a.md', mode: 'replace', content: 'A2' }]);
  assert.equal(r.exitCode, 0, r.stdout);
  assert.equal(fs.readdirSync(path.join(txn, 'backups')).length, 200, 'pruned to txn.keep_backups');
  assert.ok(fs.existsSync(path.join(txn, 'backups', fs.readdirSync(path.join(txn, 'backups')).sort().pop()!, 'b0')));
  const history = fs.readFileSync(path.join(txn, 'history.jsonl'), 'utf8').trim().split('\n');
  assert.equal(history.length, 5001);
  assert.equal(JSON.parse(history[5000]!).operation_id, 'new-op');
  // an old id with its old bundle (and the approval it was applied with) is a replay, answered from the record without reading history
  const f = writeBundleFile(path.dirname(root), old, 'old.json');
  const replay = await cli(root, home, ['tx', 'apply', f, '--approval', sha('old-2500')]);
  assert.deepEqual([replay.exitCode, replay.json.replayed], [0, true]);
  assert.equal(txStatus(root).applied_operations, 5001);
});

test('stray files in .vaultgate/txn/ (.DS_Store, unknown files and folders) are ignored and left alone', async () => {
  const { root, home } = tempVault({ 'a.md': 'A' });
  await cli(root, home, ['init']);
  const txn = path.join(root, '.vaultgate/txn');
  const strays = { '.DS_Store': 'x', 'pending/.DS_Store': 'x', 'pending/notes.txt': 'not an operation', 'pending/weird name/x': 'y', 'unknown.bin': 'z', 'done/.DS_Store': 'x', 'backups/.DS_Store': 'x' };
  for (const [p, c] of Object.entries(strays)) {
    fs.mkdirSync(path.dirname(path.join(txn, p)), { recursive: true });
    fs.writeFileSync(path.join(txn, p), c);
  }
  assert.equal((await apply(root, home, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }])).exitCode, 0);
  assert.equal((await cli(root, home, ['tx', 'recover'])).exitCode, 0);
  const st = await cli(root, home, ['tx', 'status']);
  assert.deepEqual([st.exitCode, st.json.pending], [0, []]);
  for (const [p, c] of Object.entries(strays)) assert.equal(fs.readFileSync(path.join(txn, p), 'utf8'), c);
});

test("a user's case-only rename of a file the engine wrote blocks nothing", async () => {
  const { root, home } = tempVault({ 'other.md': 'O' });
  assert.equal((await apply(root, home, 'op1', [{ path: 'Note.md', mode: 'create', content: 'N' }])).exitCode, 0);
  fs.renameSync(path.join(root, 'Note.md'), path.join(root, 'note.md'));
  assert.equal((await apply(root, home, 'op2', [{ path: 'other.md', mode: 'replace', content: 'O2' }])).exitCode, 0);
  assert.equal((await apply(root, home, 'op3', [{ path: 'note.md', mode: 'replace', content: 'N2' }])).exitCode, 0);
  const undo = await cli(root, home, ['undo', 'op1']);
  assert.deepEqual([undo.exitCode, undo.json.error.code], [75, 'UNDO_CONFLICT']);
  assert.deepEqual(txStatus(root).pending, []);
});

test('a failed rollback quarantines its operation: its paths alone are blocked until tx resolve', async () => {
  const { root, home } = tempVault({ 'x.md': 'X', 'y.md': 'Y', 'free.md': 'F' });
  await cli(root, home, ['init']);
  await crashAfter(root, makeBundle(root, 'stuck', [{ path: 'x.md', mode: 'replace', content: 'X2' }, { path: 'y.md', mode: 'replace', content: 'Y2' }]),
    (op, args) => (op === 'rename' || op === 'link') && String(args[1]).endsWith('/x.md'));
  // the original of x.md disappears (its backup, and the original moved aside beside it): rollback cannot restore it
  fs.rmSync(path.join(root, '.vaultgate/txn/pending/stuck/b0'));
  for (const n of fs.readdirSync(root)) if (/^\.x\.md\.vg-.*\.old$/.test(n)) fs.rmSync(path.join(root, n));
  const free = await apply(root, home, 'free', [{ path: 'free.md', mode: 'replace', content: 'F2' }]);
  assert.equal(free.exitCode, 0, free.stdout);
  assert.deepEqual(free.json.recovered.map((r: { outcome: string }) => r.outcome), ['quarantined']);
  const st = txStatus(root);
  assert.deepEqual(st.pending.map((p) => [p.operation_id, p.state]), [['stuck', 'quarantined']]);
  assert.deepEqual(st.pending[0]!.quarantine!.resolve, ['vaultgate tx resolve stuck --keep-current', 'vaultgate tx resolve stuck --restore-original']);
  for (const p of ['x.md', 'y.md']) {
    const blocked = await apply(root, home, `touch-${p}`, [{ path: p, mode: 'replace', content: 'later' }]);
    assert.deepEqual([blocked.exitCode, blocked.json.error.code], [75, 'QUARANTINED']);
    assert.match(blocked.json.error.hint, /vaultgate tx resolve stuck --keep-current/);
  }
  assert.equal(fs.readFileSync(path.join(root, 'y.md'), 'utf8'), 'Y', 'y.md was rolled back');
  const res = await cli(root, home, ['tx', 'resolve', 'stuck', '--keep-current']);
  assert.deepEqual([res.exitCode, res.json.outcome], [0, 'resolved_keep_current']);
  assert.equal((await apply(root, home, 'after', [{ path: 'x.md', mode: 'replace', content: 'X3' }])).exitCode, 0);
});

test('recovery never overwrites an edit it did not make; --restore-original keeps that edit aside', async () => {
  const { root, home } = tempVault({ 'x.md': 'X', 'y.md': 'Y' });
  await cli(root, home, ['init']);
  await crashAfter(root, makeBundle(root, 'op1', [{ path: 'x.md', mode: 'replace', content: 'X2' }, { path: 'y.md', mode: 'replace', content: 'Y2' }]),
    (op, args) => (op === 'rename' || op === 'link') && String(args[1]).endsWith('/x.md'));
  fs.writeFileSync(path.join(root, 'x.md'), 'user edit during the outage');
  const rec = await cli(root, home, ['tx', 'recover']);
  assert.equal(rec.exitCode, 0);
  assert.deepEqual(rec.json.recovered.map((r: { outcome: string }) => r.outcome), ['quarantined']);
  assert.equal(fs.readFileSync(path.join(root, 'x.md'), 'utf8'), 'user edit during the outage');
  assert.equal(fs.readFileSync(path.join(root, 'y.md'), 'utf8'), 'Y');
  const res = await cli(root, home, ['tx', 'resolve', 'op1', '--restore-original']);
  assert.equal(res.exitCode, 0, res.stdout);
  assert.deepEqual(res.json.restored, ['x.md']);
  assert.equal(fs.readFileSync(path.join(root, 'x.md'), 'utf8'), 'X');
  assert.equal(fs.readFileSync(path.join(root, res.json.displaced[0]), 'utf8'), 'user edit during the outage');
  assert.deepEqual(Object.keys(vaultImage(root)).sort(), ['x.md', 'y.md'], 'no temp file left');
});

function plantLock(root: string, owner: Record<string, unknown>) {
  const dir = path.join(root, '.vaultgate/lock');
  fs.mkdirSync(dir, { recursive: true });
  fs.writeFileSync(path.join(dir, 'owner.json'), JSON.stringify({ token: 'planted', acquired_at: new Date().toISOString(), heartbeat_ms: Date.now(), start_time: null, host: os.hostname(), ...owner }));
}

test('after kill -9 the next apply proceeds at once; a live owner is never reaped', async () => {
  const { root, home } = tempVault({ 'a.md': 'A' });
  await cli(root, home, ['init']);
  const now = { VAULTGATE_LOCK_TIMEOUT_MS: '0' };
  // a dead owner (a process that has exited) on this host
  plantLock(root, { pid: spawnSync('true').pid });
  assert.equal((await apply(root, home, 'op1', [{ path: 'a.md', mode: 'replace', content: '1' }], now)).exitCode, 0);
  // a live owner: refused with 75 and left in place
  const sleeper = spawn('sleep', ['30']);
  try {
    await new Promise((r) => setTimeout(r, 50));
    plantLock(root, { pid: sleeper.pid, start_time: processStartTime(sleeper.pid!) });
    const busy = await apply(root, home, 'op2', [{ path: 'a.md', mode: 'replace', content: '2' }], now);
    assert.deepEqual([busy.exitCode, busy.json.error.code], [75, 'LOCK_BUSY']);
    assert.equal(busy.json.error.details.owner.pid, sleeper.pid);
    assert.equal(JSON.parse(fs.readFileSync(path.join(root, '.vaultgate/lock/owner.json'), 'utf8')).token, 'planted');
    assert.equal(txStatus(root).lock?.liveness, 'live');
    // the same pid with another start time is a reused pid: stale
    plantLock(root, { pid: sleeper.pid, start_time: '1' });
    assert.equal((await apply(root, home, 'op3', [{ path: 'a.md', mode: 'replace', content: '3' }], now)).exitCode, 0);
  } finally {
    sleeper.kill('SIGKILL');
  }
  // another host: judged by its heartbeat only
  plantLock(root, { pid: 1, host: 'elsewhere.example', heartbeat_ms: Date.now() });
  assert.equal((await apply(root, home, 'op4', [{ path: 'a.md', mode: 'replace', content: '4' }], now)).exitCode, 75);
  plantLock(root, { pid: 1, host: 'elsewhere.example', heartbeat_ms: Date.now() - 3_600_000 });
  assert.equal((await apply(root, home, 'op5', [{ path: 'a.md', mode: 'replace', content: '5' }], now)).exitCode, 0);
  assert.equal(fs.readFileSync(path.join(root, 'a.md'), 'utf8'), '5');
});

test('an interrupted operation: inspect (which never writes) asks for tx recover on its paths only; status names it and the lock owner', async () => {
  const { root, home } = tempVault({ 'x.md': 'X', 'y.md': 'Y', 'free.md': 'F' });
  await cli(root, home, ['init']);
  await crashAfter(root, makeBundle(root, 'cut', [{ path: 'x.md', mode: 'replace', content: 'X2' }, { path: 'y.md', mode: 'replace', content: 'Y2' }]),
    (op, args) => (op === 'rename' || op === 'link') && String(args[1]).endsWith('/x.md'));
  const st = await cli(root, home, ['tx', 'status']);
  assert.deepEqual(st.json.pending.map((p: { operation_id: string; state: string }) => [p.operation_id, p.state]), [['cut', 'needs_recovery']]);
  assert.equal(st.json.lock, null);
  const touch = writeBundleFile(path.dirname(root), makeBundle(root, 'touch', [{ path: 'y.md', mode: 'replace', content: 'later' }]), 'touch.json');
  const i = await cli(root, home, ['tx', 'inspect', touch]);
  assert.deepEqual([i.exitCode, i.json.error.code], [3, 'RECOVERY_NEEDED']);
  assert.match(i.json.error.hint, /vaultgate tx recover/);
  const free = writeBundleFile(path.dirname(root), makeBundle(root, 'free', [{ path: 'free.md', mode: 'replace', content: 'F2' }]), 'free.json');
  assert.equal((await cli(root, home, ['tx', 'inspect', free])).exitCode, 0);
  const rec = await cli(root, home, ['tx', 'recover']);
  assert.deepEqual(rec.json.recovered.map((r: { operation_id: string; outcome: string }) => [r.operation_id, r.outcome]), [['cut', 'rolled_back']]);
  assert.equal(fs.readFileSync(path.join(root, 'x.md'), 'utf8'), 'X');
  const sleeper = spawn('sleep', ['30']);
  try {
    await new Promise((r) => setTimeout(r, 50));
    plantLock(root, { pid: sleeper.pid, start_time: processStartTime(sleeper.pid!) });
    const locked = await cli(root, home, ['tx', 'status']);
    assert.deepEqual([locked.json.lock.owner.pid, locked.json.lock.liveness], [sleeper.pid, 'live']);
  } finally {
    sleeper.kill('SIGKILL');
  }
});
