import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli, runCliProcess } from '../helpers/run-cli.js';
import { snapshotTree, tempVault } from '../helpers/temp-vault.js';

const VAULT = {
  'Projects/Alpha.md': '---\naliases: [First project]\ntags: [work]\nstatus: active\n---\n# Alpha\nThe alpha launch plan.\n## Risks\nBudget risk and [[Beta#Timeline]].\n',
  'Projects/Beta.md': '# Beta\n## Timeline\nBeta ships in spring.\n',
  'Заметки/Ёж.md': '# Ёжик\nЁжики любят яблоки.\n',
};

test('index: builds the index on the real binary and reports counts; --rebuild starts over', async () => {
  const { root, home } = tempVault(VAULT);
  const before = snapshotTree(root, { includeHidden: true });
  const r = await runCliProcess(['index'], { vault: root, home });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  assert.deepEqual([r.json.ok, r.json.notes, r.json.added, r.json.integrity, r.json.created], [true, 3, 3, null, 'new']);
  assert.ok(r.json.file.startsWith(path.join(home, 'cache')));
  const again = await runCliProcess(['index'], { vault: root, home });
  assert.deepEqual([again.json.refreshed, again.json.added], [false, 0]);
  const rebuilt = await runCliProcess(['index', '--rebuild'], { vault: root, home });
  assert.deepEqual([rebuilt.json.refreshed, rebuilt.json.added, rebuilt.json.notes], [true, 3, 3]);
  assert.equal(rebuilt.stderr, '', 'no progress output when stderr is not a terminal');
  assert.deepEqual(snapshotTree(root, { includeHidden: true }), before, 'read commands never write in the vault');
});

test('index --check verifies the file and rebuilds a damaged one', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 200; i++) files[`n${i}.md`] = `# Note ${i}\n${'lorem ipsum '.repeat(100)} word${i}\n`;
  const { root, home } = tempVault(files);
  const first = await runCliProcess(['index', '--check'], { vault: root, home });
  assert.equal(first.json.integrity, 'ok');
  const file: string = first.json.file;
  const { default: Database } = await import('better-sqlite3');
  const db = new Database(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const bytes = fs.readFileSync(file);
  fs.writeFileSync(file, Buffer.concat([bytes.subarray(0, bytes.length / 2), Buffer.alloc(bytes.length - bytes.length / 2, 0x33)]));
  const checked = await runCliProcess(['index', '--check'], { vault: root, home });
  assert.equal(checked.exitCode, 0, checked.stdout + checked.stderr);
  assert.deepEqual([checked.json.integrity, checked.json.created, checked.json.notes], ['rebuilt', 'corrupt', 200]);
  assert.equal((await runCliProcess(['search', 'word7'], { vault: root, home })).json.hits[0].path, 'n7.md');
});

test('search: JSON contract with hits, total and index info', async () => {
  const { root, home } = tempVault(VAULT);
  const r = await runCliProcess(['search', 'launch', 'plan', '--limit', '5'], { vault: root, home });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  assert.equal(r.json.query, 'launch plan');
  assert.equal(r.json.total, 1);
  const hit = r.json.hits[0];
  assert.deepEqual(Object.keys(hit).sort(), ['anchor', 'heading_path', 'lines', 'match', 'part', 'path', 'score', 'sha256', 'snippet']);
  assert.deepEqual([hit.path, hit.heading_path, hit.lines], ['Projects/Alpha.md', ['Alpha'], [6, 7]]);
  assert.deepEqual(Object.keys(r.json.index).sort(), ['notes', 'refreshed', 'took_ms']);
  assert.deepEqual([r.json.index.notes, r.json.index.refreshed], [3, true]);
});

test('search: filters and Russian queries through the CLI', async () => {
  const { root, home } = tempVault(VAULT);
  assert.equal((await runCli(['search', 'ежики'], { vault: root, home })).json.hits[0].path, 'Заметки/Ёж.md');
  assert.equal((await runCli(['search', 'budget', '--tag', 'work', '--where', 'status=active'], { vault: root, home })).json.total, 1);
  assert.equal((await runCli(['search', 'budget', '--where', 'status=done'], { vault: root, home })).json.total, 0);
  const bad = await runCli(['search', 'x', '--where', 'nokey'], { vault: root, home });
  assert.deepEqual([bad.exitCode, bad.json.error.code], [2, 'USAGE']);
});

test('search: hostile query syntax is just words (exit 0)', async () => {
  const { root, home } = tempVault(VAULT);
  for (const q of ['"', 'NEAR(', 'title:alpha', 'AND', '-', '*', 'c++ AND (', '^x']) {
    const r = await runCli(['search', q], { vault: root, home });
    assert.equal(r.exitCode, 0, `${q}: ${r.stdout}`);
    assert.equal(r.json.ok, true);
  }
});

test('search: `title:alpha` searches the words title and alpha (issue 13: `:` is plain text)', async () => {
  const { root, home } = tempVault(VAULT);
  const r = await runCli(['search', 'title:alpha'], { vault: root, home });
  assert.equal(r.json.hits[0]?.path, 'Projects/Alpha.md', r.stdout);
});

test('search: an empty or blank query is a usage error (exit 2), as for context', async () => {
  const { root, home } = tempVault(VAULT);
  for (const q of ['', '   ']) {
    const r = await runCliProcess(['search', q], { vault: root, home });
    assert.deepEqual([r.exitCode, r.json?.error?.code], [2, 'USAGE'], JSON.stringify(q) + r.stdout + r.stderr);
  }
});

test('note: the whole note, or one section, with sha256 and lines', async () => {
  const { root, home } = tempVault(VAULT);
  const whole = await runCli(['note', 'Projects/Alpha'], { vault: root, home });
  assert.equal(whole.exitCode, 0, whole.stdout);
  assert.equal(whole.json.text, VAULT['Projects/Alpha.md']);
  assert.match(whole.json.sha256, /^[0-9a-f]{64}$/);
  assert.deepEqual(whole.json.sections.map((s: { anchor: string }) => s.anchor), ['#Alpha', '#Alpha#Risks']);
  const sec = await runCli(['note', 'Projects/Alpha.md', '--heading', 'Risks'], { vault: root, home });
  assert.deepEqual([sec.json.text, sec.json.lines, sec.json.heading_path], ['## Risks\nBudget risk and [[Beta#Timeline]].\n', [8, 9], ['Alpha', 'Risks']]);
  const missing = await runCli(['note', 'Projects/Alpha.md', '--heading', 'Nope'], { vault: root, home });
  assert.deepEqual([missing.exitCode, missing.json.error.code], [2, 'HEADING_NOT_FOUND']);
  const gone = await runCli(['note', 'Nope.md'], { vault: root, home });
  assert.deepEqual([gone.exitCode, gone.json.error.code], [2, 'NOT_FOUND']);
});

test('note --heading ^id returns the whole block the id names, not just the line carrying it (issue 13)', async () => {
  const note = '# Log\n\nFirst line,\nsecond line ^para\n\n- item ^li\n  - sub\n- other\n\n> quoted\n> more\n^quote-id\n';
  const { root, home } = tempVault({ 'Log.md': note });
  const ask = (id: string) => runCliProcess(['note', 'Log', '--heading', id], { vault: root, home });
  const para = await ask('^para');
  assert.equal(para.exitCode, 0, para.stdout + para.stderr);
  assert.deepEqual([para.json.text, para.json.lines, para.json.anchor], ['First line,\nsecond line ^para\n', [3, 4], '#^para']);
  const item = await ask('^li');
  assert.deepEqual([item.json.text, item.json.lines], ['- item ^li\n  - sub\n', [6, 7]]);
  const quote = await ask('^quote-id');
  assert.equal(quote.exitCode, 0, quote.stdout);
  assert.deepEqual([quote.json.text, quote.json.lines], ['> quoted\n> more\n^quote-id\n', [10, 12]]);
  const resolved = await runCliProcess(['resolve', '[[Log#^quote-id]]', '--from', 'Log.md'], { vault: root, home });
  assert.deepEqual(resolved.json.subpath, { kind: 'block', value: 'quote-id', exists: true, lines: [10, 12] });
});

test('note resolves . and .. before judging the path, and quotes what was typed when it climbs out (issue 13)', async () => {
  const { root, home } = tempVault({ 'Home.md': '# Home\n', 'Games/Chess.md': 'x\n' });
  const inside = await runCliProcess(['note', 'Games/../Home.md'], { vault: root, home });
  assert.equal(inside.exitCode, 0, inside.stdout + inside.stderr);
  assert.deepEqual([inside.json.path, inside.json.text], ['Home.md', '# Home\n']);
  const noMd = await runCliProcess(['note', './Games/./../Games/Chess'], { vault: root, home });
  assert.deepEqual([noMd.exitCode, noMd.json.path], [0, 'Games/Chess.md']);
  const out = await runCliProcess(['note', '../../etc/passwd'], { vault: root, home });
  assert.deepEqual([out.exitCode, out.json.error.code], [2, 'PATH_OUTSIDE_VAULT']);
  assert.match(out.json.error.message, /"\.\.\/\.\.\/etc\/passwd"/);
  assert.doesNotMatch(out.stdout, /passwd\.md/);
  const deep = await runCliProcess(['note', 'Games/../../Home.md'], { vault: root, home });
  assert.deepEqual([deep.exitCode, deep.json.error.code], [2, 'PATH_OUTSIDE_VAULT']);
  const hidden = await runCliProcess(['note', 'Games/../.obsidian/app'], { vault: root, home });
  assert.deepEqual([hidden.exitCode, hidden.json.error.code], [2, 'NOT_FOUND']);
});

test('context: JSON packet and markdown format on the real binary', async () => {
  const { root, home } = tempVault(VAULT);
  const r = await runCliProcess(['context', 'what are the risks of alpha?', '--budget-chars', '2000'], { vault: root, home });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  assert.equal(r.json.evidence[0].path, 'Projects/Alpha.md');
  assert.ok(r.json.evidence.some((e: { path: string; reason: string }) => e.path === 'Projects/Beta.md' && e.reason.startsWith('linked from')));
  // Push mode: piped to a file, --format markdown prints the document itself.
  const md = await runCliProcess(['context', 'alpha risks', '--format', 'markdown'], { vault: root, home });
  assert.equal(md.exitCode, 0);
  assert.equal(md.json, undefined);
  assert.match(md.stdout, /^# Context packet from vaultgate/);
  assert.match(md.stdout, /```json\n\{\n  "id": "e1"/);
  // An explicit --json still wraps it, for agents that only read JSON.
  const wrapped = await runCliProcess(['context', 'alpha risks', '--format', 'markdown', '--json'], { vault: root, home });
  assert.equal(wrapped.json.markdown, md.stdout);
  const badFormat = await runCli(['context', 'x', '--format', 'yaml'], { vault: root, home });
  assert.deepEqual([badFormat.exitCode, badFormat.json.error.code], [2, 'USAGE']);
  const none = await runCli(['context', 'zyzzyva'], { vault: root, home });
  assert.deepEqual([none.json.total, none.json.evidence], [0, []]);
});

test('search after edits on disk: the implicit refresh sees added, changed and deleted notes', async () => {
  const { root, home } = tempVault(VAULT);
  await runCli(['index'], { vault: root, home });
  fs.writeFileSync(path.join(root, 'New.md'), '# New\nquokka facts\n');
  fs.rmSync(path.join(root, 'Projects/Beta.md'));
  const r = await runCli(['search', 'quokka'], { vault: root, home });
  assert.deepEqual([r.json.total, r.json.index.refreshed], [1, true]);
  assert.equal((await runCli(['search', 'spring'], { vault: root, home })).json.total, 0);
});

test('index: progress goes to stderr when stderr is a terminal, and stdout stays one JSON document', async () => {
  const { runCli: runInProcess } = await import('../../src/cli/run-cli.js');
  const files: Record<string, string> = {};
  for (let i = 0; i < 30; i++) files[`n${i}.md`] = `# N${i}\ntext`;
  const { root, home } = tempVault(files);
  let stdout = '';
  let stderr = '';
  const code = await runInProcess(['--vault', root, 'index'], {
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    env: { ...process.env, VAULTGATE_HOME: home },
    isTTY: false,
    stderrIsTTY: true,
    cwd: root,
  });
  assert.equal(code, 0);
  assert.equal(JSON.parse(stdout).notes, 30);
  assert.match(stderr, /indexing \d+\/30/);
});
