import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isVaultgateError } from '../../src/errors.js';
import { applyBundle, faultyFsOps, inspectBundle, parseBundle, realFsOps, recoverVault, txStatus, type FsOps } from '../../src/txn/index.js';
import { CLI_BIN, runCli } from '../helpers/run-cli.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';
import { CAN_DROP_ROOT, cliReadableBy, NOBODY, runAs } from '../helpers/run-as.js';
import { makeBundle, sha, vaultImage, writeBundleFile, type WriteSpec } from '../unit/txn/txn-helpers.js';

/**
 * Issue #7, "not yet attacked": a read-only folder, a full disk, a vault folder
 * replaced under a running apply or between inspect and apply, a sync tool renaming
 * notes during an apply, and `content_file`s that are not files.
 */
const fastOps: FsOps = { ...realFsOps, fsync: () => {} };
const canDropRoot = CAN_DROP_ROOT;
test('a read-only target folder (as a non-root user): exit 3 WRITE_FAILED, everything rolled back, nothing left behind', async (t) => {
  const { root, home } = tempVault({ 'top.md': 'T', 'ro/a.md': 'A', 'ro/keep.md': 'K' });
  const writes: WriteSpec[] = [
    { path: 'top.md', mode: 'replace', content: 'T2' },
    { path: 'ro/a.md', mode: 'replace', content: 'A2' },
    { path: 'ro/b.md', mode: 'create', content: 'B' },
  ];
  const file = writeBundleFile(path.dirname(root), makeBundle(root, 'op1', writes));
  if (!canDropRoot) {
    // no second user here: deny the folder through the fault layer, as the kernel would
    t.diagnostic('not root or no setpriv: EACCES injected in-process for ro/');
    const deny: FsOps = { ...fastOps };
    for (const key of ['openExclusive', 'rename', 'link', 'unlink', 'mkdir'] as const) {
      const fn = fastOps[key] as (...a: string[]) => never;
      (deny as unknown as Record<string, unknown>)[key] = (...a: string[]) => {
        if (a.some((p) => typeof p === 'string' && p.startsWith(path.join(root, 'ro') + path.sep))) throw Object.assign(new Error('EACCES: permission denied'), { code: 'EACCES' });
        return fn(...a);
      };
    }
    const before = vaultImage(root);
    const b = parseBundle(fs.readFileSync(file), { baseDir: root });
    await assert.rejects(applyBundle(root, b, inspectBundle(root, b).approval_sha256, { ops: deny }), (e) => isVaultgateError(e) && e.code === 'WRITE_FAILED');
    assert.deepEqual(vaultImage(root), before);
    return;
  }
  // nobody must be able to load the build: a checkout in a 0700 folder is run from a readable copy
  const cli = cliReadableBy(NOBODY);
  if ('skip' in cli) {
    t.skip(cli.skip);
    return;
  }
  const BIN = cli.bin;
  fs.chmodSync(path.dirname(root), 0o755);
  spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, root, home]);
  fs.chmodSync(path.join(root, 'ro'), 0o555);
  const before = vaultImage(root);
  const env = { VAULTGATE_HOME: home };
  const i = runAs(NOBODY, [BIN, '--vault', root, 'tx', 'inspect', file], env);
  assert.equal(i.exitCode, 0, i.stdout + i.stderr);
  const a = runAs(NOBODY, [BIN, '--vault', root, 'tx', 'apply', file, '--approval', i.json.approval_sha256], env);
  assert.deepEqual([a.exitCode, a.json?.error?.code], [3, 'WRITE_FAILED'], a.stdout + a.stderr);
  assert.match(a.json.error.hint, /permission/i);
  assert.deepEqual(vaultImage(root), before, 'rolled back, no temp file left');
  assert.deepEqual(txStatus(root).pending, []);
  // a read-only vault root: not even .vaultgate/ can be made
  const { root: root2, home: home2 } = tempVault({ 'a.md': 'A' });
  fs.chmodSync(path.dirname(root2), 0o755);
  spawnSync('chown', ['-R', `${NOBODY}:${NOBODY}`, root2, home2]);
  fs.chmodSync(root2, 0o555);
  const f2 = writeBundleFile(path.dirname(root2), makeBundle(root2, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }]));
  const i2 = runAs(NOBODY, [BIN, '--vault', root2, 'tx', 'inspect', f2], { VAULTGATE_HOME: home2 });
  const a2 = runAs(NOBODY, [BIN, '--vault', root2, 'tx', 'apply', f2, '--approval', i2.json.approval_sha256], { VAULTGATE_HOME: home2 });
  assert.deepEqual([a2.exitCode, a2.json?.error?.code], [3, 'WRITE_FAILED'], a2.stdout + a2.stderr);
  assert.equal(fs.existsSync(path.join(root2, '.vaultgate')), false);
  assert.equal(fs.readFileSync(path.join(root2, 'a.md'), 'utf8'), 'A');
});

/**
 * The full-disk driver runs inside a private mount namespace on a 2 MiB tmpfs. For
 * each amount of free space it builds a vault, fills the disk to leave that many
 * bytes, applies a 300 KB bundle with the real CLI, then frees the space, recovers,
 * and reports the vault images (and the all-before and all-after images, from one
 * reference run on a disk with room).
 */
const FULL_DISK_DRIVER = `
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import { spawnSync } from 'node:child_process';
const [mnt, cli, refDir, ...frees] = process.argv.slice(2);
const sha = (b) => crypto.createHash('sha256').update(b).digest('hex');
const files = { 'a.md': 'A'.repeat(1000), 'b.md': 'B'.repeat(1000), 'sub/c.md': 'C', 'm.md': 'M' };
const writes = [
  { path: 'a.md', mode: 'replace', content: 'a'.repeat(100_000) },
  { path: 'new/deep/x.md', mode: 'create', content: 'x'.repeat(100_000) },
  { path: 'b.md', mode: 'replace', content: 'b'.repeat(100_000) },
  { path: 'sub/c.md', mode: 'delete' },
  { path: 'm.md', mode: 'move', to: 'moved/m.md' },
];
function make(root) {
  fs.mkdirSync(root);
  for (const [p, c] of Object.entries(files)) { fs.mkdirSync(path.dirname(path.join(root, p)), { recursive: true }); fs.writeFileSync(path.join(root, p), c); }
  const expected = {};
  for (const w of writes) for (const p of w.to ? [w.path, w.to] : [w.path]) expected[p] = fs.existsSync(path.join(root, p)) ? sha(fs.readFileSync(path.join(root, p))) : null;
  const bundle = root + '.json';
  fs.writeFileSync(bundle, JSON.stringify({ schema: 'vaultgate.transaction.v1', operation_id: 'big', operation_type: 'generic', writes, expected_hashes: expected, read_preconditions: {} }));
  return bundle;
}
function image(root) {
  const out = {};
  const walk = (d, rel) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { if (!rel && e.name === '.vaultgate') continue; const r = rel ? rel + '/' + e.name : e.name; const p = path.join(d, e.name); if (e.isDirectory()) { out[r + '/'] = 'dir'; walk(p, r); } else out[r] = sha(fs.readFileSync(p)); } };
  walk(root, '');
  return out;
}
const run = (root, args) => { const r = spawnSync(process.execPath, [cli, '--vault', root, ...args], { encoding: 'utf8', env: { ...process.env, VAULTGATE_LOCK_TIMEOUT_MS: '0' } }); let json; try { json = JSON.parse(r.stdout); } catch {} return { exit: r.status, json, stderr: r.stderr.slice(0, 2000) }; };
const ref = path.join(refDir, 'vault');
const refBundle = make(ref);
const before = image(ref);
run(ref, ['tx', 'apply', refBundle, '--approval', run(ref, ['tx', 'inspect', refBundle]).json.approval_sha256]);
const after = image(ref);
const results = [];
for (const free of frees) {
  const root = path.join(mnt, 'vault-' + free);
  const bundle = make(root);
  const approval = run(root, ['tx', 'inspect', bundle]).json.approval_sha256;
  run(root, ['init']);
  const st = fs.statfsSync(mnt);
  const avail = Number(st.bavail) * Number(st.bsize);
  const filler = path.join(mnt, 'filler');
  if (avail > Number(free)) fs.writeFileSync(filler, Buffer.alloc(avail - Number(free)));
  const a = run(root, ['tx', 'apply', bundle, '--approval', approval]);
  const whileFull = image(root);
  fs.rmSync(filler, { force: true });
  const rec = run(root, ['tx', 'recover']);
  const final = image(root);
  const pending = run(root, ['tx', 'status']).json.pending;
  fs.rmSync(root, { recursive: true, force: true });
  results.push({ free: Number(free), apply: a, whileFull, recover: { exit: rec.exit, json: rec.json }, final, pending });
}
console.log(JSON.stringify({ before, after, results }));
`;

test('a full disk (a 2 MiB tmpfs filled to leave 4 KB, 64 KB, 250 KB or 400 KB): apply ends whole or rolled back with a typed error, never half', async (t) => {
  const work = tempDir();
  const driver = path.join(work, 'driver.mjs');
  fs.writeFileSync(driver, FULL_DISK_DRIVER);
  const mnt = path.join(work, 'mnt');
  const ref = path.join(work, 'ref');
  fs.mkdirSync(mnt);
  fs.mkdirSync(ref);
  const frees = ['4096', '65536', '250000', '400000'];
  const r = spawnSync('unshare', ['-m', 'bash', '-c', 'mount -t tmpfs -o size=2m tmpfs "$1" && shift && exec "$@"', '_', mnt, process.execPath, driver, mnt, CLI_BIN, ref, ...frees], { encoding: 'utf8', timeout: 120_000 });
  if (r.status !== 0 && /mount|unshare|permission/i.test(r.stderr) && !r.stdout) {
    t.skip(`cannot mount a tmpfs in a private mount namespace here (${r.stderr.trim().split('\n')[0]}); ENOSPC at every step is covered by the fault matrix`);
    return;
  }
  assert.equal(r.status, 0, r.stderr);
  const { before, after, results } = JSON.parse(r.stdout);
  const seen: string[] = [];
  for (const out of results) {
    const code = out.apply.exit === 0 ? 'OK' : out.apply.json?.error?.code;
    seen.push(`${out.free}:${code}`);
    assert.notEqual(out.apply.exit, 1, `free ${out.free}: an internal error on a full disk: ${JSON.stringify(out.apply)}`);
    assert.ok(out.apply.json, `free ${out.free}: no JSON answer: ${out.apply.stderr}`);
    if (out.apply.exit === 0) assert.deepEqual(out.whileFull, after);
    else {
      assert.equal(out.apply.exit, 3, `free ${out.free}: ${JSON.stringify(out.apply.json)}`);
      assert.match(code, /^(WRITE_FAILED|RECOVERY_NEEDED)$/);
      if (code === 'WRITE_FAILED') assert.deepEqual(out.whileFull, before, `free ${out.free}: WRITE_FAILED says rolled back, but the vault is not all-before`);
    }
    assert.equal(out.recover.exit, 0, JSON.stringify(out.recover));
    assert.ok(JSON.stringify(out.final) === JSON.stringify(before) || JSON.stringify(out.final) === JSON.stringify(after), `free ${out.free}: after recovery the vault is neither before nor after`);
    assert.deepEqual(out.pending, []);
  }
  t.diagnostic(`free bytes → apply outcome: ${seen.join(', ')}`);
  assert.ok(seen.some((s) => !s.endsWith(':OK')), 'the disk was never full enough to refuse');
  assert.ok(seen.some((s) => s.endsWith(':OK')), 'the disk never had room enough');
});

test('the vault folder replaced by a copy between inspect and apply: exit 75, nothing written to either', async () => {
  const { root, home } = tempVault({ 'a.md': 'A' });
  await runCli(['init'], { vault: root, home });
  const file = writeBundleFile(path.dirname(root), makeBundle(root, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }]));
  const i = await runCli(['tx', 'inspect', file], { vault: root, home });
  fs.renameSync(root, root + '-moved');
  fs.cpSync(root + '-moved', root, { recursive: true });
  const a = await runCli(['tx', 'apply', file, '--approval', i.json.approval_sha256], { vault: root, home });
  assert.deepEqual([a.exitCode, a.json.error.code], [75, 'APPROVAL_MISMATCH']);
  assert.equal(fs.readFileSync(path.join(root, 'a.md'), 'utf8'), 'A');
  assert.equal(fs.readFileSync(path.join(root + '-moved', 'a.md'), 'utf8'), 'A');
});

test('the vault folder replaced by a copy in the middle of an apply: nothing more is written into the new folder; the old one recovers whole', async (t) => {
  const files: Record<string, string> = {};
  const writes: WriteSpec[] = [];
  for (let n = 0; n < 8; n++) {
    files[`n${n}.md`] = `old ${n}`;
    writes.push({ path: `n${n}.md`, mode: 'replace', content: `new ${n}` });
  }
  const probe = tempVault(files).root;
  const pb = parseBundle(Buffer.from(JSON.stringify(makeBundle(probe, 'op1', writes))), { baseDir: probe });
  const counter = faultyFsOps({ atStep: Number.MAX_SAFE_INTEGER, kind: 'crash' }, fastOps);
  await applyBundle(probe, pb, inspectBundle(probe, pb).approval_sha256, { ops: counter });
  let refused = 0;
  for (let k = 1; k <= counter.steps; k += 3) {
    const { root } = tempVault(files);
    const before = vaultImage(root);
    const b = parseBundle(Buffer.from(JSON.stringify(makeBundle(root, 'op1', writes))), { baseDir: root });
    const approval = inspectBundle(root, b).approval_sha256;
    let swappedImage: Record<string, string> | null = null;
    const ops = faultyFsOps({
      atStep: Number.MAX_SAFE_INTEGER,
      kind: 'crash',
      afterStep: (n) => {
        if (swappedImage || n < k) return;
        fs.renameSync(root, root + '-old');
        fs.cpSync(root + '-old', root, { recursive: true });
        swappedImage = vaultImage(root);
      },
    }, fastOps);
    try {
      await applyBundle(root, b, approval, { ops });
    } catch (e) {
      assert.ok(isVaultgateError(e), `k=${k}: ${(e as Error).stack}`);
      refused++;
    }
    if (!swappedImage) continue;
    assert.deepEqual(vaultImage(root), swappedImage, `k=${k}: the apply kept writing into the folder that replaced the vault`);
    await recoverVault(root + '-old', { ops: fastOps, lockTimeoutMs: 0 });
    const img = vaultImage(root + '-old');
    const all = Object.fromEntries(Object.keys(files).map((p) => [p, sha(`new ${p.slice(1, 2)}`)]));
    assert.ok(JSON.stringify(img) === JSON.stringify(before) || Object.entries(all).every(([p, h]) => img[p]?.endsWith(h)), `k=${k}: the moved vault is neither before nor after`);
  }
  t.diagnostic(`${counter.steps} steps; swapped after every third; refused ${refused}`);
  assert.ok(refused > 0);
});

const RENAMER = `
const fs = require('node:fs');
const [first, firstNew, target, to] = process.argv.slice(1);
const deadline = Date.now() + 60000;
for (;;) {
  let cur = null;
  try { cur = fs.readFileSync(first, 'utf8'); } catch {}
  if (cur === firstNew) break;
  if (Date.now() > deadline) process.exit(3);
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 1);
}
fs.renameSync(target, to);
`;

test('a sync tool renaming a note during a 1,000-write apply: the apply never claims a replace it did not make, and no bytes are lost', async (t) => {
  const N = 1000;
  const files: Record<string, string> = {};
  for (let n = 0; n < N; n++) files[`notes/n${String(n).padStart(4, '0')}.md`] = `old ${n}\n`;
  const { root, home } = tempVault(files, { tmpfs: true });
  const writes: WriteSpec[] = Object.keys(files).map((p, n) => ({ path: p, mode: 'replace', content: `new ${n}\n` }));
  const file = path.join(path.dirname(root), 'big.json');
  fs.writeFileSync(file, JSON.stringify(makeBundle(root, 'big', writes, 'note')));
  const approval = inspectBundle(root, parseBundle(fs.readFileSync(file), { baseDir: root })).approval_sha256;
  const target = path.join(root, 'notes/n0999.md');
  const renamed = path.join(root, 'notes/n0999 (conflicted copy).md');
  const spawnNode = (args: string[], env: Record<string, string> = {}) =>
    new Promise<{ code: number | null; stdout: string }>((resolve) => {
      const c = spawn(process.execPath, args, { env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'inherit'] });
      let stdout = '';
      c.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
      c.on('close', (code) => resolve({ code, stdout }));
    });
  const [ren, a] = await Promise.all([
    spawnNode(['-e', RENAMER, path.join(root, 'notes/n0000.md'), 'new 0\n', target, renamed]),
    spawnNode([CLI_BIN, '--vault', root, 'tx', 'apply', file, '--approval', approval], { VAULTGATE_HOME: home }),
  ]);
  assert.equal(ren.code, 0);
  const renamedText = fs.readFileSync(renamed, 'utf8');
  t.diagnostic(`apply exit ${a.code}; the renamed note holds ${JSON.stringify(renamedText)}`);
  if (a.code === 0) {
    assert.equal(renamedText, 'new 999\n', 'apply reported success, but the note it replaced was renamed away before its write (a create, not the approved replace)');
    assert.equal(fs.existsSync(target), false);
  } else {
    assert.deepEqual([a.code, JSON.parse(a.stdout).error.code], [75, 'STALE_HASH']);
    assert.equal(renamedText, 'old 999\n');
    assert.equal(fs.existsSync(target), false, 'the engine recreated a name the sync tool had moved away');
    for (let n = 0; n < N - 1; n++) assert.equal(fs.readFileSync(path.join(root, `notes/n${String(n).padStart(4, '0')}.md`), 'utf8'), `old ${n}\n`);
  }
  assert.deepEqual(txStatus(root).pending, []);
  assert.deepEqual(Object.keys(vaultImage(root)).filter((p) => p.includes('.vg-')), []);
});

test('content_file that is a FIFO, /dev/zero, a symlink to a device, or a /proc file: refused or read bounded, never a hang', async () => {
  const work = tempDir();
  const { root, home } = tempVault({});
  const fifo = path.join(work, 'fifo');
  spawnSync('mkfifo', [fifo]);
  fs.symlinkSync('/dev/zero', path.join(work, 'zero-link'));
  const bundle = (cf: string, sha256: string) =>
    JSON.stringify({ schema: 'vaultgate.transaction.v1', operation_id: 'op1', operation_type: 'generic', writes: [{ path: 'x.bin', mode: 'create', content_file: cf, sha256 }], expected_hashes: { 'x.bin': null }, read_preconditions: {} });
  for (const cf of [fifo, '/dev/zero', path.join(work, 'zero-link'), '/dev/urandom', '/proc/self']) {
    const f = path.join(work, 'b.json');
    fs.writeFileSync(f, bundle(cf, sha('x')));
    const r = runAs(null, [CLI_BIN, '--vault', root, 'tx', 'inspect', f], { VAULTGATE_HOME: home });
    assert.equal(r.signal, null, `${cf}: the CLI hung`);
    assert.deepEqual([r.exitCode, r.json?.error?.code], [2, 'BUNDLE_INVALID'], `${cf}: ${r.stdout}${r.stderr}`);
    assert.match(r.json.error.message, /not a regular file/);
  }
  // a /proc file says size 0 but has content: read with a bound, then checked by hash
  if (fs.existsSync('/proc/sys/kernel/ostype')) {
    const text = fs.readFileSync('/proc/sys/kernel/ostype');
    const f = path.join(work, 'p.json');
    fs.writeFileSync(f, bundle('/proc/sys/kernel/ostype', sha(text)));
    const r = runAs(null, [CLI_BIN, '--vault', root, 'tx', 'inspect', f], { VAULTGATE_HOME: home });
    assert.equal(r.exitCode, 0, r.stdout);
    assert.equal(r.json.writes[0].new_sha256, sha(text));
  }
  // the bundle argument itself: a device is refused at once, not read for 300 MiB
  const z = runAs(null, [CLI_BIN, '--vault', root, 'tx', 'inspect', '/dev/zero'], { VAULTGATE_HOME: home });
  assert.deepEqual([z.exitCode, z.json?.error?.code], [2, 'BUNDLE_INVALID'], z.stdout);
  assert.match(z.json.error.message, /not a regular file/);
});
