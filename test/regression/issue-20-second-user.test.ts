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
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { CLI_BIN, REPO_ROOT, runCliProcess } from '../helpers/run-cli.js';
import { serve } from '../helpers/serve.js';
import { tempDir } from '../helpers/temp-vault.js';

const NOBODY = 65534;
const skip =
  process.getuid?.() !== 0
    ? 'needs root: it runs vaultgate as one user and probes it as another (nobody)'
    : spawnSync('setpriv', ['--version']).status !== 0
      ? 'setpriv (util-linux) is not installed'
      : false;

const started = new Set<number>();
after(() => {
  for (const pid of started) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
  }
});

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

test('issue 20.9: another local user cannot read the index, proposals or state, reach the daemon, or drive the web inbox', { skip, timeout: 180_000 }, async () => {
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
  const ownerEnv: Record<string, string> = { HOME: home, VAULTGATE_HOME: '', XDG_CACHE_HOME: '', XDG_DATA_HOME: '', XDG_CONFIG_HOME: '' };
  const cli = (args: string[], input?: string) => runCliProcess(['--vault', vault, ...args], { env: ownerEnv, cwd: base, ...(input === undefined ? {} : { input }) });
  assert.equal((await cli(['search', 'launch'])).json?.total, 1, 'the owner indexed the vault');
  const sha = (await cli(['note', 'Secret.md'])).json.sha256 as string;
  const p = await cli(['propose', 'Secret.md', '--replace', 'zebra-42', '--with', 'okapi-7', '--base', sha, '--title', 'Rotate the code']);
  assert.equal(p.exitCode, 0, p.stdout + p.stderr);
  const st = await cli(['state', 'patch', 'plan', '--revision', '0'], '{"code": "zebra-42"}');
  assert.equal(st.exitCode, 0, st.stdout + st.stderr);
  const d = await cli(['daemon', 'start']);
  assert.equal(d.exitCode, 0, d.stdout + d.stderr);
  started.add(d.json.pid);
  const served = await serve(vault, home, [], ownerEnv);

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
  const run = (...args: string[]) => {
    const r = asNobody([process.execPath, probe, ...args]);
    assert.equal(r.status, 0, r.stderr);
    return JSON.parse(r.stdout) as { result: string; names?: string[]; body?: string };
  };
  try {
    // The vault itself is the owner's to share (0755 here): the probe can read it, so a refusal below is vaultgate's doing.
    assert.equal(run('read', path.join(vault, 'Secret.md')).result, 'ok', 'the probe really runs as a user who can read what others may');
    const leaks: string[] = [];
    for (const [what, file] of Object.entries(targets)) {
      const r = run('read', file);
      if (r.result === 'ok') leaks.push(`${what} (${file}) is readable`);
      for (const side of ['-wal', '-shm']) if (fs.existsSync(file + side) && run('read', file + side).result === 'ok') leaks.push(`${what}${side} is readable`);
    }
    for (const dir of [cache, data, path.dirname(targets.index), path.dirname(targets.proposals), path.dirname(status.socket)]) {
      const r = run('list', dir);
      if (r.result === 'ok') leaks.push(`${dir} can be listed: ${r.names?.join(', ')}`);
    }
    assert.deepEqual(leaks, [], 'another user reads vaultgate data');

    const sock = run('connect', status.socket);
    assert.notEqual(sock.result, 'ok', 'another user connected to the daemon socket');
    assert.match(sock.result, /EACCES|ENOENT/);

    const port = String(served.port);
    for (const call of ['GET /api/proposals', 'GET /api/proposals/p-1', 'GET /api/log', 'GET /api/session', 'POST /api/session', 'POST /api/proposals/p-1/decline']) {
      const r = run('http', port, call);
      assert.ok(r.result === '401' || r.result === '403', `${call} without the token answered ${r.result}: ${r.body}`);
      assert.ok(!r.body?.includes('zebra'), `${call} leaked note text`);
    }

    // vaultgate itself run by the other user against the owner's data: refused, never the text.
    // It must run a build that user can read (issue #20 §7): the repository's, when readable, else skipped.
    const readable = run('read', CLI_BIN).result === 'ok' && run('stat', path.join(REPO_ROOT, 'node_modules', 'better-sqlite3', 'package.json')).result === 'ok';
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
