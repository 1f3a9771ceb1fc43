/**
 * Issue #20 class 6: the review hash did not cover link side effects. A move
 * proposed with `--allow-relink` stores the link rewrites it found when it was
 * proposed; a `[[A]]` a person wrote after the review is not among them, and
 * apply (review again under the lock: a warning only, the same bundle, the same
 * hash) went through and left that link broken — a link change the reviewer
 * never saw. Now the review hash covers the set of link changes too: when the
 * set differs at apply time, apply refuses (LINK_CHANGES_STALE, 75) and writes
 * nothing, and a new review lists the new set under a new hash.
 *
 * Siblings: a delete with `--allow-broken-links` and a backlink written after
 * the review; a note created after the review that steals an existing link.
 * A link written after the review that still opens the moved note where it
 * moved (`follows_move`: its text and target unchanged) is not a change to that
 * link and does not refuse the apply.
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
const vg = (v: V, args: string[]) => runCliProcess(args, { vault: v.root, home: v.home });
const write = (v: V, rel: string, text: string) => {
  fs.mkdirSync(path.dirname(path.join(v.root, rel)), { recursive: true });
  fs.writeFileSync(path.join(v.root, rel), text);
};

async function proposePending(v: V, args: string[]) {
  const r = await vg(v, ['propose', ...args]);
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  assert.equal(r.json.proposal.state, 'pending', JSON.stringify(r.json.review.checks.filter((c: any) => !c.ok)));
  return r.json;
}

/** Apply with the reviewed hash after the vault changed: refused with 75, nothing written; a new review shows the new link and a new hash. */
async function refusedThenReviewed(v: V, p: any, newLink: { source: string; raw: string }) {
  const before = snapshotTree(v.root);
  const a = await vg(v, ['apply', p.proposal.id, '--review-hash', p.review.review_hash]);
  assert.equal(a.exitCode, 75, a.stdout + a.stderr);
  assert.equal(a.json.error.code, 'LINK_CHANGES_STALE');
  assert.match(a.json.error.message, new RegExp(newLink.source.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')), 'names the link change that is new');
  assert.match(a.json.error.hint, new RegExp(`vaultgate review ${p.proposal.id}`));
  assert.ok(
    a.json.error.details.added.some((c: any) => c.source === newLink.source && c.raw === newLink.raw),
    JSON.stringify(a.json.error.details),
  );
  assert.deepEqual(snapshotTree(v.root), before, 'nothing written');
  const r = await vg(v, ['review', p.proposal.id]);
  assert.equal(r.exitCode, 0, r.stdout);
  assert.notEqual(r.json.review_hash, p.review.review_hash, 'the new set of link changes is a new review hash');
  assert.ok(r.json.link_changes.some((c: any) => c.source === newLink.source && c.raw === newLink.raw), 'the new review shows the new link change');
  return r.json;
}

test('class 6: a [[A]] written after the review of a relinking move refuses the apply (75) instead of being left broken', async () => {
  const a = '# A\n';
  const v = tempVault({
    'A.md': a,
    'Links.md': 'See [[A]].\n',
    // an imported note is never rewritten: its link is why the move needs --allow-relink
    'Readwise/Clip.md': 'From the clip: [[A]]\n',
    '.vaultgate/config.yaml': 'areas:\n  - glob: "Readwise/**"\n    owner: imported\n',
  });
  const p = await proposePending(v, ['--rename', 'A.md', 'B', '--base', sha(a), '--allow-relink']);
  assert.ok(p.review.link_changes.some((c: any) => c.source === 'Readwise/Clip.md' && c.reason === 'unresolved'));
  // after the review, a person writes a new link to A
  write(v, 'Later.md', 'Written after the review: [[A]]\n');
  const r = await refusedThenReviewed(v, p, { source: 'Later.md', raw: '[[A]]' });
  // the new review is what the person approves now; with its hash the apply goes through
  const ok = await vg(v, ['apply', p.proposal.id, '--review-hash', r.review_hash]);
  assert.equal(ok.exitCode, 0, ok.stdout);
  assert.equal(fs.readFileSync(path.join(v.root, 'Links.md'), 'utf8'), 'See [[B]].\n');
});

test('class 6 sibling: a backlink written after the review of a delete (--allow-broken-links) refuses the apply', async () => {
  const gone = '# Gone\n';
  const v = tempVault({ 'Gone.md': gone, 'Old.md': 'links [[Gone]]\n' });
  const p = await proposePending(v, ['--delete', 'Gone.md', '--base', sha(gone), '--allow-broken-links']);
  write(v, 'New.md', 'a new backlink: [[Gone]]\n');
  await refusedThenReviewed(v, p, { source: 'New.md', raw: '[[Gone]]' });
  assert.ok(fs.existsSync(path.join(v.root, 'Gone.md')));
});

test('class 6 sibling: a note created after the review that steals a link the review listed refuses the apply', async () => {
  const v = tempVault({ 'Games/Rules.md': '# Rules\n', 'Projects/Plan.md': 'Read [[Rules]].\n' });
  // the proposal creates Projects/Rules.md, which steals Plan's [[Rules]]: allowed
  const p = await proposePending(v, ['Projects/Rules.md', '--content', '# Ours\n', '--base', 'none', '--allow-relink']);
  assert.deepEqual(p.review.link_changes.map((c: any) => [c.source, c.after.target]), [['Projects/Plan.md', 'Projects/Rules.md']]);
  // after the review, another [[Rules]] appears in Projects/: the proposal would steal it too
  write(v, 'Projects/Later.md', 'also [[Rules]]\n');
  await refusedThenReviewed(v, p, { source: 'Projects/Later.md', raw: '[[Rules]]' });
});

test('class 6: a link written after the review that still opens the moved note (follows_move) does not refuse the apply', async () => {
  const a = '# A\n';
  const v = tempVault({ 'A.md': a, 'Links.md': 'See [[A]].\n' });
  const p = await proposePending(v, ['--move', 'A.md', 'Sub/', '--base', sha(a), '--allow-relink']);
  write(v, 'Later.md', 'a bare link keeps opening A where it moves: [[A]]\n');
  const ok = await vg(v, ['apply', p.proposal.id, '--review-hash', p.review.review_hash]);
  assert.equal(ok.exitCode, 0, ok.stdout);
  assert.ok(fs.existsSync(path.join(v.root, 'Sub/A.md')));
});

test('class 6 sibling: a [[Note#Heading]] written after the review of a heading rename refuses the apply instead of losing its heading', async () => {
  const guide = '# Guide\n\n## Setup\n\nDo it.\n';
  const v = tempVault({ 'Guide.md': guide, 'Links.md': 'See [[Guide#Setup]].\n' });
  const p = await proposePending(v, ['--rename-heading', 'Guide.md', 'Guide > Setup', 'Install', '--base', sha(guide)]);
  write(v, 'Later.md', 'Written after the review: [[Guide#Setup]]\n');
  const before = snapshotTree(v.root);
  const a = await vg(v, ['apply', p.proposal.id, '--review-hash', p.review.review_hash]);
  assert.equal(a.exitCode, 75, a.stdout + a.stderr);
  assert.equal(a.json.error.code, 'LINK_CHANGES_STALE');
  assert.match(a.json.error.message, /Later\.md/);
  assert.deepEqual(snapshotTree(v.root), before, 'nothing written');
});
