/**
 * `plan` end to end: catalog → accepted answer → an exact, checked link plan
 * into the right one of two same-name notes; no-ops, staleness and refusals.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

const CACHE_OPS = '# Cache lifetime\n\nEntries live one hour in the edge cache.\nThe limit protects the origin from load.\n\n## Purge\n\n- purge on deploy\n- purge on config change\n';
const CACHE_DEV = '# Cache lifetime\n\nIn the dev server, caching is off.\n';
const ORIGIN = '# Origin load\n\nWithout a cache the origin serves every request.\nOne hour was chosen in the v1.2 review.\n';

function setup(extra: Record<string, string> = {}) {
  const v = tempVault({ 'ops/Cache lifetime.md': CACHE_OPS, 'dev/Cache lifetime.md': CACHE_DEV, 'reviews/Origin load.md': ORIGIN, ...extra });
  const cli = (args: string[]) => runCli(args, { vault: v.root, home: v.home, cwd: v.root });
  return { ...v, cli };
}

/** Prepare A → B and get an answer accepted; `recs` gets the catalog and returns the recommendations. */
async function accepted(cli: (a: string[]) => ReturnType<typeof runCli>, root: string, a: string, b: string, recs: (id: (side: string, n: number) => string) => object[]) {
  const cat = (await cli(['relate', 'prepare', a, b])).json;
  const id = (side: string, n: number) => cat.fragments.filter((f: any) => f.side === side)[n].id;
  const file = path.join(root, '..', `answer-${cat.catalog_id}.json`);
  fs.writeFileSync(file, JSON.stringify({ version: 'vaultgate.relation.v1', recommendations: recs(id) }));
  const r = await cli(['relate', 'validate', cat.catalog_id, file]);
  assert.equal(r.exitCode, 0, r.stdout);
  return cat;
}

test('plan: the link goes into the source after the anchor’s paragraph, naming exactly the chosen same-name note', async () => {
  const { cli, root } = setup();
  const cat = await accepted(cli, root, 'reviews/Origin load.md', 'ops/Cache lifetime.md', (id) => [
    { kind: 'link_a_to_b', claim: 'the hour is the edge cache lifetime', evidence_a: [id('A', 1)], evidence_b: [id('B', 0)], anchor: id('A', 1) },
  ]);
  const r = await cli(['plan', cat.catalog_id, '--recommendation', '0']);
  assert.equal(r.exitCode, 0, r.stdout);
  assert.equal(r.json.noop, false);
  const p = r.json.plan;
  assert.deepEqual([p.source, p.target, p.direction], ['reviews/Origin load.md', 'ops/Cache lifetime.md', 'a_to_b']);
  assert.equal(p.link_text, '[[ops/Cache lifetime]]', 'the bare name is a tie between the two Cache lifetime notes');
  assert.equal(p.insert.text, '\n\n[[ops/Cache lifetime]]');
  assert.match(r.json.diff, /^\+\[\[ops\/Cache lifetime\]\]$/m);
  const resolved = await cli(['resolve', p.link_text, '--from', p.source]);
  assert.equal(resolved.json.target, 'ops/Cache lifetime.md');
  assert.equal(fs.readFileSync(path.join(root, 'reviews/Origin load.md'), 'utf8'), ORIGIN, 'plan writes nothing');
});

test('plan: link_b_to_a into a list when asked; the vault’s Markdown-link format is honoured; an existing link is a no-op', async () => {
  const { cli, root } = setup({ '.obsidian/app.json': JSON.stringify({ newLinkFormat: 'relative', useMarkdownLinks: true }) });
  const cat = await accepted(cli, root, 'reviews/Origin load.md', 'ops/Cache lifetime.md', (id) => [
    { kind: 'link_b_to_a', claim: 'purges reset the load', evidence_a: [id('A', 0)], evidence_b: [id('B', 2)], anchor: id('B', 2) },
  ]);
  const r = await cli(['plan', cat.catalog_id, '--recommendation', '0', '--list-item']);
  assert.equal(r.exitCode, 0, r.stdout);
  assert.equal(r.json.plan.link_text, '[Origin load](../reviews/Origin%20load.md)');
  assert.equal(r.json.plan.insert.mode, 'list_item');
  assert.equal(r.json.plan.insert.after, '- purge on config change\n- [Origin load](../reviews/Origin%20load.md)\n');
  fs.appendFileSync(path.join(root, 'ops/Cache lifetime.md'), '\nSee [[reviews/Origin load|why]].\n');
  const stale = await cli(['plan', cat.catalog_id, '--recommendation', '0']);
  assert.equal(stale.exitCode, 75, 'the note changed since the catalog');
  assert.equal(stale.json.error.code, 'CATALOG_STALE');
  const again = await accepted(cli, root, 'reviews/Origin load.md', 'ops/Cache lifetime.md', (id) => [
    { kind: 'link_b_to_a', claim: 'purges reset the load', evidence_a: [id('A', 0)], evidence_b: [id('B', 2)], anchor: id('B', 2) },
  ]);
  const noop = await cli(['plan', again.catalog_id, '--recommendation', '0']);
  assert.equal(noop.exitCode, 0);
  assert.equal(noop.json.noop, true);
  assert.equal(noop.json.plan, null);
  assert.equal(noop.json.diff, null);
  assert.match(noop.json.reason, /already links to reviews\/Origin load\.md/);
});

test('plan: refusals — no accepted answer, not a link kind, an anchor on the wrong side, an unsafe line, two places at once', async () => {
  const { cli, root } = setup();
  const bare = (await cli(['relate', 'prepare', 'reviews/Origin load.md', 'ops/Cache lifetime.md'])).json;
  const none = await cli(['plan', bare.catalog_id, '--recommendation', '0']);
  assert.equal(none.json.error.code, 'ANSWER_NOT_ACCEPTED');
  const cat = await accepted(cli, root, 'reviews/Origin load.md', 'ops/Cache lifetime.md', (id) => [
    { kind: 'merge_candidate', claim: 'same topic', evidence_a: [id('A', 0)], evidence_b: [id('B', 0)] },
    { kind: 'link_a_to_b', claim: 'see the cache', evidence_a: [id('A', 0)], evidence_b: [id('B', 0)] },
  ]);
  const expect = async (args: string[], exit: number, code: string, reason?: string) => {
    const r = await cli(['plan', cat.catalog_id, ...args]);
    assert.equal(r.exitCode, exit, r.stdout);
    assert.equal(r.json.error.code, code);
    if (reason) assert.equal(r.json.error.details.reason, reason);
  };
  await expect(['--recommendation', '0'], 2, 'PLAN_NOT_APPLICABLE');
  await expect(['--recommendation', '7'], 2, 'PLAN_NOT_APPLICABLE');
  await expect(['--recommendation', '1'], 2, 'POSITION_REFUSED', 'no_position');
  await expect(['--recommendation', '1', '--at', cat.fragments.find((f: any) => f.side === 'B').id], 2, 'POSITION_REFUSED', 'wrong_side');
  await expect(['--recommendation', '1', '--line', '3'], 2, 'POSITION_REFUSED', 'inside_paragraph');
  await expect(['--recommendation', '1', '--line', '4', '--after-heading', 'Origin load'], 2, 'USAGE');
  const ok = await cli(['plan', cat.catalog_id, '--recommendation', '1', '--after-heading', 'Origin load']);
  assert.equal(ok.exitCode, 0, ok.stdout);
  assert.equal(ok.json.plan.insert.after.endsWith('[[ops/Cache lifetime]]\n'), true);
});

test('plan --propose: the plan becomes a proposal (nothing written until applied); a change just before storing is stale (75); a no-op proposes nothing', async () => {
  const { cli, root, home } = setup();
  const cat = await accepted(cli, root, 'reviews/Origin load.md', 'ops/Cache lifetime.md', (id) => [
    { kind: 'link_a_to_b', claim: 'the hour is the edge cache lifetime', evidence_a: [id('A', 1)], evidence_b: [id('B', 0)], anchor: id('A', 1) },
  ]);
  const r = await cli(['plan', cat.catalog_id, '--recommendation', '0', '--propose', '--agent', 'tester']);
  assert.equal(r.exitCode, 0, r.stdout);
  assert.match(r.json.proposal.id, /^p-\d+$/);
  assert.equal(r.json.proposal.state, 'pending');
  assert.equal(r.json.proposal.files[0].path, 'reviews/Origin load.md');
  assert.equal(r.json.proposal.files[0].base_sha256, r.json.plan.source_sha256);
  assert.equal(r.json.proposal.files[0].new_sha256, r.json.plan.new_sha256);
  assert.match(r.json.review.diff, /^\+\[\[ops\/Cache lifetime\]\]$/m);
  assert.equal(fs.readFileSync(path.join(root, 'reviews/Origin load.md'), 'utf8'), ORIGIN, 'a proposal writes nothing');
  const applied = await cli(['apply', r.json.proposal.id, '--review-hash', r.json.review.review_hash]);
  assert.equal(applied.exitCode, 0, applied.stdout);
  assert.match(fs.readFileSync(path.join(root, 'reviews/Origin load.md'), 'utf8'), /\n\n\[\[ops\/Cache lifetime\]\]\n/);

  // Now the link exists: a new catalog's plan is a no-op and proposes nothing.
  const again = await accepted(cli, root, 'reviews/Origin load.md', 'ops/Cache lifetime.md', (id) => [
    { kind: 'link_a_to_b', claim: 'the hour is the edge cache lifetime', evidence_a: [id('A', 1)], evidence_b: [id('B', 0)], anchor: id('A', 1) },
  ]);
  const noop = await cli(['plan', again.catalog_id, '--recommendation', '0', '--propose']);
  assert.equal(noop.exitCode, 0);
  assert.deepEqual([noop.json.noop, noop.json.proposal], [true, null]);

  // Stale between the plan and the proposal: the core function is called with a plan whose target then changed.
  const { makePlan, proposePlan } = await import('../../src/wing/plan/index.js');
  const { VaultSession } = await import('../../src/session/index.js');
  const third = await accepted(cli, root, 'dev/Cache lifetime.md', 'reviews/Origin load.md', (id) => [
    { kind: 'link_a_to_b', claim: 'dev cache relates to origin load', evidence_a: [id('A', 0)], evidence_b: [id('B', 0)], anchor: id('A', 0) },
  ]);
  const session = VaultSession.open({ vault: root, env: { ...process.env, VAULTGATE_HOME: home }, cwd: root });
  try {
    const plan = makePlan(root, session.env, session, { catalogId: third.catalog_id, recommendation: 0 });
    assert.equal(plan.noop, false);
    fs.appendFileSync(path.join(root, 'reviews/Origin load.md'), '\nA later edit.\n');
    await assert.rejects(proposePlan(session, plan, 'tester'), { code: 'CATALOG_STALE' });
  } finally {
    session.close();
  }
});
