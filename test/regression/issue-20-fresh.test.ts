/**
 * Issue #20 class 2: an edit that keeps a note's size and mtime (`cp -p`,
 * `rsync -t`, `touch -r`, sync tools restoring mtimes) was invisible. The index
 * compared size + mtime only, so `search` kept the old text and hash, `context`
 * found the hash mismatch and retried into CONTEXT_UNSTABLE (75) on every call,
 * and the daemon served the stale text. The unchanged-file test now includes
 * ctime, inode and device; and a mismatch found while building evidence
 * re-indexes that note and goes on.
 *
 * Real CLI child processes on temporary vaults; the daemon through its socket.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createRequire } from 'node:module';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI_BIN, runCliProcess, type CliRun } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';
import { indexFile } from '../../src/index/db.js';
import { killAtEnd } from '../helpers/kill-at-end.js';

const OLD = '# Paint\nThe colour of the door is crimson.\n';
// Same length, different bytes.
const NEW = '# Paint\nThe colour of the door is emerald.\n';
assert.equal(Buffer.byteLength(OLD), Buffer.byteLength(NEW));

const started = killAtEnd();

function vault() {
  const { root, home } = tempVault({ 'Paint.md': OLD, 'Other.md': '# Other\nNothing about doors.\n' });
  // The note's times are in the past, as after a sync: the edit restores them exactly.
  const when = new Date('2025-03-01T10:00:00.123Z');
  fs.utimesSync(path.join(root, 'Paint.md'), when, when);
  const cli = (args: string[], env: Record<string, string> = { VAULTGATE_DAEMON: 'off' }): Promise<CliRun> =>
    runCliProcess(['--vault', root, ...args], { home, cwd: path.dirname(root), env });
  return { root, home, cli, note: path.join(root, 'Paint.md') };
}

/** Rewrite the note with the same size and put its old atime/mtime back, as `cp -p` does. */
function editKeepingStat(note: string, text: string): void {
  const before = fs.statSync(note);
  fs.writeFileSync(note, text);
  fs.utimesSync(note, before.atime, before.mtime);
  const now = fs.statSync(note);
  assert.deepEqual([now.size, now.mtimeMs], [before.size, before.mtimeMs], 'the edit kept size and mtime');
}

/**
 * A filesystem that cannot tell the edit apart at all: make the note's stored
 * stat the file's stat now, so only the hash check can see the change.
 */
function hideFromStat(v: { root: string; home: string; note: string }): void {
  const Database = createRequire(import.meta.url)('better-sqlite3');
  const db = new Database(indexFile(v.root, { VAULTGATE_HOME: v.home }));
  try {
    const st = fs.statSync(v.note);
    const cols = (db.prepare('PRAGMA table_info(files)').all() as { name: string }[]).map((c) => c.name);
    const set: Record<string, number> = { size: st.size, mtime_ms: st.mtimeMs };
    if (cols.includes('ctime_ms')) Object.assign(set, { ctime_ms: st.ctimeMs, ino: st.ino, dev: st.dev });
    db.prepare(`UPDATE files SET ${Object.keys(set).map((k) => `${k} = @${k}`).join(', ')} WHERE path = 'Paint.md'`).run(set);
  } finally {
    db.close();
  }
}

async function assertShowsNew(cli: (args: string[]) => Promise<CliRun>, label: string): Promise<void> {
  const fresh = await cli(['search', 'emerald']);
  assert.equal(fresh.exitCode, 0, fresh.stdout + fresh.stderr);
  assert.equal(fresh.json.total, 1, `${label}: search finds the new word: ${fresh.stdout}`);
  const stale = await cli(['search', 'crimson']);
  assert.equal(stale.json.total, 0, `${label}: search no longer finds the old word: ${stale.stdout}`);
  const ctx = await cli(['context', 'what colour is the door']);
  assert.equal(ctx.exitCode, 0, `${label}: context answers: ${ctx.stdout}`);
  const item = ctx.json.evidence.find((e: { path: string }) => e.path === 'Paint.md');
  assert.ok(item, ctx.stdout);
  assert.match(item.text, /emerald/, `${label}: context shows the new text`);
  assert.equal(item.sha256, fresh.json.hits[0].sha256);
}

test('issue 20.2: a same-size edit with the mtime put back (fs.utimesSync) is seen by search and context', async () => {
  const v = vault();
  const first = await v.cli(['search', 'crimson']);
  assert.equal(first.json.total, 1, first.stdout);
  editKeepingStat(v.note, NEW);
  await assertShowsNew(v.cli, 'utimes');
});

test('issue 20.2: a same-size edit with `touch -r` from a reference file is seen by search and context', async () => {
  const v = vault();
  const ref = path.join(path.dirname(v.root), 'reference');
  fs.writeFileSync(ref, 'x');
  execFileSync('touch', ['-r', v.note, ref]);
  assert.equal((await v.cli(['search', 'crimson'])).json.total, 1);
  fs.writeFileSync(v.note, NEW);
  execFileSync('touch', ['-r', ref, v.note]);
  assert.equal(fs.statSync(v.note).mtimeMs, fs.statSync(ref).mtimeMs);
  await assertShowsNew(v.cli, 'touch -r');
});

test('issue 20.2: `cp -p` of a same-size file over the note (a new inode) is seen', async () => {
  const v = vault();
  assert.equal((await v.cli(['search', 'crimson'])).json.total, 1);
  const copy = path.join(path.dirname(v.root), 'Paint.md');
  fs.writeFileSync(copy, NEW);
  const st = fs.statSync(v.note);
  fs.utimesSync(copy, st.atime, st.mtime);
  execFileSync('cp', ['-p', copy, v.note]);
  assert.equal(fs.statSync(v.note).mtimeMs, st.mtimeMs);
  await assertShowsNew(v.cli, 'cp -p');
});

test('issue 20.2: where the stat cannot tell (the index holds the new stat, old text), context re-indexes the note and answers', async () => {
  const v = vault();
  assert.equal((await v.cli(['search', 'crimson'])).json.total, 1);
  editKeepingStat(v.note, NEW);
  hideFromStat(v);
  const ctx = await v.cli(['context', 'what colour is the door']);
  assert.equal(ctx.exitCode, 0, `context re-indexed instead of answering CONTEXT_UNSTABLE: ${ctx.stdout}`);
  const item = ctx.json.evidence.find((e: { path: string }) => e.path === 'Paint.md');
  assert.ok(item, ctx.stdout);
  assert.match(item.text, /emerald/);
  assert.ok(ctx.json.attempts <= 2, `one retry after the re-index: ${ctx.json.attempts}`);
  // and the index now holds the new text for every later read
  assert.equal((await v.cli(['search', 'emerald'])).json.total, 1);
});

test('issue 20.2: the daemon (watched session) sees a same-size edit with the mtime put back', async () => {
  const v = vault();
  const viaDaemon = (args: string[]) => v.cli(args, {});
  const start = await viaDaemon(['daemon', 'start']);
  assert.equal(start.exitCode, 0, start.stdout + start.stderr);
  started.add(start.json.pid);
  try {
    const status = async () => (await viaDaemon(['daemon', 'status'])).json;
    const deadline = Date.now() + 15_000;
    while ((await status()).freshness?.watcher?.state !== 'live' && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    assert.equal((await viaDaemon(['search', 'crimson'])).json.total, 1);
    const before = (await status()).requests as number;
    editKeepingStat(v.note, NEW);
    await assertShowsNew(viaDaemon, 'daemon');
    const st = await status();
    assert.equal(st.requests - before, 3, `the daemon answered the reads: ${JSON.stringify(st)}`);
    // The same where no stat can tell (the hash check of context, in the daemon's session).
    editKeepingStat(v.note, OLD.replace('crimson', 'scarlet'));
    hideFromStat(v);
    const ctx = await viaDaemon(['context', 'what colour is the door']);
    assert.equal(ctx.exitCode, 0, ctx.stdout);
    assert.match(ctx.json.evidence.find((e: { path: string }) => e.path === 'Paint.md').text, /scarlet/);
  } finally {
    await viaDaemon(['daemon', 'stop']);
  }
});

test('issue 20.2: the MCP server (watched session) sees a same-size edit, and re-indexes where no stat can tell', async () => {
  const v = vault();
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_BIN, 'mcp', '--vault', v.root],
    env: { ...(process.env as Record<string, string>), VAULTGATE_HOME: v.home },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'vaultgate-test', version: '1.0.0' });
  await client.connect(transport);
  const call = async (name: string, args: Record<string, unknown>) => (await client.callTool({ name, arguments: args })) as any;
  try {
    assert.equal((await call('search', { query: 'crimson' })).structuredContent.total, 1);
    editKeepingStat(v.note, NEW);
    assert.equal((await call('search', { query: 'emerald' })).structuredContent.total, 1, 'search through MCP sees the edit');
    editKeepingStat(v.note, OLD.replace('crimson', 'scarlet'));
    hideFromStat(v);
    const ctx = await call('context', { question: 'what colour is the door' });
    assert.notEqual(ctx.isError, true, JSON.stringify(ctx).slice(0, 400));
    assert.match(ctx.structuredContent.evidence.find((e: { path: string }) => e.path === 'Paint.md').text, /scarlet/);
  } finally {
    await client.close();
  }
});
