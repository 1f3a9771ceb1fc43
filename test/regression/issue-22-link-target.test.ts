/**
 * Issue #22 §1: a plan's target is checked again right before it is written
 * (Veynrel's last barrier). vaultgate checked the link at `plan` and at
 * `plan --propose`, not at review or apply: after `plan --propose`, the target
 * note was moved away and an unrelated note created under the same name;
 * `review` passed every check, the proposal stayed pending, and apply would
 * have linked the unrelated note. Now the proposal records every new link's
 * target (path and sha256) when it is proposed; review re-resolves the link
 * text from the note it goes into and blocks (`link_target`) when it no longer
 * opens that same file with that same content; apply refuses with 75
 * (LINK_TARGET_CHANGED) and writes nothing. The same for any proposal that
 * adds a link, not only a plan's.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliProcess } from '../helpers/run-cli.js';
import { snapshotTree, tempVault } from '../helpers/temp-vault.js';

const sha = (s: string | Buffer) => crypto.createHash('sha256').update(s).digest('hex');
type V = { root: string; home: string };
const vg = (v: V, args: string[]) => runCliProcess(args, { vault: v.root, home: v.home, cwd: v.root });
const CACHE = '# Cache lifetime\n\nEntries live one hour in the edge cache.\nThe limit protects the origin from load.\n';
const ORIGIN = '# Origin load\n\nWithout a cache the origin serves every request.\nOne hour was chosen in the v1.2 review.\n';
const UNRELATED = '# Cache lifetime\n\nA recipe: how long bread keeps in the pantry.\n';

/** `plan --propose` of a link from reviews/Origin load.md to ops/Cache lifetime.md. */
async function planProposal(v: V) {
  const cat = (await vg(v, ['relate', 'prepare', 'reviews/Origin load.md', 'ops/Cache lifetime.md'])).json;
  const id = (side: string, n: number) => cat.fragments.filter((f: any) => f.side === side)[n].id;
  const file = path.join(v.root, '..', `answer-${cat.catalog_id}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify({
      version: 'vaultgate.relation.v1',
      recommendations: [{ kind: 'link_a_to_b', claim: 'the hour is the edge cache lifetime', evidence_a: [id('A', 1)], evidence_b: [id('B', 0)], anchor: id('A', 1) }],
    }),
  );
  assert.equal((await vg(v, ['relate', 'validate', cat.catalog_id, file])).exitCode, 0);
  const r = await vg(v, ['plan', cat.catalog_id, '--recommendation', '0', '--propose', '--agent', 'tester']);
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  assert.equal(r.json.proposal.state, 'pending');
  assert.equal(r.json.plan.link_text, '[[Cache lifetime]]');
  return r.json;
}

function move(v: V, from: string, to: string) {
  fs.mkdirSync(path.dirname(path.join(v.root, to)), { recursive: true });
  fs.renameSync(path.join(v.root, from), path.join(v.root, to));
}
function write(v: V, rel: string, text: string) {
  fs.mkdirSync(path.dirname(path.join(v.root, rel)), { recursive: true });
  fs.writeFileSync(path.join(v.root, rel), text);
}

/**
 * The proposal is blocked by link_target, lists as blocked, and apply (with the hash of the clean review) exits 75 and writes nothing.
 * `evidence`: a plan's proposal, whose cited sentence of the target is not in the namesake either (issue 22 §2's check blocks too).
 */
async function blockedByLinkTarget(v: V, id: string, reviewHash: string, expect: { target: string; now: string | null; evidence?: boolean }) {
  const r = await vg(v, ['review', id]);
  assert.equal(r.exitCode, 0, r.stdout);
  assert.equal(r.json.proposal.state, 'blocked');
  const failing = r.json.checks.filter((c: any) => !c.ok);
  assert.deepEqual(
    failing.map((c: any) => [c.name, c.severity]),
    [['link_target', 'block'], ...(expect.evidence ? [['evidence', 'block']] : [])],
    JSON.stringify(failing),
  );
  assert.equal(failing[0].details.target, expect.target);
  assert.equal(failing[0].details.now.target, expect.now);
  assert.match(failing[0].message, /\[\[Cache lifetime\]\]/);
  const list = await vg(v, ['proposals']);
  const row = list.json.proposals.find((p: any) => p.id === id);
  assert.deepEqual([row.state, row.blocking], ['blocked', ['link_target', ...(expect.evidence ? ['evidence'] : [])]], 'the queue (and so both inboxes) does not read ok');
  const before = snapshotTree(v.root);
  const a = await vg(v, ['apply', id, '--review-hash', reviewHash]);
  assert.equal(a.exitCode, 75, a.stdout + a.stderr);
  assert.equal(a.json.error.code, 'LINK_TARGET_CHANGED');
  assert.deepEqual(snapshotTree(v.root), before, 'nothing written');
}

test('issue 22 §1: after plan --propose, the target moved away and an unrelated note created under its name: review blocks (link_target), apply exits 75', async () => {
  const v = tempVault({ 'ops/Cache lifetime.md': CACHE, 'reviews/Origin load.md': ORIGIN });
  const p = await planProposal(v);
  move(v, 'ops/Cache lifetime.md', 'archive/Edge cache.md');
  write(v, 'ops/Cache lifetime.md', UNRELATED);
  await blockedByLinkTarget(v, p.proposal.id, p.review.review_hash, { target: 'ops/Cache lifetime.md', now: 'ops/Cache lifetime.md', evidence: true });
  assert.equal(fs.readFileSync(path.join(v.root, 'reviews/Origin load.md'), 'utf8'), ORIGIN);
  // putting the target back unblocks it, and what was reviewed is what lands
  fs.rmSync(path.join(v.root, 'ops/Cache lifetime.md'));
  move(v, 'archive/Edge cache.md', 'ops/Cache lifetime.md');
  const again = await vg(v, ['review', p.proposal.id]);
  assert.equal(again.json.proposal.state, 'pending', JSON.stringify(again.json.checks.filter((c: any) => !c.ok)));
  const ok = await vg(v, ['apply', p.proposal.id, '--review-hash', again.json.review_hash]);
  assert.equal(ok.exitCode, 0, ok.stdout);
});

test('issue 22 §1: the swap between a clean review and apply (the last barrier) — apply exits 75 and writes nothing', async () => {
  const v = tempVault({ 'ops/Cache lifetime.md': CACHE, 'reviews/Origin load.md': ORIGIN });
  const p = await planProposal(v);
  const clean = await vg(v, ['review', p.proposal.id]);
  assert.equal(clean.json.proposal.state, 'pending');
  const link = clean.json.checks.find((c: any) => c.name === 'link_target');
  assert.equal(link.ok, true, 'a passing link_target entry in every review');
  // the same link text now opens another file: the target went away, a namesake appeared next to the source
  move(v, 'ops/Cache lifetime.md', 'archive/Edge cache.md');
  write(v, 'reviews/Cache lifetime.md', UNRELATED);
  const before = snapshotTree(v.root);
  const a = await vg(v, ['apply', p.proposal.id, '--review-hash', clean.json.review_hash]);
  assert.equal(a.exitCode, 75, a.stdout + a.stderr);
  assert.equal(a.json.error.code, 'LINK_TARGET_CHANGED');
  assert.match(a.json.error.hint, /review/);
  assert.deepEqual(snapshotTree(v.root), before, 'nothing written');
  const row = (await vg(v, ['proposals'])).json.proposals[0];
  // the cited sentence's note is gone from its path too (issue 22 §2)
  assert.deepEqual([row.state, row.blocking], ['blocked', ['link_target', 'evidence']]);
});

test('issue 22 §1: any proposal that adds a link records its target; a swap after propose blocks it the same way', async () => {
  const v = tempVault({ 'ops/Cache lifetime.md': CACHE, 'reviews/Origin load.md': ORIGIN });
  const r = await vg(v, ['propose', 'reviews/Origin load.md', '--append', '--content', 'See [[Cache lifetime]].', '--base', sha(ORIGIN)]);
  assert.equal(r.exitCode, 0, r.stdout);
  assert.equal(r.json.proposal.state, 'pending');
  move(v, 'ops/Cache lifetime.md', 'archive/Edge cache.md');
  write(v, 'ops/Cache lifetime.md', UNRELATED);
  await blockedByLinkTarget(v, r.json.proposal.id, r.json.review.review_hash, { target: 'ops/Cache lifetime.md', now: 'ops/Cache lifetime.md' });
});
