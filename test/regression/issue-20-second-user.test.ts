/**
 * Issue #20 class 9: a second local user. Everything so far ran as root, with
 * VAULTGATE_HOME in a 0700 temporary folder, which hid what the data folders'
 * own modes were. Here the owner runs vaultgate with a home others may enter
 * (0755, as many systems make homes), so only vaultgate's own folder and file
 * modes stand between its data and another user: the index (the text of every
 * note), the proposals (old and new texts), the working state, the daemon's
 * socket and token. An unprivileged user (`nobody`, through setpriv) then tries
 * to read each and to drive the daemon and the web inbox.
 *
 * The probe is a plain Node script in a folder `nobody` can read; it needs no
 * vaultgate build. The one step that runs vaultgate as `nobody` uses a copy of
 * the build in a readable place (issue #20 §7), or is skipped with the reason.
 */
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { CLI_BIN, REPO_ROOT, type CliRun } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-vault.js';
import { killAtEnd } from '../helpers/kill-at-end.js';

const NOBODY = 65534;
const skip =
  process.getuid?.() !== 0
    ? 'needs root: it runs vaultgate as one user and probes it as another (nobody)'
    : spawnSync('setpriv', ['--version']).status !== 0
      ? 'setpriv (util-linux) is not installed'
      : false;

const started = killAtEnd();

/** What `nobody` managed: 'ok' (it could) or the error code. */
const PROBE = `
const fs = require('fs'), net = require('net'), http = require('http');
const [what, target, extra] = process.argv.slice(2);
const done = (r) => { process.stdout.write(JSON.stringify(r)); process.exit(0); };
const fail = (e) => done({ result: e.code || e.message });
if (what === 'read') { try { fs.readFileSync(target); done({ result: 'ok' }); } catch (e) { fail(e); } }
else if (what === 'list') { try { done({ result: 'ok', names: fs.readdirSync(target) }); } catch (e) { fail(e); } }
else if (what === 'stat') { try { fs.statSync(target); done({ result: 'ok' }); } catch (e) { fail(e); } }
else if (what === 'connect') {
  const c = net.createConnection(target, () => { c.write(JSON.stringify({ t: 'status', v: 1, token: 'f'.repeat(64) }) + '\\n'); done({ result: 'ok' }); });
  c.on('error', fail);
} else if (what === 'http') {
  const [method, p] = extra.split(' ');
  const req = http.request({ host: '127.0.0.1', port: Number(target), method, path: p, headers: { Host: '127.0.0.1:' + target, Origin: 'http://127.0.0.1:' + target, 'Content-Type': 'application/json' } }, (res) => {
    let body = ''; res.on('data', (d) => (body += d)); res.on('end', () => done({ result: String(res.statusCode), body }));
  });
  req.on('error', fail);
  req.end(method === 'POST' ? '{}' : undefined);
}
`;

function asNobody(args: string[], env: Record<string, string> = {}): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('setpriv', [`--reuid=${NOBODY}`, `--regid=${NOBODY}`, '--clear-groups', ...args], {
    encoding: 'utf8',
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', HOME: '/nonexistent', ...env },
    timeout: 60_000,
  });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

/** Who runs vaultgate: root, or an unprivileged user the test creates (and removes). */
interface Owner {
  label: string;
  uid: number;
  gid: number;
}

/** The compiled CLI run as `owner` (spawn's uid/gid: no setpriv needed for the owner). */
function ownerCli(owner: Owner, env: Record<string, string>, cwd: string) {
  return (args: string[], input?: string): Promise<CliRun> =>
    new Promise((resolve, reject) => {
      const child = spawn(process.execPath, [CLI_BIN, ...args], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, cwd, uid: owner.uid, gid: owner.gid, stdio: ['pipe', 'pipe', 'pipe'], timeout: 120_000 });
      let stdout = '';
      let stderr = '';
      child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
      child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
      child.on('error', reject);
      child.on('close', (code) => {
        let json: any;
        try {
          json = JSON.parse(stdout);
        } catch {
          json = undefined;
        }
        resolve({ exitCode: code ?? 1, stdout, stderr, json });
      });
      child.stdin.end(input ?? '');
    });
}

/** `vaultgate serve` run as `owner`: its one JSON line, and a stop. */
function ownerServe(owner: Owner, env: Record<string, string>, vault: string): Promise<{ port: number; token: string; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [CLI_BIN, 'serve', '--vault', vault, '--port', '0'], { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', ...env }, uid: owner.uid, gid: owner.gid, stdio: ['ignore', 'pipe', 'pipe'] });
  const exited = new Promise<void>((r) => child.on('exit', () => r()));
  let stdout = '';
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve printed nothing: ${stderr}`)), 30_000);
    child.on('exit', (code) => reject(new Error(`serve exited ${code}: ${stderr}`)));
    child.stdout.setEncoding('utf8').on('data', (d) => {
      stdout += d;
      if (!stdout.includes('\n')) return;
      clearTimeout(timer);
      const line = JSON.parse(stdout.slice(0, stdout.indexOf('\n'))) as { port: number; token: string };
      resolve({ ...line, stop: () => (child.kill('SIGTERM'), exited) });
    });
  });
}

/** A user for the test, or the reason there is none. */
function createUser(): Owner | string {
  if (spawnSync('useradd', ['--help']).status !== 0) return 'useradd is not installed';
  const name = `vgt${crypto.randomBytes(4).toString('hex')}`;
  const r = spawnSync('useradd', ['--no-create-home', '--shell', '/usr/sbin/nologin', '--user-group', name], { encoding: 'utf8' });
  if (r.status !== 0) return `useradd failed: ${r.stderr.trim()}`;
  const id = (flag: string) => Number(spawnSync('id', [flag, name], { encoding: 'utf8' }).stdout.trim());
  return { label: name, uid: id('-u'), gid: id('-g') };
}

function removeUser(owner: Owner): void {
  spawnSync('userdel', [owner.label]);
  spawnSync('groupdel', [owner.label]);
}

for (const kind of ['root', 'an unprivileged user'] as const) {
test(`issue 20.9: run by ${kind}, vaultgate's data is closed to another local user: index, proposals, state, the daemon's socket, the web inbox without its token`, { skip, timeout: 180_000 }, async (t) => {
  let owner: Owner;
  if (kind === 'root') owner = { label: 'root', uid: 0, gid: 0 };
  else {
    const made = createUser();
    if (typeof made === 'string') return void t.skip(made);
    owner = made;
    t.after(() => removeUser(owner));
  }
  // The owner's world: a home others may traverse, as on many systems.
  const base = tempDir('vaultgate-second-user-');
  fs.chmodSync(base, 0o755);
  const home = path.join(base, 'home');
  const vault = path.join(base, 'vault');
  fs.mkdirSync(home, { mode: 0o755 });
  fs.mkdirSync(vault, { mode: 0o755 });
  fs.writeFileSync(path.join(vault, 'Secret.md'), '# Secret\nThe launch code is zebra-42.\n');
  // vaultgate's roots as an older version left them (made under a 0022 umask): the next command must close them.
  for (const d of [path.join(home, '.cache', 'vaultgate'), path.join(home, '.local', 'share', 'vaultgate')]) {
    fs.mkdirSync(d, { recursive: true });
    fs.chmodSync(d, 0o755);
  }
  // The owner's files are the owner's (the tree is handed over, as a real home would be).
  for (const d of [home, vault]) spawnSync('chown', ['-R', `${owner.uid}:${owner.gid}`, d]);
  const ownerEnv: Record<string, string> = { HOME: home };
  const run = ownerCli(owner, ownerEnv, base);
  const cli = (args: string[], input?: string) => run(['--vault', vault, ...args], input);
  assert.equal((await cli(['search', 'launch'])).json?.total, 1, 'the owner indexed the vault');
  const sha = (await cli(['note', 'Secret.md'])).json.sha256 as string;
  const p = await cli(['propose', 'Secret.md', '--replace', 'zebra-42', '--with', 'okapi-7', '--base', sha, '--title', 'Rotate the code']);
  assert.equal(p.exitCode, 0, p.stdout + p.stderr);
  const st = await cli(['state', 'patch', 'plan', '--revision', '0'], '{"code": "zebra-42"}');
  assert.equal(st.exitCode, 0, st.stdout + st.stderr);
  const d = await cli(['daemon', 'start']);
  assert.equal(d.exitCode, 0, d.stdout + d.stderr);
  started.add(d.json.pid);
  const served = await ownerServe(owner, ownerEnv, vault);

  // Where everything landed (the XDG defaults under $HOME).
  const cache = path.join(home, '.cache', 'vaultgate');
  const data = path.join(home, '.local', 'share', 'vaultgate');
  const find = (root: string, name: string): string => {
    for (const e of fs.readdirSync(root, { withFileTypes: true, recursive: true })) if (e.name === name) return path.join(e.parentPath, e.name);
    throw new Error(`${name} not found under ${root}`);
  };
  const status = (await cli(['daemon', 'status'])).json;
  const targets = {
    index: find(cache, 'index.sqlite'),
    proposals: find(data, 'proposals.sqlite'),
    state: find(data, 'state.sqlite'),
    'daemon token': status.socket.replace(/\.sock$/, '.token'),
    'daemon log': status.log,
  };
  for (const [what, file] of Object.entries(targets)) assert.ok(fs.existsSync(file), `${what}: ${file}`);

  const probeDir = tempDir('vaultgate-probe-');
  fs.chmodSync(probeDir, 0o755);
  const probe = path.join(probeDir, 'probe.cjs');
  fs.writeFileSync(probe, PROBE, { mode: 0o644 });
  const probeRun = (...args: string[]) => {
    const r = asNobody([process.execPath, probe, ...args]);
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as { result: string; names?: string[]; body?: string };
  };
  try {
    // The vault itself is the owner's to share (0755 here): the probe can read it, so a refusal below is vaultgate's doing.
    assert.equal(probeRun('read', path.join(vault, 'Secret.md')).result, 'ok', 'the probe really runs as a user who can read what others may');
    const leaks: string[] = [];
    for (const [what, file] of Object.entries(targets)) {
      const r = probeRun('read', file);
      if (r.result === 'ok') leaks.push(`${what} (${file}) is readable`);
      for (const side of ['-wal', '-shm']) if (fs.existsSync(file + side) && probeRun('read', file + side).result === 'ok') leaks.push(`${what}${side} is readable`);
    }
    for (const dir of [cache, data, path.dirname(targets.index), path.dirname(targets.proposals), path.dirname(status.socket)]) {
      const r = probeRun('list', dir);
      if (r.result === 'ok') leaks.push(`${dir} can be listed: ${r.names?.join(', ')}`);
    }
    assert.deepEqual(leaks, [], 'another user reads vaultgate data');

    const sock = probeRun('connect', status.socket);
    assert.notEqual(sock.result, 'ok', 'another user connected to the daemon socket');
    assert.match(sock.result, /EACCES|ENOENT/);

    const port = String(served.port);
    for (const call of ['GET /api/proposals', 'GET /api/proposals/p-1', 'GET /api/log', 'GET /api/session', 'POST /api/session', 'POST /api/proposals/p-1/decline']) {
      const r = probeRun('http', port, call);
      assert.ok(r.result === '401' || r.result === '403', `${call} without the token answered ${r.result}: ${r.body}`);
      assert.ok(!r.body?.includes('zebra'), `${call} leaked note text`);
    }

    // vaultgate itself run by the other user against the owner's data: refused, never the text.
    // It must run a build that user can read (issue #20 §7): the repository's, when readable, else skipped.
    const readable = probeRun('read', CLI_BIN).result === 'ok' && probeRun('stat', path.join(REPO_ROOT, 'node_modules', 'better-sqlite3', 'package.json')).result === 'ok';
    if (readable) {
      const r = asNobody([process.execPath, CLI_BIN, '--vault', vault, 'search', 'launch', '--json'], { HOME: home });
      assert.ok(!r.stdout.includes('zebra') && !r.stdout.includes('launch code'), `vaultgate as another user printed the owner's index: ${r.stdout}`);
      const ps = asNobody([process.execPath, CLI_BIN, '--vault', vault, 'proposals', '--json'], { HOME: home });
      assert.ok(!ps.stdout.includes('Rotate the code'), `vaultgate as another user listed the owner's proposals: ${ps.stdout}`);
    }

    // The owner still has everything.
    assert.equal((await cli(['search', 'launch'])).json.total, 1);
    assert.equal((await cli(['proposals'])).json.total, 1);
  } finally {
    await served.stop();
    await cli(['daemon', 'stop']);
  }
});
}
