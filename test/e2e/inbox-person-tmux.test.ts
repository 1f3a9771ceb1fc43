/**
 * The person's side of the terminal inbox (issue 21 §4), in a real tmux pane
 * running the compiled CLI: the history says a rollback was proposed, and only
 * later that it was rolled back (an old log's early `rolled_back` reads as
 * proposed).
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { ProposalStore } from '../../src/proposals/index.js';
import { CLI_BIN, runCli } from '../helpers/run-cli.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';
import { TMUX_SKIP, TmuxPane } from '../helpers/tmux.js';

const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
type V = { root: string; home: string };

function inbox(v: V, size = { cols: 100, rows: 24 }): TmuxPane {
  const env: Record<string, string | undefined> = { ...process.env, VAULTGATE_HOME: v.home };
  delete env.VAULTGATE_AGENT;
  delete env.VAULTGATE_VAULT;
  return TmuxPane.start([process.execPath, CLI_BIN, '--vault', v.root, 'inbox'], { ...size, env, dir: tempDir('vaultgate-tmux-') });
}

async function vg(v: V, args: string[]): Promise<any> {
  const r = await runCli(args, { vault: v.root, home: v.home });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  return r.json;
}

test('inbox history (tmux): rollback_proposed when the inverse is proposed, rolled_back when it is applied; an old log reads right', { skip: TMUX_SKIP }, async () => {
  const NOTE = '# Bread\n\nHot oven.\n';
  const v = tempVault({ 'Bread.md': NOTE });
  const p1 = await vg(v, ['propose', 'Bread.md', '--replace', 'Hot oven.', '--with', 'Very hot oven.', '--base', sha(NOTE), '--title', 'Hotter', '--agent', 'claude']);
  await vg(v, ['apply', 'p-1', '--review-hash', p1.review.review_hash]);
  const rb = await vg(v, ['rollback', 'p-1']);
  await vg(v, ['apply', rb.proposal.id, '--review-hash', rb.review.review_hash]);
  // what a log written before issue 21 holds: `rolled_back` at proposal time, with the rollback's state then
  const store = ProposalStore.open(v.root, { VAULTGATE_HOME: v.home });
  try {
    store.appendEvent({ event: 'rolled_back', actor: 'operator', proposal: 'p-9', operation_id: null, review_hash: null, details: { rollback_proposal: 'p-10', state: 'pending' } });
  } finally {
    store.close();
  }
  const pane = inbox(v);
  try {
    await pane.waitFor(/open: 0/, 'the empty queue');
    pane.keys('Tab');
    await pane.waitFor(
      (s) => /rolled_back +p-1 +operator +by p-2\b/.test(s) && /rollback_proposed +p-1 +operator +as p-2 \(pending\)/.test(s) && /rollback_proposed +p-9 +operator +as p-10 \(pending\)/.test(s),
      'the pair on the history tab, and the old event read as proposed',
    );
    pane.keys('q');
    assert.equal(await pane.waitEnded('the inbox to quit'), 'exit=0');
  } finally {
    pane.kill();
  }
});

test('inbox diff (tmux 44 columns): the changed cell in reverse video; long lines wrap between words, a path stays whole', { skip: TMUX_SKIP }, async () => {
  const NOTE = '# Plans\n\n| Plan | Storage |\n|---|---|\n| Plus | 10 GB |\n\nSee the notes.\n';
  const v = tempVault({ 'Plans.md': NOTE });
  const longLine = 'See the decision in Projects/vaultgate/Decisions.md and the plans in Obsidian/Sync/Plans-and-storage-limits.md before you change anything here.';
  const p = await vg(v, ['propose', 'Plans.md', '--content', NOTE.replace('| Plus | 10 GB |', '| Plus | 100 GB |').replace('See the notes.', longLine), '--base', sha(NOTE), '--title', 'More storage']);
  assert.equal(p.proposal.id, 'p-1');
  const pane = inbox(v, { cols: 44, rows: 40 });
  try {
    await pane.waitFor(/^> p-1 +pending/m, 'the queue');
    pane.keys('Enter');
    await pane.waitFor((s) => /^ p-1 +pending More storage/m.test(s) && s.includes('+| Plus | 100 GB |') && s.includes('anything'), 'the proposal view with its whole diff');
    const styled = pane.captureStyled();
    const plus = styled.split('\n').find((l) => l.includes('100'))!;
    assert.match(plus, /\x1b\[[0-9;]*\b7m100\x1b\[/, `the changed cell in reverse video: ${JSON.stringify(plus)}`);
    assert.ok(!/\x1b\[[0-9;]*\b7m\| Plus/.test(plus), 'only the cell, not the row');
    const minus = styled.split('\n').find((l) => l.replace(/\x1b\[[0-9;]*m/g, '').startsWith('-| Plus | 10 GB'))!;
    assert.match(minus, /\x1b\[[0-9;]*\b7m10\x1b\[/);
    const screen = pane.capture();
    for (const path of ['Projects/vaultgate/Decisions.md', 'Obsidian/Sync/Plans-and-storage-limits.md']) assert.ok(screen.includes(path), `${path} whole on one row:\n${screen}`);
    for (const word of ['decision', 'anything', 'change']) assert.ok(new RegExp(`\\b${word}\\b`).test(screen), `${word} whole`);
    pane.keys('q');
  } finally {
    pane.kill();
  }
});
