import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { processStartTime } from '../../src/txn/lock.js';
import { runCli } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';
import { crashAfter, makeBundle, vaultImage, writeBundleFile, type WriteSpec } from '../unit/txn/txn-helpers.js';

/** Issue #7, "not yet attacked": `tx resolve` edge cases and `checkpoint` against unusual git states. */
const cli = (root: string, home: string, args: string[], env: Record<string, string> = {}) => runCli(args, { vault: root, home, env });

async function apply(root: string, home: string, op: string, writes: WriteSpec[]) {
  const file = writeBundleFile(path.dirname(root), makeBundle(root, op, writes), `${op}.json`);
  const i = await cli(root, home, ['tx', 'inspect', file]);
  assert.equal(i.exitCode, 0, i.stdout);
  const a = await cli(root, home, ['tx', 'apply', file, '--approval', i.json.approval_sha256]);
  assert.equal(a.exitCode, 0, a.stdout);
  return a;
}

async function quarantined(files: Record<string, string>) {
  const { root, home } = tempVault(files);
  await cli(root, home, ['init']);
  await crashAfter(root, makeBundle(root, 'q', [{ path: 'x.md', mode: 'replace', content: 'X2' }, { path: 'y.md', mode: 'replace', content: 'Y2' }]),
    (op, args) => (op === 'rename' || op === 'link') && String(args[1]).endsWith('/x.md'));
  fs.writeFileSync(path.join(root, 'x.md'), 'edit during the outage');
  const r = await cli(root, home, ['tx', 'recover']);
  assert.deepEqual(r.json.recovered.map((o: { outcome: string }) => o.outcome), ['quarantined']);
  return { root, home };
}

test('tx resolve: an unknown id, a malformed id, or a finished operation is exit 2 and changes nothing', async () => {
  const { root, home } = tempVault({ 'a.md': 'A' });
  await apply(root, home, 'done1', [{ path: 'a.md', mode: 'replace', content: 'A2' }]);
  const before = vaultImage(root);
  for (const id of ['nope', 'done1', '../txn', 'a/b']) {
    const r = await cli(root, home, ['tx', 'resolve', id, '--keep-current']);
    assert.equal(r.exitCode, 2, `${id}: ${r.stdout}`);
    assert.match(r.json.error.code, /^(OPERATION_UNKNOWN|USAGE)$/);
  }
  assert.deepEqual(vaultImage(root), before);
});

test('tx resolve on an interrupted (not quarantined) operation reports what recovery did instead of "no pending operation"', async () => {
  const { root, home } = tempVault({ 'x.md': 'X', 'y.md': 'Y' });
  await cli(root, home, ['init']);
  await crashAfter(root, makeBundle(root, 'cut', [{ path: 'x.md', mode: 'replace', content: 'X2' }, { path: 'y.md', mode: 'replace', content: 'Y2' }]),
    (op, args) => (op === 'rename' || op === 'link') && String(args[1]).endsWith('/x.md'));
  const r = await cli(root, home, ['tx', 'resolve', 'cut', '--restore-original']);
  assert.equal(r.exitCode, 0, r.stdout);
  assert.equal(r.json.outcome, 'rolled_back');
  assert.equal(fs.readFileSync(path.join(root, 'x.md'), 'utf8'), 'X');
});

test('tx resolve --restore-original with the original gone from the journal: RECOVERY_FAILED, nothing changed, still quarantined; --keep-current then settles it', async () => {
  const { root, home } = await quarantined({ 'x.md': 'X', 'y.md': 'Y' });
  // the original of x.md is gone: its backup, and the original moved aside beside it
  fs.rmSync(path.join(root, '.vaultgate/txn/pending/q/b0'));
  for (const n of fs.readdirSync(root)) if (/^\.x\.md\.vg-.*\.old$/.test(n)) fs.rmSync(path.join(root, n));
  const before = vaultImage(root);
  const r = await cli(root, home, ['tx', 'resolve', 'q', '--restore-original']);
  assert.deepEqual([r.exitCode, r.json.error.code], [3, 'RECOVERY_FAILED']);
  assert.deepEqual(vaultImage(root), before, 'a failed restore changed the vault');
  const st = await cli(root, home, ['tx', 'status']);
  assert.deepEqual(st.json.pending.map((p: { state: string }) => p.state), ['quarantined']);
  const k = await cli(root, home, ['tx', 'resolve', 'q', '--keep-current']);
  assert.deepEqual([k.exitCode, k.json.outcome], [0, 'resolved_keep_current']);
  assert.equal(fs.readFileSync(path.join(root, 'x.md'), 'utf8'), 'edit during the outage');
  assert.deepEqual((await cli(root, home, ['tx', 'status'])).json.pending, []);
  const again = await cli(root, home, ['tx', 'resolve', 'q', '--keep-current']);
  assert.equal(again.exitCode, 2);
  const undo = await cli(root, home, ['undo', 'q']);
  assert.deepEqual([undo.exitCode, undo.json.error.code], [2, 'UNDO_UNAVAILABLE']);
});

test('tx resolve while another process holds the lock waits, then is LOCK_BUSY (75), changing nothing', async () => {
  const { root, home } = await quarantined({ 'x.md': 'X', 'y.md': 'Y' });
  const sleeper = spawn('sleep', ['30']);
  try {
    await new Promise((r) => setTimeout(r, 50));
    const dir = path.join(root, '.vaultgate/lock');
    fs.mkdirSync(dir);
    fs.writeFileSync(path.join(dir, 'owner.json'), JSON.stringify({ pid: sleeper.pid, host: os.hostname(), token: 'x', start_time: processStartTime(sleeper.pid!), acquired_at: new Date().toISOString(), heartbeat_ms: Date.now() }));
    const before = vaultImage(root);
    const r = await cli(root, home, ['tx', 'resolve', 'q', '--restore-original'], { VAULTGATE_LOCK_TIMEOUT_MS: '100' });
    assert.deepEqual([r.exitCode, r.json.error.code], [75, 'LOCK_BUSY']);
    assert.deepEqual(vaultImage(root), before);
  } finally {
    sleeper.kill('SIGKILL');
  }
});

test('tx resolve --restore-original twice in a row: the second is exit 2 and the displaced copy of the edit is kept', async () => {
  const { root, home } = await quarantined({ 'x.md': 'X', 'y.md': 'Y' });
  const r = await cli(root, home, ['tx', 'resolve', 'q', '--restore-original']);
  assert.equal(r.exitCode, 0, r.stdout);
  const displaced = path.join(root, r.json.displaced[0]);
  assert.equal(fs.readFileSync(displaced, 'utf8'), 'edit during the outage');
  const again = await cli(root, home, ['tx', 'resolve', 'q', '--restore-original']);
  assert.equal(again.exitCode, 2);
  assert.equal(fs.readFileSync(displaced, 'utf8'), 'edit during the outage');
  assert.equal(fs.readFileSync(path.join(root, 'x.md'), 'utf8'), 'X');
});

function gitRepo(root: string) {
  const git = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  git('init', '-q');
  git('config', 'user.name', 'Vault Owner');
  git('config', 'user.email', 'owner@example.org');
  git('config', 'commit.gpgsign', 'false');
  return git;
}

test('checkpoint with a pre-commit hook that stages another file still commits exactly the operation', async () => {
  const { root, home } = tempVault({ 'a.md': 'A', 'other.md': 'O' });
  const git = gitRepo(root);
  git('add', '.');
  git('commit', '-qm', 'base');
  await apply(root, home, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }]);
  fs.writeFileSync(path.join(root, 'other.md'), 'not part of op1');
  const hook = path.join(root, '.git/hooks/pre-commit');
  fs.writeFileSync(hook, '#!/bin/sh\ngit add other.md\n');
  fs.chmodSync(hook, 0o755);
  const c = await cli(root, home, ['checkpoint', 'op1']);
  assert.equal(c.exitCode, 0, c.stdout);
  assert.deepEqual(git('show', '--name-only', '--format=', 'HEAD').stdout.trim().split('\n'), ['a.md']);
  assert.match(git('status', '--porcelain').stdout, / M other\.md/, 'the unrelated edit stays uncommitted and unstaged');
});

test('checkpoint with a failing commit-msg hook, on a detached HEAD, and in a repository without commits', async () => {
  // failing hook: the checkpoint is exact by construction and does not depend on hooks
  const v1 = tempVault({ 'a.md': 'A' });
  const g1 = gitRepo(v1.root);
  g1('add', '.');
  g1('commit', '-qm', 'base');
  await apply(v1.root, v1.home, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }]);
  fs.writeFileSync(path.join(v1.root, '.git/hooks/commit-msg'), '#!/bin/sh\nexit 1\n');
  fs.chmodSync(path.join(v1.root, '.git/hooks/commit-msg'), 0o755);
  const c1 = await cli(v1.root, v1.home, ['checkpoint', 'op1']);
  assert.equal(c1.exitCode, 0, c1.stdout);
  assert.equal(g1('show', 'HEAD:a.md').stdout, 'A2');
  assert.equal(g1('diff', '--cached', '--name-only').stdout, '', 'the index is clean afterwards');
  // detached HEAD: the commit goes on the detached HEAD, the branch does not move, and the answer says so
  const v2 = tempVault({ 'a.md': 'A' });
  const g2 = gitRepo(v2.root);
  g2('add', '.');
  g2('commit', '-qm', 'base');
  const branchTip = g2('rev-parse', 'HEAD').stdout.trim();
  const branch = g2('symbolic-ref', '--short', 'HEAD').stdout.trim();
  g2('checkout', '-q', '--detach');
  await apply(v2.root, v2.home, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }]);
  const c2 = await cli(v2.root, v2.home, ['checkpoint', 'op1']);
  assert.equal(c2.exitCode, 0, c2.stdout);
  assert.equal(c2.json.detached, true);
  assert.equal(g2('rev-parse', branch).stdout.trim(), branchTip);
  assert.equal(g2('rev-parse', 'HEAD~1').stdout.trim(), branchTip);
  // no commits yet
  const v3 = tempVault({ 'a.md': 'A' });
  const g3 = gitRepo(v3.root);
  await apply(v3.root, v3.home, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }, { path: 'n.md', mode: 'create', content: 'N' }]);
  const c3 = await cli(v3.root, v3.home, ['checkpoint', 'op1']);
  assert.equal(c3.exitCode, 0, c3.stdout);
  assert.deepEqual(g3('show', '--name-only', '--format=', 'HEAD').stdout.trim().split('\n').sort(), ['a.md', 'n.md']);
});

test('checkpoint refuses while a merge is in progress (the commit would not be a merge)', async () => {
  const { root, home } = tempVault({ 'a.md': 'A', 'c.md': 'base\n' });
  const git = gitRepo(root);
  git('add', '.');
  git('commit', '-qm', 'base');
  const main = git('symbolic-ref', '--short', 'HEAD').stdout.trim();
  git('checkout', '-qb', 'side');
  fs.writeFileSync(path.join(root, 'c.md'), 'side\n');
  git('commit', '-qam', 'side');
  git('checkout', '-q', main);
  fs.writeFileSync(path.join(root, 'c.md'), 'main\n');
  git('commit', '-qam', 'main');
  git('merge', '-q', 'side'); // conflicts in c.md
  // resolved to our side: nothing staged against HEAD, but the merge is still in progress
  git('checkout', '--ours', 'c.md');
  git('add', 'c.md');
  assert.equal(git('diff', '--cached', '--name-only').stdout, '');
  assert.equal(git('rev-parse', '-q', '--verify', 'MERGE_HEAD').status, 0);
  await apply(root, home, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }]);
  const head = git('rev-parse', 'HEAD').stdout.trim();
  const c = await cli(root, home, ['checkpoint', 'op1']);
  assert.deepEqual([c.exitCode, c.json.error?.code], [75, 'GIT_INDEX_DIRTY'], c.stdout);
  assert.match(c.json.error.message, /merge/);
  assert.equal(git('rev-parse', 'HEAD').stdout.trim(), head);
});
