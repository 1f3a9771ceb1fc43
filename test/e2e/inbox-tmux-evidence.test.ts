/**
 * Issue 22 §2 in the terminal inbox (the compiled CLI in an 80×24 tmux pane,
 * as inbox-tmux.test.ts): a proposal made by `plan --propose` shows its claim
 * with each cited fragment (status, side, note:line, heading, exact text)
 * beside it; after a cited sentence is edited, `r` reviews again and the
 * fragment reads `changed` with the `evidence` check failing.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CLI_BIN } from '../helpers/run-cli.js';
import { EVIDENCE_DST, EVIDENCE_NOTES, editNote, planProposal } from '../helpers/plan-proposal.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';
import { TMUX_SKIP, TmuxPane } from '../helpers/tmux.js';

test('inbox (tmux 80×24): a plan proposal shows its claim and the cited fragments; r after an edit shows one changed', { skip: TMUX_SKIP }, async () => {
  const v = tempVault(EVIDENCE_NOTES);
  const p = await planProposal(v);
  const env: Record<string, string | undefined> = { ...process.env, VAULTGATE_HOME: v.home };
  delete env.VAULTGATE_AGENT;
  delete env.VAULTGATE_VAULT;
  const pane = TmuxPane.start([process.execPath, CLI_BIN, '--vault', v.root, 'inbox'], { cols: 80, rows: 24, env, dir: tempDir('vaultgate-tmux-') });
  try {
    await pane.waitFor(new RegExp(`^> ${p.id} +pending`, 'm'), 'the queue listing the plan proposal');
    pane.keys('Enter');
    await pane.waitFor(
      (s) =>
        /^claim: the hour chosen in the review is the edge cache lifetime$/m.test(s) &&
        /^ +ok +A reviews\/Origin load\.md:5 \(Origin load\) · link here$/m.test(s) &&
        /^ +ok +B ops\/Cache lifetime\.md:8 \(Cache lifetime > Why\)$/m.test(s) &&
        /^ +Origin servers were overloaded in 2024\.$/m.test(s),
      'the claim with its three fragments',
    );
    editNote(v.root, EVIDENCE_DST, 'overloaded in 2024', 'overloaded in 2025');
    pane.keys('r');
    const screen = await pane.waitFor((s) => /^ +changed +B ops\/Cache lifetime\.md:8 \(Cache lifetime > Why\)$/m.test(s), 'the edited fragment, changed');
    assert.ok(screen);
    pane.keys('Space');
    await pane.waitFor(/^warn  evidence \(ops\/Cache lifetime\.md\): ops\/Cache lifetime\.md:8: fragment/m, 'the evidence check warning, a page down');
    pane.keys('q');
    assert.equal(await pane.waitEnded('the inbox to quit'), 'exit=0');
  } finally {
    pane.kill();
  }
});
