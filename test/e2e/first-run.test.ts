/**
 * What a new user trips over in the first five minutes (issue #13): each is a
 * typed error with the fix, never "internal error, this is a bug".
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliProcess } from '../helpers/run-cli.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';

test('first run: a native module built for another Node.js is NATIVE_MODULE_MISMATCH (exit 69) with `npm rebuild`', async () => {
  const { root, home } = tempVault({ 'a.md': '# A\nhello\n' });
  // What Node throws when better-sqlite3 was compiled for another ABI, raised by the real dlopen path.
  const preload = path.join(tempDir(), 'abi-mismatch.cjs');
  fs.writeFileSync(
    preload,
    `process.dlopen = () => { const e = new Error("The module 'better_sqlite3.node' was compiled against a different Node.js version using NODE_MODULE_VERSION 127. This version of Node.js requires NODE_MODULE_VERSION 115."); e.code = 'ERR_DLOPEN_FAILED'; throw e; };\n`,
  );
  const r = await runCliProcess(['search', 'hello'], { vault: root, home, env: { NODE_OPTIONS: `--require ${preload}` } });
  assert.equal(r.exitCode, 69, r.stdout + r.stderr);
  assert.equal(r.json.error.code, 'NATIVE_MODULE_MISMATCH');
  assert.match(r.json.error.hint, /npm rebuild/);
});

test('first run: VAULTGATE_HOME pointing at a file is CONFIG_INVALID (exit 2), nothing created', async () => {
  const { root } = tempVault({ 'a.md': '# A\nhello\n' });
  const file = path.join(tempDir(), 'not-a-folder');
  fs.writeFileSync(file, 'x');
  const r = await runCliProcess(['search', 'hello'], { vault: root, home: file });
  assert.equal(r.exitCode, 2, r.stdout + r.stderr);
  assert.equal(r.json.error.code, 'CONFIG_INVALID');
  assert.match(r.json.error.message, /VAULTGATE_HOME/);
  assert.equal(fs.readFileSync(file, 'utf8'), 'x');
});

test('first run: a query starting with -word is the exclusion, and flags after -- still count', async () => {
  const { root, home } = tempVault({ 'a.md': '# A\nrobber rules\n', 'b.md': '# B\nrobber draft\n' });
  const r = await runCliProcess(['search', '-draft', 'robber'], { vault: root, home });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  assert.deepEqual(r.json.hits.map((h: { path: string }) => h.path), ['a.md']);
  const s = await runCliProcess(['search', '--', '-draft', 'robber', '--vault', root], { home });
  assert.equal(s.exitCode, 0, s.stdout + s.stderr);
  assert.equal(s.json.query, '-draft robber');
});

test('first run: an empty query is a usage error, like an empty question', async () => {
  const { root, home } = tempVault({ 'a.md': '# A\nx\n' });
  for (const args of [['search', ''], ['search', '   '], ['context', '']]) {
    const r = await runCliProcess(args, { vault: root, home });
    assert.equal(r.exitCode, 2, `${args.join(' ')}: ${r.stdout}`);
    assert.equal(r.json.error.code, 'USAGE');
  }
});

test('first run: every verb’s help shows examples and the global options', async () => {
  const r = await runCliProcess(['search', '--help']);
  assert.equal(r.exitCode, 0);
  assert.match(r.stdout, /Examples:\n\s+\$ vaultgate search/);
  assert.match(r.stdout, /Global Options:[\s\S]*--vault/);
  const top = await runCliProcess(['--help']);
  assert.ok(top.stdout.indexOf('search') < top.stdout.indexOf('tx'), 'read verbs are listed before write verbs');
});

test('first run: note accepts the name people type, reports ambiguity, and caps a huge note on a terminal', async () => {
  const big = '# Big\n' + 'a line of a very long note\n'.repeat(20_000);
  const { root, home } = tempVault({ 'Games/Catan/Rules.md': '# Catan\n', 'Games/Chess/Rules.md': '# Chess\n', 'Wiki/Sourdough.md': '# Sourdough\n## Starter\nfeed it\n', 'Big.md': big });
  const byName = await runCliProcess(['note', 'Sourdough', '--heading', 'Starter'], { vault: root, home });
  assert.equal(byName.exitCode, 0, byName.stdout);
  assert.equal(byName.json.path, 'Wiki/Sourdough.md');
  assert.equal(byName.json.resolved_from, 'Sourdough');
  const ambiguous = await runCliProcess(['note', 'Rules'], { vault: root, home });
  assert.equal(ambiguous.exitCode, 2);
  assert.equal(ambiguous.json.error.code, 'NOTE_AMBIGUOUS');
  assert.deepEqual(ambiguous.json.error.details.candidates, ['Games/Catan/Rules.md', 'Games/Chess/Rules.md']);
  const missing = await runCliProcess(['note', 'Nothing here'], { vault: root, home });
  assert.equal(missing.json.error.code, 'NOT_FOUND');
  const capped = await runCliProcess(['note', 'Big.md', '--text'], { vault: root, home });
  assert.ok(capped.stdout.length < 40_000, `printed ${capped.stdout.length} characters`);
  assert.match(capped.stdout, /--all prints everything/);
  const all = await runCliProcess(['note', 'Big.md', '--text', '--all'], { vault: root, home });
  // the whole text, then the base an edit is proposed against (issue 21 §4)
  const sha = crypto.createHash('sha256').update(big).digest('hex');
  assert.ok(all.stdout.startsWith(big), 'the whole text');
  assert.match(all.stdout.slice(big.length), new RegExp(`^sha256 ${sha} {2}Big\\.md, lines 1-\\d+ .*\\n$`));
  const json = await runCliProcess(['note', 'Big.md'], { vault: root, home });
  assert.equal(json.json.text, big, 'JSON is never cut');
});

test('first run: a command that builds the index shows progress on a terminal’s stderr, never on stdout', async () => {
  const { runCli } = await import('../helpers/run-cli.js');
  const files: Record<string, string> = {};
  for (let i = 0; i < 300; i++) files[`n${i}.md`] = `# Note ${i}\nword${i} shared\n`;
  const { root, home } = tempVault(files);
  let stderr = '';
  const { runCli: inProcess } = await import('../../src/cli/run-cli.js');
  let stdout = '';
  const code = await inProcess(['--vault', root, 'search', 'shared'], {
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    env: { ...process.env, VAULTGATE_HOME: home },
    isTTY: false,
    stderrIsTTY: true,
    cwd: root,
  });
  assert.equal(code, 0);
  assert.match(stderr, /indexing \d+\/300/);
  assert.doesNotMatch(stdout, /indexing/);
  assert.equal(JSON.parse(stdout).ok, true);
  const piped = await runCli(['search', 'shared'], { vault: root, home: tempDir() });
  assert.equal(piped.stderr, '', 'no progress when stderr is not a terminal');
});

test('first run: init writes .vaultgate/.gitignore (runtime state ignored, settings kept) and never replaces one', async () => {
  const { execFileSync } = await import('node:child_process');
  const { root, home } = tempVault({ 'a.md': '# A\n' });
  execFileSync('git', ['init', '-q', root]);
  const r = await runCliProcess(['init'], { vault: root, home });
  assert.equal(r.exitCode, 0, r.stdout);
  fs.writeFileSync(path.join(root, '.vaultgate/config.yaml'), 'txn:\n  keep_backups: 5\n');
  fs.mkdirSync(path.join(root, '.vaultgate/txn/backups/x'), { recursive: true });
  fs.writeFileSync(path.join(root, '.vaultgate/txn/backups/x/copy.md'), 'a copy of a note');
  const status = execFileSync('git', ['-C', root, 'status', '--porcelain', '--untracked-files=all'], { encoding: 'utf8' });
  assert.match(status, /\.vaultgate\/config\.yaml/);
  assert.match(status, /\.vaultgate\/vault-id/);
  assert.doesNotMatch(status, /txn\/|lock\//);
  fs.writeFileSync(path.join(root, '.vaultgate/.gitignore'), 'mine\n');
  await runCliProcess(['init'], { vault: root, home });
  assert.equal(fs.readFileSync(path.join(root, '.vaultgate/.gitignore'), 'utf8'), 'mine\n');
});
