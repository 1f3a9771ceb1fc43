/**
 * The terminal inbox for real (issue #8 §6): the compiled CLI in an 80×24 tmux
 * pane, driven by keys, read from the screen. Each step waits for what the
 * screen must show (bounded); the vault and the audit log are then checked
 * through the CLI. Without tmux these are skipped, naming scripts/setup-system.sh.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { ProposalStore, type StoredChange } from '../../src/proposals/index.js';
import { CLI_BIN, runCli, runCliProcess } from '../helpers/run-cli.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';
import { TMUX_SKIP, TmuxPane } from '../helpers/tmux.js';

const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const NOTE = '# Bread\n\nIntro.\n\n## Bake\n\nHot oven.\n';

type V = { root: string; home: string };

function inbox(v: V): TmuxPane {
  const env: Record<string, string | undefined> = { ...process.env, VAULTGATE_HOME: v.home };
  delete env.VAULTGATE_AGENT;
  delete env.VAULTGATE_VAULT;
  return TmuxPane.start([process.execPath, CLI_BIN, '--vault', v.root, 'inbox'], { cols: 80, rows: 24, env, dir: tempDir('vaultgate-tmux-') });
}

async function propose(v: V, args: string[]): Promise<any> {
  const r = await runCli(['propose', ...args], { vault: v.root, home: v.home });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  return r.json;
}

test('inbox (tmux 80×24): list → open the diff → a → y applies exactly the review shown; the file changes, the log says applied by operator; q ends the pane', { skip: TMUX_SKIP }, async () => {
  const v = tempVault({ 'Bread.md': NOTE });
  await propose(v, ['Bread.md', '--replace', 'Hot oven.', '--with', 'Very hot oven.', '--base', sha(NOTE), '--title', 'Hotter oven', '--agent', 'claude']);
  const pane = inbox(v);
  try {
    await pane.waitFor(/^> p-1 +pending +Hotter oven +claude/m, 'the queue listing p-1');
    await pane.waitFor((s) => s.includes('open: 1') && /^-- p-1: 1 file: Bread\.md -+$/m.test(s) && /^--- a\/Bread\.md$/m.test(s), 'the preview of its diff');
    pane.keys('Enter');
    await pane.waitFor((s) => /^ p-1  pending Hotter oven/m.test(s) && s.includes('+Very hot oven.') && s.includes('@@ -4,4 +4,4 @@'), 'the proposal view with the whole diff');
    pane.keys('a');
    const asked = (await pane.waitFor(/apply p-1 as reviewed above \(review ([0-9a-f]{12})\)\? y\/n/, 'the apply question')) as RegExpMatchArray;
    assert.equal(fs.readFileSync(path.join(v.root, 'Bread.md'), 'utf8'), NOTE, 'nothing written before y');
    pane.keys('y');
    await pane.waitFor(/applied p-1 as proposal-p-1-[0-9a-f]{8}: Bread\.md/, 'the apply result');
    assert.equal(fs.readFileSync(path.join(v.root, 'Bread.md'), 'utf8'), NOTE.replace('Hot oven.', 'Very hot oven.'));
    const log = await runCli(['log', '--proposal', 'p-1'], { vault: v.root, home: v.home });
    const applied = log.json.events[0];
    assert.deepEqual([applied.event, applied.actor], ['applied', 'operator']);
    assert.ok(applied.review_hash.startsWith(asked[1]), `applied with the review shown (${asked[1]}…), got ${applied.review_hash}`);
    pane.keys('q');
    assert.equal(await pane.waitEnded('the inbox to quit'), 'exit=0');
  } finally {
    pane.kill();
  }
});

test('inbox (tmux 80×24): x asks a reason; the decline and its reason are in `vaultgate log`; the history tab shows it', { skip: TMUX_SKIP }, async () => {
  const v = tempVault({ 'Bread.md': NOTE });
  await propose(v, ['Bread.md', '--replace', 'Intro.', '--with', 'An intro.', '--base', sha(NOTE), '--title', 'Reword the intro', '--agent', 'claude']);
  await propose(v, ['Notes/New.md', '--content', '# New\n', '--base', 'none', '--title', 'A new note', '--agent', 'codex']);
  const pane = inbox(v);
  try {
    await pane.waitFor(/^> p-2 +pending +A new note/m, 'the queue, newest first');
    pane.keys('j');
    await pane.waitFor(/^> p-1 +pending +Reword the intro/m, 'p-1 selected');
    pane.keys('x');
    await pane.waitFor(/decline p-1, reason: _/, 'the reason prompt');
    pane.type('keep the old wording, q is text here');
    await pane.waitFor(/reason: keep the old wording, q is text here_/, 'the reason typed');
    pane.keys('Enter');
    await pane.waitFor(/declined p-1: keep the old wording, q is text here/, 'the decline result');
    await pane.waitFor((s) => s.includes('open: 1') && !/p-1 +pending/.test(s), 'p-1 leaving the open queue');
    const log = await runCli(['log', '--proposal', 'p-1'], { vault: v.root, home: v.home });
    assert.deepEqual([log.json.events[0].event, log.json.events[0].actor, log.json.events[0].details.reason], ['declined', 'operator', 'keep the old wording, q is text here']);
    pane.keys('Tab');
    await pane.waitFor(/^> .*declined +p-1 +operator +reason: keep the old wording/m, 'the history tab');
    pane.keys('q');
    assert.equal(await pane.waitEnded('the inbox to quit'), 'exit=0');
    assert.equal(fs.readFileSync(path.join(v.root, 'Bread.md'), 'utf8'), NOTE, 'a decline writes nothing');
  } finally {
    pane.kill();
  }
});

test('inbox (tmux 80×24): a queue of 1,000 proposals shows its first rows, G and g jump to the ends, / filters, and q still ends it', { skip: TMUX_SKIP }, async () => {
  const v = tempVault({}, { tmpfs: true });
  const store = ProposalStore.open(v.root, { VAULTGATE_HOME: v.home });
  try {
    for (let i = 1; i <= 1000; i++) {
      const text = `# Note ${i}\n`;
      const change: StoredChange = { path: `Queue/${i}.md`, action: 'write', to: null, base_sha256: null, old_text: null, new_text: text, new_sha256: sha(text) };
      store.insert({ title: `change ${i}`, summary: null, agent: i % 2 ? 'claude' : 'codex', session: null, scenario: null, allow_shrink: false, allow_relink: false, allow_broken_links: false, origin: 'propose', rollback_of: null, changes: [change] }, 'test');
    }
  } finally {
    store.close();
  }
  const pane = inbox(v);
  try {
    await pane.waitFor((s) => s.includes('open: 1000') && /^> p-1000 +pending +change 1000 /m.test(s), 'the newest of 1,000');
    pane.keys('G');
    await pane.waitFor((s) => /^> p-1 +pending +change 1 /m.test(s) && /^  p-2 +pending +change 2 /m.test(s), 'the oldest, after G');
    await pane.waitFor((s) => /^-- p-1: 1 file: Queue\/1\.md -+$/m.test(s) && /^review - · not reviewed yet$/m.test(s), 'its view, loaded for it alone');
    pane.keys('g');
    await pane.waitFor(/^> p-1000 +pending/m, 'the newest again, after g');
    pane.keys('NPage');
    await pane.waitFor(/^> p-993 +pending/m, 'a page down (7 rows on 24 lines)');
    pane.keys('/');
    pane.type('queue/500.md');
    pane.keys('Enter');
    await pane.waitFor((s) => s.includes('open: 1 · /queue/500.md') && /^> p-500 +pending +change 500 /m.test(s), 'the filter by path');
    pane.keys('q');
    assert.equal(await pane.waitEnded('the inbox to quit'), 'exit=0');
  } finally {
    pane.kill();
  }
});

test('inbox: without a terminal it refuses with USAGE (exit 2) and names the verbs to use instead', async () => {
  const v = tempVault({ 'Bread.md': NOTE });
  const r = await runCliProcess(['inbox'], { vault: v.root, home: v.home });
  assert.equal(r.exitCode, 2, r.stdout + r.stderr);
  assert.equal(r.json.error.code, 'USAGE');
  assert.match(r.json.error.message, /needs a terminal/);
  assert.match(r.json.error.hint, /vaultgate proposals.*vaultgate review ID.*vaultgate apply ID --review-hash H/);
});
