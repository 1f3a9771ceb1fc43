import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli, runCliProcess } from '../helpers/run-cli.js';
import { snapshotTree, tempDir, tempVault } from '../helpers/temp-vault.js';
import { makeBundle, sha, vaultImage, writeBundleFile } from '../unit/txn/txn-helpers.js';

const tx = (root: string, home: string, args: string[]) => runCli(args, { vault: root, home });

async function inspectApply(root: string, home: string, bundle: unknown, name = 'bundle.json') {
  const file = writeBundleFile(path.dirname(root), bundle, name);
  const i = await tx(root, home, ['tx', 'inspect', file]);
  assert.equal(i.exitCode, 0, i.stdout);
  const a = await tx(root, home, ['tx', 'apply', file, '--approval', i.json.approval_sha256]);
  return { file, inspect: i, apply: a };
}

test('tx inspect writes nothing anywhere, not even .vaultgate/, and lists old and new hashes', async () => {
  const { root, home } = tempVault({ 'a.md': 'A', 'b.md': 'B' });
  const before = snapshotTree(root, { includeHidden: true });
  const homeBefore = snapshotTree(home, { includeHidden: true });
  const file = writeBundleFile(path.dirname(root), makeBundle(root, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }, { path: 'n/c.md', mode: 'create', content: 'C' }]));
  const r = await tx(root, home, ['tx', 'inspect', file]);
  assert.equal(r.exitCode, 0, r.stdout);
  assert.deepEqual(Object.keys(r.json), ['ok', 'operation_id', 'approval_sha256', 'writes', 'read_preconditions']);
  assert.deepEqual(r.json.writes, [
    { path: 'a.md', mode: 'replace', old_sha256: sha('A'), new_sha256: sha('A2') },
    { path: 'n/c.md', mode: 'create', old_sha256: null, new_sha256: sha('C') },
  ]);
  assert.match(r.json.approval_sha256, /^[0-9a-f]{64}$/);
  assert.deepEqual(snapshotTree(root, { includeHidden: true }), before);
  assert.deepEqual(snapshotTree(home, { includeHidden: true }), homeBefore);
  assert.equal(fs.existsSync(path.join(root, '.vaultgate')), false);
});

test('the approval hash is the same before and after init, and the first apply initialises the vault', async () => {
  const { root, home } = tempVault({ 'a.md': 'A' });
  const file = writeBundleFile(path.dirname(root), makeBundle(root, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }]));
  const before = await tx(root, home, ['tx', 'inspect', file]);
  const init = await tx(root, home, ['init']);
  assert.equal(init.exitCode, 0);
  assert.equal(init.json.created, true);
  const after = await tx(root, home, ['tx', 'inspect', file]);
  assert.equal(after.json.approval_sha256, before.json.approval_sha256);
  const again = await tx(root, home, ['init']);
  assert.deepEqual([again.json.created, again.json.vault_id], [false, init.json.vault_id]);
  // a fresh, uninitialised vault: inspect, then apply initialises implicitly
  const v2 = tempVault({ 'a.md': 'A' });
  const r = await inspectApply(v2.root, v2.home, makeBundle(v2.root, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }]));
  assert.equal(r.apply.exitCode, 0, r.apply.stdout);
  assert.ok(fs.existsSync(path.join(v2.root, '.vaultgate/vault-id')));
  assert.notEqual(r.inspect.json.approval_sha256, before.json.approval_sha256, 'approvals are bound to one vault');
});

test('apply: a wrong approval, or any change since inspect (bytes or mode), is exit 75 and writes nothing', async () => {
  const { root, home } = tempVault({ 'a.md': 'A', 'b.md': 'B' });
  await tx(root, home, ['init']);
  const file = writeBundleFile(path.dirname(root), makeBundle(root, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }, { path: 'c.md', mode: 'create', content: 'C' }]));
  const i = await tx(root, home, ['tx', 'inspect', file]);
  const before = vaultImage(root);
  const wrong = await tx(root, home, ['tx', 'apply', file, '--approval', 'f'.repeat(64)]);
  assert.deepEqual([wrong.exitCode, wrong.json.error.code], [75, 'APPROVAL_MISMATCH']);
  assert.match(wrong.json.error.hint, /vaultgate tx inspect/);
  fs.chmodSync(path.join(root, 'a.md'), 0o600);
  const mode = await tx(root, home, ['tx', 'apply', file, '--approval', i.json.approval_sha256]);
  assert.deepEqual([mode.exitCode, mode.json.error.code], [75, 'APPROVAL_MISMATCH']);
  fs.chmodSync(path.join(root, 'a.md'), 0o644);
  fs.writeFileSync(path.join(root, 'a.md'), 'edited');
  const edited = await tx(root, home, ['tx', 'apply', file, '--approval', i.json.approval_sha256]);
  assert.deepEqual([edited.exitCode, edited.json.error.code], [75, 'STALE_HASH']);
  assert.equal(edited.json.error.path, 'a.md');
  fs.writeFileSync(path.join(root, 'a.md'), 'A');
  assert.deepEqual(vaultImage(root), before);
  const bad = await tx(root, home, ['tx', 'apply', file, '--approval', 'nothex']);
  assert.equal(bad.exitCode, 2);
  const ok = await tx(root, home, ['tx', 'apply', file, '--approval', i.json.approval_sha256]);
  assert.equal(ok.exitCode, 0, ok.stdout);
  assert.deepEqual(ok.json.changed_paths, ['a.md', 'c.md']);
});

test('read preconditions pin files the plan was derived from', async () => {
  const { root, home } = tempVault({ 'src.md': 'source', 'a.md': 'A' });
  const b = makeBundle(root, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }], 'note', { 'src.md': sha('source') });
  const file = writeBundleFile(path.dirname(root), b);
  const i = await tx(root, home, ['tx', 'inspect', file]);
  assert.deepEqual(i.json.read_preconditions, { 'src.md': sha('source') });
  fs.writeFileSync(path.join(root, 'src.md'), 'changed');
  const a = await tx(root, home, ['tx', 'apply', file, '--approval', i.json.approval_sha256]);
  assert.deepEqual([a.exitCode, a.json.error.code, a.json.error.path], [75, 'STALE_HASH', 'src.md']);
  assert.equal(fs.readFileSync(path.join(root, 'a.md'), 'utf8'), 'A');
});

test('replaying an operation id with the same bundle returns the stored result; another bundle under it is exit 2', async () => {
  const { root, home } = tempVault({ 'a.md': 'A' });
  const r = await inspectApply(root, home, makeBundle(root, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }]));
  assert.equal(r.apply.exitCode, 0);
  const again = await tx(root, home, ['tx', 'apply', r.file, '--approval', r.inspect.json.approval_sha256]);
  assert.equal(again.exitCode, 0);
  assert.deepEqual([again.json.replayed, again.json.changed_paths], [true, ['a.md']]);
  const other = makeBundle(root, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A3' }]);
  const f2 = writeBundleFile(path.dirname(root), other, 'other.json');
  const i2 = await tx(root, home, ['tx', 'inspect', f2]);
  const a2 = await tx(root, home, ['tx', 'apply', f2, '--approval', i2.json.approval_sha256]);
  assert.deepEqual([a2.exitCode, a2.json.error.code], [2, 'OPERATION_ID_REUSED']);
  assert.equal(fs.readFileSync(path.join(root, 'a.md'), 'utf8'), 'A2');
});

test('operation types are scopes: out of scope is exit 77, an unknown type exit 2', async () => {
  const { root, home } = tempVault({ 'Inbox/old.md': 'x' });
  await tx(root, home, ['init']);
  const check = async (type: string, writes: Parameters<typeof makeBundle>[2]) => {
    const file = writeBundleFile(path.dirname(root), makeBundle(root, 'op-' + type, writes, type));
    const r = await tx(root, home, ['tx', 'inspect', file]);
    if (r.exitCode !== 0) return [r.exitCode, r.json.error.code];
    const a = await tx(root, home, ['tx', 'apply', file, '--approval', r.json.approval_sha256]);
    return [a.exitCode, a.exitCode ? a.json.error.code : 'OK'];
  };
  assert.deepEqual(await check('note', [{ path: 'img.png', mode: 'create', content: 'x' }]), [77, 'OUT_OF_SCOPE']);
  assert.deepEqual(await check('attachment', [{ path: 'n.md', mode: 'create', content: 'x' }]), [77, 'OUT_OF_SCOPE']);
  assert.deepEqual(await check('capture', [{ path: 'elsewhere.md', mode: 'create', content: 'x' }]), [77, 'OUT_OF_SCOPE']);
  assert.deepEqual(await check('capture', [{ path: 'Inbox/old.md', mode: 'replace', content: 'y' }]), [77, 'OUT_OF_SCOPE']);
  assert.deepEqual(await check('bogus', [{ path: 'n.md', mode: 'create', content: 'x' }]), [2, 'BUNDLE_INVALID']);
  assert.deepEqual(await check('capture', [{ path: 'Inbox/new.md', mode: 'create', content: 'x' }]), [0, 'OK']);
  assert.deepEqual(await check('note', [{ path: 'n.md', mode: 'create', content: 'x' }]), [0, 'OK']);
});

test('a name that differs only by case from an existing file, or a symlinked folder, is refused', async () => {
  const { root, home } = tempVault({ 'Note.md': 'x', 'Dir/a.md': 'a' });
  const outside = path.join(path.dirname(root), 'outside');
  fs.mkdirSync(outside);
  fs.symlinkSync(outside, path.join(root, 'link'));
  const probe = async (p: string) => {
    const file = writeBundleFile(path.dirname(root), makeBundle(root, 'op1', [{ path: p, mode: 'create', content: 'y' }]));
    const r = await tx(root, home, ['tx', 'inspect', file]);
    return [r.exitCode, r.json.error?.code];
  };
  assert.deepEqual(await probe('note.md'), [2, 'PATH_CASE_ALIAS']);
  assert.deepEqual(await probe('dir/b.md'), [2, 'PATH_CASE_ALIAS']);
  assert.deepEqual(await probe('link/x.md'), [2, 'PATH_SYMLINK']);
  assert.deepEqual(fs.readdirSync(outside), []);
});

test('undo restores the exact bytes and modes, only while the files hold what the operation wrote; it works from a new process', async () => {
  const { root, home } = tempVault({ 'a.md': 'A', 'b.md': 'B', 'c.md': 'C' });
  fs.chmodSync(path.join(root, 'a.md'), 0o600);
  const before = vaultImage(root);
  const r = await inspectApply(root, home, makeBundle(root, 'op1', [
    { path: 'a.md', mode: 'replace', content: 'A2' },
    { path: 'n/new.md', mode: 'create', content: 'N' },
    { path: 'b.md', mode: 'delete' },
    { path: 'c.md', mode: 'move', to: 'm/c.md' },
  ]));
  assert.equal(r.apply.exitCode, 0, r.apply.stdout);
  fs.writeFileSync(path.join(root, 'n/new.md'), 'user edit');
  const conflict = await tx(root, home, ['undo', 'op1']);
  assert.deepEqual([conflict.exitCode, conflict.json.error.code], [75, 'UNDO_CONFLICT']);
  assert.deepEqual(conflict.json.error.details.changed.map((c: { path: string }) => c.path), ['n/new.md']);
  fs.writeFileSync(path.join(root, 'n/new.md'), 'N');
  const u = await runCliProcess(['undo', 'op1'], { vault: root, home });
  assert.equal(u.exitCode, 0, u.stdout + u.stderr);
  assert.equal(u.json.operation_id, '_undo-op1', 'undo runs in the engine’s own id namespace');
  assert.deepEqual(vaultImage(root), before);
  const twice = await tx(root, home, ['undo', 'op1']);
  assert.deepEqual([twice.exitCode, twice.json.replayed], [0, true]);
  const unknown = await tx(root, home, ['undo', 'nope']);
  assert.equal(unknown.exitCode, 2);
});

test('a bundle can come from stdin (-) through the real binary', async () => {
  const { root, home } = tempVault({ 'a.md': 'A' });
  const bundle = JSON.stringify(makeBundle(root, 'op1', [{ path: 'a.md', mode: 'replace', content: 'from stdin' }]));
  const i = await runCliProcess(['tx', 'inspect', '-'], { vault: root, home, input: bundle });
  assert.equal(i.exitCode, 0, i.stdout + i.stderr);
  const a = await runCliProcess(['tx', 'apply', '-', '--approval', i.json.approval_sha256], { vault: root, home, input: bundle });
  assert.equal(a.exitCode, 0, a.stdout + a.stderr);
  assert.equal(fs.readFileSync(path.join(root, 'a.md'), 'utf8'), 'from stdin');
});

test('checkpoint commits exactly the bytes the operation wrote, and refuses a git index with staged changes', async () => {
  const { root, home } = tempVault({ 'a.md': 'A', 'b.md': 'B', 'other.md': 'O' });
  const git = (...args: string[]) => spawnSync('git', args, { cwd: root, encoding: 'utf8' });
  git('init', '-q');
  git('config', 'user.name', 'Vault Owner');
  git('config', 'user.email', 'owner@example.org');
  git('add', '.');
  git('commit', '-qm', 'base');
  const r = await inspectApply(root, home, makeBundle(root, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }, { path: 'b.md', mode: 'move', to: 'sub/b.md' }]));
  assert.equal(r.apply.exitCode, 0);
  fs.writeFileSync(path.join(root, 'other.md'), 'unrelated edit, not committed');
  git('add', 'other.md');
  const dirty = await tx(root, home, ['checkpoint', 'op1']);
  assert.deepEqual([dirty.exitCode, dirty.json.error.code], [75, 'GIT_INDEX_DIRTY']);
  git('reset', '-q');
  const c = await tx(root, home, ['checkpoint', 'op1', '--message', 'apply op1']);
  assert.equal(c.exitCode, 0, c.stdout);
  assert.equal(git('log', '-1', '--format=%an <%ae>|%s').stdout.trim(), 'Vault Owner <owner@example.org>|apply op1');
  assert.deepEqual(git('show', '--no-renames', '--name-status', '--format=', 'HEAD').stdout.trim().split('\n').sort(), ['D\tb.md', 'A\tsub/b.md', 'M\ta.md'].sort());
  assert.equal(git('show', 'HEAD:a.md').stdout, 'A2');
  assert.match(git('status', '--porcelain').stdout, /other\.md/);
  const none = await tx(root, home, ['checkpoint', 'op1']);
  assert.deepEqual([none.exitCode, none.json.nothing_to_commit], [0, true]);
});

test('errors are JSON with code, message and hint on stdout', async () => {
  const { root, home } = tempVault({});
  const file = writeBundleFile(path.dirname(root), '{"schema": 1');
  const r = await tx(root, home, ['tx', 'inspect', file]);
  assert.equal(r.exitCode, 2);
  assert.equal(r.json.ok, false);
  assert.equal(r.json.error.code, 'BUNDLE_INVALID');
  assert.ok(r.json.error.message && r.json.error.hint);
  const missing = await tx(root, home, ['tx', 'inspect', path.join(root, 'nope.json')]);
  assert.equal(missing.exitCode, 2);
  const resolve = await tx(root, home, ['tx', 'resolve', 'x']);
  assert.deepEqual([resolve.exitCode, resolve.json.error.code], [2, 'USAGE']);
});

test('tx inspect names the file each content_file write is read from, so the approver sees where the bytes come from', async () => {
  const { root, home } = tempVault({ 'a.md': '# A\n' });
  const outside = tempDir();
  const secret = path.join(outside, 'id_rsa');
  fs.writeFileSync(secret, 'not really a key');
  const bundleDir = tempDir();
  const bundle = path.join(bundleDir, 'b.json');
  fs.writeFileSync(
    bundle,
    JSON.stringify({
      schema: 'vaultgate.transaction.v1',
      operation_id: 'cf-1',
      operation_type: 'generic',
      writes: [{ path: 'notes/copied.md', mode: 'create', content_file: secret, sha256: sha('not really a key') }],
      expected_hashes: { 'notes/copied.md': null },
    }),
  );
  const r = await runCliProcess(['tx', 'inspect', bundle], { vault: root, home });
  assert.equal(r.exitCode, 0, r.stdout);
  assert.equal(r.json.writes[0].content_file, secret);
});
