/**
 * `vaultgate daemon`, end to end with the compiled binary: the CLI forwards
 * read commands to a running daemon and prints exactly what it would print by
 * itself; any problem (a killed daemon's stale socket, a foreign token, another
 * build) and it answers by itself; the daemon stops on `daemon stop` and when
 * its vault disappears.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, runCliProcess, type CliRun } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-vault.js';
import { killAtEnd } from '../helpers/kill-at-end.js';

const started = killAtEnd();

interface Demo {
  vault: string;
  home: string;
  base: string;
  /** Run the CLI; `inProcess` keeps it from asking the daemon (VAULTGATE_DAEMON=off). */
  cli(args: string[], opts?: { inProcess?: boolean }): Promise<CliRun>;
}

function demo(): Demo {
  const base = tempDir();
  const vault = path.join(base, 'vault');
  const home = path.join(base, 'home');
  fs.cpSync(path.join(REPO_ROOT, 'examples/demo-vault'), vault, { recursive: true });
  fs.mkdirSync(home);
  return {
    vault,
    home,
    base,
    cli: (args, opts = {}) => runCliProcess(['--vault', vault, ...args], { home, cwd: base, env: opts.inProcess ? { VAULTGATE_DAEMON: 'off' } : {} }),
  };
}

async function start(d: Demo): Promise<number> {
  const r = await d.cli(['daemon', 'start']);
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  assert.equal(r.json.started, true, r.stdout);
  started.add(r.json.pid);
  return r.json.pid;
}

async function status(d: Demo): Promise<any> {
  return (await d.cli(['daemon', 'status'])).json;
}

/** Polling (never a timing assertion): wait until `check` holds or give up after `ms`. */
async function until(check: () => boolean | Promise<boolean>, ms = 15_000): Promise<boolean> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (await check()) return true;
    await new Promise((r) => setTimeout(r, 50));
  }
  return check();
}

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Timings are the only field that may differ between two runs of one read. */
const stable = (s: string) => s.replace(/"took_ms":\d+/g, '"took_ms":0');

const READS: string[][] = [
  ['search', 'how does the robber work', '--limit', '3'],
  ['search', 'sourdough', '--path', 'Wiki/', '--limit', '2'],
  ['search', 'robber', '--text'],
  ['search', '"no such phrase anywhere"'],
  ['context', 'How many cards do I discard on a 7?', '--budget-chars', '3000'],
  ['context', 'sourdough starter', '--format', 'markdown', '--budget-chars', '2000'],
  ['context', 'sourdough starter', '--format', 'markdown', '--json', '--budget-chars', '2000'],
  ['note', 'Home.md'],
  ['note', 'Games/Catan/Rules.md', '--heading', 'The robber on a 7'],
  ['note', 'Rules'],
  ['note', 'Missing.md'],
  ['resolve', '[[Rules]]', '--from', 'Games/Catan/Strategy.md'],
  ['links', 'Journal/2026-11-28.md'],
  ['backlinks', 'Wiki/Cooking/Sourdough.md'],
  ['check'],
  ['check', '--text', '--all'],
  ['search', '   '],
];

test('daemon: every read verb prints through the daemon exactly what it prints in-process (demo vault)', async () => {
  const d = demo();
  const pid = await start(d);
  try {
    const before = (await status(d)).requests;
    for (const args of READS) {
      const viaDaemon = await d.cli(args);
      const own = await d.cli(args, { inProcess: true });
      assert.equal(viaDaemon.exitCode, own.exitCode, `${args.join(' ')}: exit`);
      assert.equal(stable(viaDaemon.stdout), stable(own.stdout), `${args.join(' ')}: stdout`);
      assert.equal(viaDaemon.stderr, own.stderr, `${args.join(' ')}: stderr`);
    }
    const after = await status(d);
    assert.equal(after.requests - before, READS.length, 'every read was answered by the daemon');
    // Writes and maintenance never go through it.
    await d.cli(['tx', 'status']);
    await d.cli(['index']);
    // `--consent` asks the person on this process's terminal (issue 20.1): never the daemon, which has none.
    await d.cli(['search', 'robber', '--consent']);
    assert.equal((await status(d)).requests, after.requests);
  } finally {
    await d.cli(['daemon', 'stop']);
    await until(() => !alive(pid));
  }
});

test('daemon: a change made right before a read is in the answer (the watcher, then a re-stat)', async () => {
  const d = demo();
  const pid = await start(d);
  try {
    await until(async () => (await status(d)).freshness.watcher.state === 'live');
    await d.cli(['search', 'anything']); // the first read once the watch is live is its baseline walk
    const note = path.join(d.vault, 'Fresh note.md');
    fs.writeFileSync(note, '# Fresh\nA zorblatt appeared.\n');
    let r = await d.cli(['search', 'zorblatt']);
    assert.equal(r.json.total, 1, r.stdout);
    fs.writeFileSync(`${note}.tmp`, '# Fresh\nNothing to see.\n');
    fs.renameSync(`${note}.tmp`, note);
    r = await d.cli(['search', 'zorblatt']);
    assert.equal(r.json.total, 0, r.stdout);
    fs.renameSync(path.join(d.vault, 'Wiki'), path.join(d.vault, 'Knowledge'));
    r = await d.cli(['backlinks', 'Knowledge/Cooking/Sourdough.md']);
    const own = await d.cli(['backlinks', 'Knowledge/Cooking/Sourdough.md'], { inProcess: true });
    assert.equal(stable(r.stdout), stable(own.stdout));
    assert.ok(r.json.total > 0, r.stdout);
    const s = await status(d);
    assert.ok(s.freshness.patches >= 2, JSON.stringify(s.freshness));
  } finally {
    await d.cli(['daemon', 'stop']);
    await until(() => !alive(pid));
  }
});

test('daemon: a killed daemon leaves a stale socket; reads still answer, and daemon start replaces it', async () => {
  const d = demo();
  const pid = await start(d);
  process.kill(pid, 'SIGKILL');
  await until(() => !alive(pid));
  const s = await status(d);
  assert.equal(s.running, false);
  assert.equal(s.stale_socket, true);
  assert.ok(fs.existsSync(s.socket), 'the socket file is left behind');
  const r = await d.cli(['search', 'robber']);
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  assert.equal(stable(r.stdout), stable((await d.cli(['search', 'robber'], { inProcess: true })).stdout));
  const again = await start(d);
  assert.notEqual(again, pid);
  assert.equal((await status(d)).pid, again);
  await d.cli(['daemon', 'stop']);
  assert.ok(await until(() => !alive(again)), 'stopped');
  assert.equal(fs.existsSync(s.socket), false, 'stop removes the socket');
});

test('daemon: the socket is owner-only and refuses another token or another build; the CLI then answers itself', async () => {
  const d = demo();
  const pid = await start(d);
  try {
    const s = await status(d);
    assert.equal(fs.statSync(s.socket).mode & 0o777, 0o600);
    const tokenFile = s.socket.replace(/\.sock$/, '.token');
    assert.equal(fs.statSync(path.dirname(s.socket)).mode & 0o777, 0o700);
    assert.equal(fs.statSync(tokenFile).mode & 0o777, 0o600);
    const token = fs.readFileSync(tokenFile, 'utf8').trim();
    const ask = (request: object) =>
      new Promise<any>((resolve, reject) => {
        const c = net.createConnection(s.socket, () => c.write(`${JSON.stringify(request)}\n`));
        let text = '';
        c.setEncoding('utf8').on('data', (x) => (text += x));
        c.on('error', reject);
        c.on('close', () => resolve(JSON.parse(text.split('\n')[0]!)));
      });
    assert.deepEqual(await ask({ t: 'status', v: 1, token: 'f'.repeat(64) }), { t: 'refuse', reason: 'token' });
    const run = { t: 'run', v: 1, version: '0.1.0', argv: ['search', 'robber'], cwd: d.base, env: { VAULTGATE_HOME: d.home }, isTTY: false, stderrIsTTY: false };
    assert.deepEqual(await ask({ ...run, build: 'another-build', token }), { t: 'refuse', reason: 'another build of vaultgate' });
    assert.deepEqual(await ask({ ...run, build: s.build, token, argv: ['tx', 'status'] }), { t: 'refuse', reason: 'not a read command' });
    // A client holding the wrong token is refused and answers by itself.
    fs.writeFileSync(tokenFile, `${'0'.repeat(64)}\n`);
    const before = (await ask({ t: 'status', v: 1, token })).requests;
    const r = await d.cli(['search', 'robber']);
    assert.equal(r.exitCode, 0);
    assert.equal(r.json.total, 4);
    fs.writeFileSync(tokenFile, `${token}\n`);
    assert.equal((await ask({ t: 'status', v: 1, token })).requests, before, 'the daemon answered nothing');
  } finally {
    process.kill(pid, 'SIGTERM');
    await until(() => !alive(pid));
  }
});

test('daemon: it exits when its vault disappears, and on daemon stop', async () => {
  const d = demo();
  const pid = await start(d);
  const socket = (await status(d)).socket;
  fs.renameSync(d.vault, `${d.vault}-moved`);
  assert.ok(await until(() => !alive(pid)), 'the daemon exited after its vault went away');
  assert.equal(fs.existsSync(socket), false);
  fs.renameSync(`${d.vault}-moved`, d.vault);
  const second = await start(d);
  const stop = await d.cli(['daemon', 'stop']);
  assert.deepEqual([stop.json.stopped, stop.json.pid], [true, second]);
  assert.equal(alive(second), false, 'stop waits until the process is gone');
  const none = await d.cli(['daemon', 'stop']);
  assert.deepEqual([none.json.stopped, none.json.running], [false, false]);
});

test('daemon: start is a no-op while it runs; status reports pid, socket, uptime and vault', async () => {
  const d = demo();
  const pid = await start(d);
  try {
    const again = await d.cli(['daemon', 'start']);
    assert.deepEqual([again.json.started, again.json.already_running, again.json.pid], [false, true, pid]);
    const s = await status(d);
    assert.equal(s.running, true);
    assert.equal(s.vault, fs.realpathSync(d.vault));
    assert.equal(typeof s.uptime_s, 'number');
    assert.ok(s.socket.endsWith('.sock'));
    assert.equal(s.freshness.mode, 'watch');
    // The demo vault is far below the size where a query is split across reader threads.
    assert.equal(s.read_pool, null);
  } finally {
    await d.cli(['daemon', 'stop']);
    await until(() => !alive(pid));
  }
});

test('daemon: a vault chosen by the machine config (default_vault, by name) is forwarded too, and after a config edit the command still answers (by itself until the daemon re-reads the config)', async () => {
  const d = demo();
  fs.mkdirSync(path.join(d.home, 'config'));
  const config = path.join(d.home, 'config/config.yaml');
  fs.writeFileSync(config, `default_vault: demo\nvaults:\n  demo: ${d.vault}\n`);
  const cli = (args: string[], env: Record<string, string> = {}) => runCliProcess(args, { home: d.home, cwd: d.base, env });
  const r = await cli(['daemon', 'start']);
  assert.equal(r.json.started, true, r.stdout + r.stderr);
  started.add(r.json.pid);
  try {
    const count = async () => (await cli(['daemon', 'status'])).json.requests as number;
    const before = await count();
    const viaDaemon = await cli(['search', 'robber']);
    assert.equal(await count(), before + 1, 'forwarded without --vault');
    assert.equal(stable(viaDaemon.stdout), stable((await cli(['search', 'robber'], { VAULTGATE_DAEMON: 'off' })).stdout));
    // Other bytes, no cached parse yet: the process answers itself (and the same way).
    fs.appendFileSync(config, '# edited\n');
    const own = await cli(['search', 'robber']);
    assert.equal(own.exitCode, 0);
    assert.equal(stable(own.stdout), stable(viaDaemon.stdout));
  } finally {
    await cli(['daemon', 'stop']);
  }
});

test('daemon: four starts at once leave one daemon, and all say it runs (its token is the one on disk)', async () => {
  const d = demo();
  const runs = await Promise.all(Array.from({ length: 4 }, () => d.cli(['daemon', 'start'])));
  for (const r of runs) {
    assert.equal(r.exitCode, 0, r.stdout + r.stderr);
    if (r.json.pid) started.add(r.json.pid);
  }
  const s = await status(d);
  assert.equal(s.running, true);
  assert.deepEqual(runs.map((r) => r.json.pid), runs.map(() => s.pid), runs.map((r) => r.stdout).join('\n'));
  assert.equal(runs.filter((r) => r.json.started).length, 1);
  await d.cli(['daemon', 'stop']);
  assert.ok(await until(() => !alive(s.pid)));
});
