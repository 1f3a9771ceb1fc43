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
