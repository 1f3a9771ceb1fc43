/**
 * Issue #20 class 3: a proposal stayed `applied` after its transaction was
 * undone (`vaultgate undo OP`), and `apply ID --review-hash H` answered ok with
 * `replayed: true`, exit 0, while the vault held the old text (the engine's
 * replay-after-undo of round 1, one layer up). Now the proposal store learns of
 * the undo: state `undone` in `proposals`, `show`, `log` and both inboxes; an
 * apply answers OPERATION_UNDONE (75) and changes nothing; `reopen` makes it
 * reviewable again (under a new operation id: the old one is spent).
 *
 * Real CLI runs on temporary vaults; `serve` over HTTP; the terminal inbox in tmux.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CLI_BIN, runCli, runCliProcess } from '../helpers/run-cli.js';
import { rawRequest, serve } from '../helpers/serve.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';
import { TMUX_SKIP, TmuxPane } from '../helpers/tmux.js';

const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const NOTE = '# Bread\n\nIntro.\n\n## Bake\n\nHot oven.\n';
const CHANGED = NOTE.replace('Hot oven.', 'Very hot oven.');

type V = { root: string; home: string };
const vg = (v: V, args: string[]) => runCli(args, { vault: v.root, home: v.home });
const read = (v: V) => fs.readFileSync(path.join(v.root, 'Bread.md'), 'utf8');

/** A vault with p-1 proposed, applied and its transaction undone with `vaultgate undo`. */
async function undoneProposal(): Promise<V & { op: string; hash: string }> {
  const v = tempVault({ 'Bread.md': NOTE });
  const p = await vg(v, ['propose', 'Bread.md', '--replace', 'Hot oven.', '--with', 'Very hot oven.', '--base', sha(NOTE), '--title', 'Hotter', '--agent', 'claude']);
  assert.equal(p.exitCode, 0, p.stdout);
  const hash = p.json.review.review_hash as string;
  const a = await vg(v, ['apply', 'p-1', '--review-hash', hash]);
  assert.equal(a.exitCode, 0, a.stdout);
  assert.equal(read(v), CHANGED);
  const op = a.json.operation_id as string;
  const u = await runCliProcess(['undo', op], { vault: v.root, home: v.home });
  assert.equal(u.exitCode, 0, u.stdout + u.stderr);
  assert.equal(read(v), NOTE, 'the undo restored the note');
  return { ...v, op, hash };
}

test('issue 20.3: after `undo OP`, the proposal is undone in proposals, show and log', async () => {
  const v = await undoneProposal();
  const list = await vg(v, ['proposals', '--state', 'undone']);
  assert.equal(list.exitCode, 0, list.stdout);
  assert.deepEqual(list.json.proposals.map((p: any) => [p.id, p.state]), [['p-1', 'undone']], list.stdout);
  const all = await vg(v, ['proposals']);
  assert.equal(all.json.proposals[0].state, 'undone');
  const shown = await vg(v, ['show', 'p-1']);
  assert.equal(shown.json.proposal.state, 'undone', shown.stdout);
  assert.equal(shown.json.proposal.undone_by, `_undo-${v.op}`);
  assert.equal(typeof shown.json.proposal.undone_at, 'string');
  const log = await vg(v, ['log', '--proposal', 'p-1']);
  const undone = log.json.events.find((e: any) => e.event === 'undone');
  assert.ok(undone, `the log records the undo: ${log.stdout}`);
  assert.equal(undone.operation_id, v.op);
  assert.equal(undone.details.undone_by, `_undo-${v.op}`);
  // the text face too
  const text = await vg(v, ['show', 'p-1', '--text']);
  assert.match(text.stdout, /undone/);
});

test('issue 20.3: apply of an undone proposal answers OPERATION_UNDONE (75) and changes nothing; reopen makes it reviewable and appliable again', async () => {
  const v = await undoneProposal();
  const again = await runCliProcess(['apply', 'p-1', '--review-hash', v.hash], { vault: v.root, home: v.home });
  assert.equal(again.exitCode, 75, again.stdout + again.stderr);
  assert.equal(again.json.ok, false);
  assert.equal(again.json.error.code, 'OPERATION_UNDONE');
  assert.match(again.json.error.hint, /reopen p-1/, 'the hint names the step that exists for apply');
  assert.equal(read(v), NOTE, 'nothing was written');
  // review of an undone proposal shows its state, and decline/rollback refuse with a reason
  const rv = await vg(v, ['review', 'p-1']);
  assert.equal(rv.json.proposal.state, 'undone', rv.stdout);
  const rb = await vg(v, ['rollback', 'p-1']);
  assert.equal(rb.json.error.code, 'PROPOSAL_STATE', rb.stdout);
  assert.match(rb.json.error.hint, /reopen/);

  const re = await vg(v, ['reopen', 'p-1']);
  assert.equal(re.exitCode, 0, re.stdout);
  assert.equal(re.json.proposal.state, 'pending');
  assert.ok(re.json.review_hash, re.stdout);
  assert.notEqual(re.json.review_hash, v.hash, 'a new operation id, so a new review hash: the old approval does not apply');
  const old = await vg(v, ['apply', 'p-1', '--review-hash', v.hash]);
  assert.equal(old.exitCode, 75, old.stdout);
  assert.equal(read(v), NOTE);
  const shown = await vg(v, ['show', 'p-1']);
  assert.notEqual(shown.json.proposal.operation_id, v.op, 'the spent operation id is not used again');
  assert.equal(shown.json.proposal.undone_by, null);
  const ok = await vg(v, ['apply', 'p-1', '--review-hash', re.json.review_hash]);
  assert.equal(ok.exitCode, 0, ok.stdout);
  assert.notEqual(ok.json.replayed, true);
  assert.equal(read(v), CHANGED, 'the change is in the vault again');
  assert.equal((await vg(v, ['show', 'p-1'])).json.proposal.state, 'applied');
  const events = (await vg(v, ['log', '--proposal', 'p-1'])).json.events.map((e: any) => e.event).reverse();
  assert.deepEqual(events, ['proposed', 'reviewed', 'applied', 'undone', 'reopened', 'applied']);
});

test('issue 20.3: undoing the undo puts the proposal back to applied', async () => {
  const v = await undoneProposal();
  assert.equal((await vg(v, ['show', 'p-1'])).json.proposal.state, 'undone');
  const redo = await runCliProcess(['undo', `_undo-${v.op}`], { vault: v.root, home: v.home });
  assert.equal(redo.exitCode, 0, redo.stdout + redo.stderr);
  assert.equal(read(v), CHANGED);
  const shown = await vg(v, ['show', 'p-1']);
  assert.equal(shown.json.proposal.state, 'applied', shown.stdout);
  const replay = await vg(v, ['apply', 'p-1', '--review-hash', v.hash]);
  assert.deepEqual([replay.exitCode, replay.json.replayed], [0, true], replay.stdout);
});

test('issue 20.3 sibling: a rollback proposal whose transaction is undone is undone too; the original stays applied', async () => {
  const v = tempVault({ 'Bread.md': NOTE });
  const p = await vg(v, ['propose', 'Bread.md', '--replace', 'Hot oven.', '--with', 'Very hot oven.', '--base', sha(NOTE)]);
  assert.equal((await vg(v, ['apply', 'p-1', '--review-hash', p.json.review.review_hash])).exitCode, 0);
  const rb = await vg(v, ['rollback', 'p-1']);
  assert.equal(rb.exitCode, 0, rb.stdout);
  const id = rb.json.proposal.id as string;
  const a = await vg(v, ['apply', id, '--review-hash', rb.json.review.review_hash]);
  assert.equal(a.exitCode, 0, a.stdout);
  assert.equal(read(v), NOTE);
  assert.equal((await vg(v, ['undo', a.json.operation_id])).exitCode, 0);
  assert.equal(read(v), CHANGED);
  const list = await vg(v, ['proposals']);
  assert.deepEqual(list.json.proposals.map((x: any) => [x.id, x.state]), [[id, 'undone'], ['p-1', 'applied']], list.stdout);
});

const CHROMIUM = '/usr/bin/chromium';
const NO_CHROMIUM = fs.existsSync(CHROMIUM) ? false : `chromium is not installed at ${CHROMIUM}: run \`bash scripts/setup-system.sh\` to run the browser tests`;

test('issue 20.3: the web inbox lists the proposal as undone (API and page) and its Reopen button reopens it', { skip: NO_CHROMIUM, timeout: 120_000 }, async () => {
  const v = await undoneProposal();
  const s = await serve(v.root, v.home);
  const { chromium } = await import('playwright-core');
  const browser = await chromium.launchPersistentContext(tempDir('vaultgate-chromium-'), {
    executablePath: CHROMIUM,
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const auth = { Authorization: `Bearer ${s.token}` };
    const list = await rawRequest(s.port, 'GET', '/api/proposals?state=undone', auth);
    assert.equal(list.status, 200, list.body);
    assert.deepEqual(list.json.proposals.map((p: any) => [p.id, p.state]), [['p-1', 'undone']]);
    const page = browser.pages()[0] ?? (await browser.newPage());
    await page.goto(s.url);
    await page.waitForSelector('body[data-ready="1"]');
    await page.selectOption('#f-state', 'undone');
    await page.waitForSelector('#list li[data-id="p-1"]');
    await page.locator('#list li[data-id="p-1"]').click();
    await page.waitForSelector('#detail[data-proposal="p-1"]');
    assert.equal(await page.locator('#detail .badge').first().innerText(), 'undone');
    assert.match(await page.locator('#detail .meta').first().innerText(), /undone .* by _undo-proposal-p-1-/);
    await page.locator('#detail button', { hasText: 'Reopen' }).click();
    await page.waitForSelector('.notice.ok');
    assert.equal((await vg(v, ['show', 'p-1'])).json.proposal.state, 'pending');
  } finally {
    await browser.close();
    await s.stop();
  }
});

test('issue 20.3: the terminal inbox shows the proposal as undone and o reopens it', { skip: TMUX_SKIP }, async () => {
  const v = await undoneProposal();
  const env: Record<string, string | undefined> = { ...process.env, VAULTGATE_HOME: v.home };
  delete env.VAULTGATE_AGENT;
  delete env.VAULTGATE_VAULT;
  const pane = TmuxPane.start([process.execPath, CLI_BIN, '--vault', v.root, 'inbox'], { cols: 80, rows: 24, env, dir: tempDir('vaultgate-tmux-') });
  try {
    await pane.waitFor((sc) => sc.includes('open: 0'), 'the empty open queue');
    pane.keys('s');
    pane.keys('s');
    pane.keys('s');
    await pane.waitFor(/^> p-1 +undone +Hotter/m, 'p-1 listed as undone in the "all" view');
    pane.keys('Enter');
    await pane.waitFor((sc) => /^ p-1  undone Hotter/m.test(sc) && /undone .* by _undo-/.test(sc), 'the proposal view saying what undid it');
    pane.keys('o');
    await pane.waitFor(/reopened p-1|p-1  pending/, 'the reopen');
    assert.equal((await vg(v, ['show', 'p-1'])).json.proposal.state, 'pending');
    pane.keys('q');
    pane.keys('q');
  } finally {
    pane.kill();
  }
});
