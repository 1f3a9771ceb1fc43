/**
 * What the person reads on a terminal (issue 21 §4): the CLI's text renderings
 * say what the JSON says — the base an edit is proposed against, who links whom,
 * what a count counts — and every command in `--help` says what it does.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { CLI_BIN, runCli, runCliProcess } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

const SCRIPT_SKIP = spawnSync('script', ['--version'], { encoding: 'utf8' }).status === 0 ? false : 'util-linux `script` is not installed (it gives the CLI a pseudo-terminal)';

test('note on a terminal ends with the sha256 line: the base an edit is proposed against', async () => {
  const text = '# Starter\n\nFeed it every 12 hours.\n';
  const { root, home } = tempVault({ 'Starter.md': text });
  const sha = crypto.createHash('sha256').update(text).digest('hex');
  const shown = await runCli(['note', 'Starter.md'], { vault: root, home, tty: true });
  assert.equal(shown.exitCode, 0, shown.stderr);
  assert.ok(shown.stdout.startsWith(text), 'the text comes first, unchanged');
  assert.match(shown.stdout, new RegExp(`^sha256 ${sha}\\b`, 'm'));
  // a section and a window of the note give the whole file's hash too (the base is always the file)
  const section = await runCli(['note', 'Starter.md', '--heading', 'Starter'], { vault: root, home, tty: true });
  assert.match(section.stdout, new RegExp(`^sha256 ${sha}\\b`, 'm'));
  const windowed = await runCli(['note', 'Starter.md', '--max-chars', '100'], { vault: root, home, tty: true });
  assert.match(windowed.stdout, new RegExp(`^sha256 ${sha}\\b`, 'm'));
});

/** Run the compiled CLI under a pseudo-terminal (`script`), as a person at a terminal does; stdout as the terminal got it. */
function onTerminal(args: string[], env: Record<string, string>): string {
  const line = [process.execPath, CLI_BIN, ...args].map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('script', ['-q', '-e', '-c', line, '/dev/null'], { env: { ...process.env, ...env } as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 60_000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  return r.stdout.replace(/\r\n/g, '\n');
}

test('review on a terminal: the diff in git’s colours, the changed cell in reverse video; no colour with NO_COLOR or when piped', { skip: SCRIPT_SKIP }, async () => {
  const note = '# Plans\n\n| Plan | Storage |\n|---|---|\n| Plus | 10 GB |\n';
  const { root, home } = tempVault({ 'Plans.md': note });
  const sha = crypto.createHash('sha256').update(note).digest('hex');
  const p = await runCli(['propose', 'Plans.md', '--replace', '| Plus | 10 GB |', '--with', '| Plus | 100 GB |', '--base', sha, '--title', 'More storage'], { vault: root, home });
  assert.equal(p.exitCode, 0, p.stdout);
  const env = { VAULTGATE_HOME: home, TERM: 'xterm-256color', NO_COLOR: '' };
  const coloured = onTerminal(['--vault', root, 'review', 'p-1'], env);
  assert.ok(coloured.includes('\x1b[31m-| Plus | \x1b[7m10\x1b[27m GB |\x1b[m'), JSON.stringify(coloured));
  assert.ok(coloured.includes('\x1b[32m+| Plus | \x1b[7m100\x1b[27m GB |\x1b[m'));
  assert.ok(coloured.includes('\x1b[36m@@ '));
  const plain = onTerminal(['--vault', root, 'review', 'p-1'], { ...env, NO_COLOR: '1' });
  assert.ok(!plain.includes('\x1b['), 'NO_COLOR: no escapes');
  assert.match(plain, /^\+\| Plus \| 100 GB \|$/m);
  const piped = await runCliProcess(['--vault', root, 'review', 'p-1', '--text'], { home });
  assert.ok(!piped.stdout.includes('\x1b['), 'piped: no escapes');
  assert.match(piped.stdout, /^\+\| Plus \| 100 GB \|$/m);
});

test('similar --include-linked says who links whom: links_to / linked_from in JSON, words on a terminal', async () => {
  const { root, home } = tempVault({
    'ops/Cache lifetime.md': '# Cache lifetime\n\nEdge cache entries expire after one hour; eviction keeps the origin safe.\n',
    'ops/Origin load.md': '# Origin load\n\nWithout the edge cache the origin serves every request. See [[ops/Cache lifetime]].\n',
    'garden/Tomatoes.md': '# Tomatoes\n\nWater the tomato seedlings daily; mulch keeps the soil moist.\n',
    'chess/Openings.md': '# Openings\n\nThe queen gambit gives a pawn for tempo; castle early.\n',
  });
  const json = await runCli(['similar', 'ops/Cache lifetime.md', '--include-linked'], { vault: root, home });
  assert.equal(json.exitCode, 0, json.stdout);
  const origin = json.json.candidates.find((c: { path: string }) => c.path === 'ops/Origin load.md');
  assert.deepEqual([origin.linked, origin.links_to, origin.linked_from], ['from', false, true]);
  const shown = await runCli(['similar', 'ops/Cache lifetime.md', '--include-linked'], { vault: root, home, tty: true });
  assert.match(shown.stdout, /ops\/Origin load\.md +\(ops\/Origin load\.md links to ops\/Cache lifetime\.md\)/);
  const back = await runCli(['similar', 'ops/Origin load.md', '--include-linked'], { vault: root, home, tty: true });
  assert.match(back.stdout, /\(ops\/Origin load\.md links to ops\/Cache lifetime\.md\)/);
  const pair = await runCli(['similar', 'ops/Origin load.md', '--to', 'ops/Cache lifetime.md'], { vault: root, home });
  assert.deepEqual([pair.json.links_to, pair.json.linked_from], [true, false]);
});

test('relate prepare on a terminal: one fragment per line, whitespace folded, long ones cut at a word with …', async () => {
  const long = 'Every change to production configuration needs a second reviewer who reads the\nexact diff, and the reviewer signs off by commit hash, never on the idea alone, whatever the hurry.';
  const { root, home } = tempVault({ 'A.md': `# A\n\n${long}\n\nShort one.\n`, 'B.md': '# B\n\nAgents propose;\na person approves the exact diff.\n' });
  const r = await runCli(['relate', 'prepare', 'A.md', 'B.md'], { vault: root, home, tty: true });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  const json = await runCli(['relate', 'prepare', 'A.md', 'B.md'], { vault: root, home });
  const lines = r.stdout.trimEnd().split('\n');
  const fragmentLines = lines.filter((l) => /^[0-9a-f]{8}:[AB]:\d+/.test(l));
  assert.equal(fragmentLines.length, json.json.fragments.length, `one line per fragment:\n${r.stdout}`);
  assert.equal(lines.length, 3 + json.json.fragments.length, 'and nothing spills onto other lines');
  assert.ok(fragmentLines.some((l) => l.includes('Agents propose; a person approves the exact diff.')), 'line breaks read as spaces');
  const cut = fragmentLines.find((l) => l.endsWith('…'));
  assert.ok(cut, `a long fragment is cut:\n${r.stdout}`);
  const shown = cut.replace(/^\S+ {2}/, '').slice(0, -1);
  assert.ok(long.replace(/\s+/g, ' ').startsWith(shown + ' '), `cut after a whole word: ${cut}`);
});

test('check lists what it counts: the links into an unindexed folder, with where they point', async () => {
  const { root, home } = tempVault({
    '.vaultgate/config.yaml': 'index:\n  exclude: [Archive/]\n',
    'Home.md': '# Home\n\nSee [[Archive/Old plan]] and [[Notes]].\n',
    'Notes.md': '# Notes\n\nBack to [[Home]].\n',
    'Archive/Old plan.md': '# Old plan\n',
  });
  const json = await runCli(['check'], { vault: root, home });
  assert.equal(json.json.counts.unindexed, 1);
  assert.deepEqual(json.json.items.unindexed, [{ source: 'Home.md', line: 3, raw: '[[Archive/Old plan]]', target: 'Archive/Old plan.md' }]);
  const shown = await runCli(['check'], { vault: root, home, tty: true });
  assert.match(shown.stdout, /unindexed: 1/);
  assert.match(shown.stdout, /^unindexed \(1\):\n {2}Home\.md:3 {2}\[\[Archive\/Old plan\]\] → Archive\/Old plan\.md \(not indexed\)$/m);
});

test('every command in --help says what it does, at the top level and in every group', async () => {
  const help = async (args: string[]) => {
    const r = await runCli([...args, '--help']);
    return r.stdout + r.stderr;
  };
  const commandsOf = (text: string) => {
    const rows: Array<{ name: string; description: string }> = [];
    let inList = false;
    for (const line of text.split('\n')) {
      // a section heading (`Read (never writes the vault):`, `Commands:`); the options sections list no commands
      if (/^[A-Z][^:]*:$/.test(line)) inList = !/Options:$/.test(line);
      else if (inList && /^ {2}[a-z]/.test(line)) {
        const m = /^ {2}(\S+).*? {2,}(\S.*)$/.exec(line);
        rows.push({ name: /^ {2}(\S+)/.exec(line)![1]!, description: m?.[2]?.trim() ?? '' });
      }
    }
    return rows;
  };
  const top = commandsOf(await help([]));
  assert.ok(top.length > 20, 'the top-level help lists the commands');
  const groups = top.filter((c) => c.name !== 'help');
  for (const c of groups) {
    assert.ok(c.description !== '' && !new RegExp(`^${c.name} commands$`).test(c.description), `${c.name}: "${c.description}"`);
  }
  for (const group of ['skill', 'tx', 'scenario', 'state', 'relate', 'consent', 'daemon']) {
    for (const c of commandsOf(await help([group])).filter((x) => x.name !== 'help')) assert.ok(c.description.length > 10, `${group} ${c.name}: "${c.description}"`);
  }
});

test('log on a terminal: a rollback proposed, then rolled back by its apply (the inverse transaction named); an old log’s early rolled_back reads as proposed', async () => {
  const note = '# A\n\nold\n';
  const { root, home } = tempVault({ 'A.md': note });
  const sha = crypto.createHash('sha256').update(note).digest('hex');
  const p = await runCli(['propose', 'A.md', '--replace', 'old', '--with', 'new', '--base', sha], { vault: root, home });
  await runCli(['apply', 'p-1', '--review-hash', p.json.review.review_hash], { vault: root, home });
  const rb = await runCli(['rollback', 'p-1'], { vault: root, home });
  const applied = await runCli(['apply', 'p-2', '--review-hash', rb.json.review.review_hash], { vault: root, home });
  const { ProposalStore } = await import('../../src/proposals/index.js');
  const store = ProposalStore.open(root, { VAULTGATE_HOME: home });
  try {
    store.appendEvent({ event: 'rolled_back', actor: 'operator', proposal: 'p-9', operation_id: 'proposal-p-9-00000000', review_hash: null, details: { rollback_proposal: 'p-10', state: 'pending' } });
  } finally {
    store.close();
  }
  const shown = (await runCli(['log'], { vault: root, home, tty: true })).stdout;
  assert.match(shown, /rollback_proposed +p-9 +operator$/m);
  assert.match(shown, new RegExp(`rolled_back +p-1 +operator +${applied.json.operation_id}$`, 'm'));
  assert.match(shown, /rollback_proposed +p-1 +operator$/m);
});
