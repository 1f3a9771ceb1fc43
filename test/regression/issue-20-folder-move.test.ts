import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.js';
import { snapshotTree, tempVault } from '../helpers/temp-vault.js';

/**
 * Issue 20 §7: a folder move proposed before a file was added to that folder
 * landed split — the files it had listed moved, the newcomer stayed behind, and
 * apply said ok. The proposal now remembers which folders it moves whole; review
 * compares each folder's files with the move's and blocks (`base`) when they
 * differ, so apply refuses with STALE_HASH (75) and moves nothing.
 */
test('issue 20.7: a file added to a folder after its move was proposed: review blocks, apply exits 75, nothing moves', async () => {
  const { root, home } = tempVault({ 'Projects/Old/a.md': '# a\n', 'Projects/Old/sub/b.md': '# b\n', 'Home.md': 'See [[a]].\n' });
  const cli = (args: string[]) => runCli(args, { vault: root, home });
  const p = await cli(['propose', '--move', 'Projects/Old', 'Archive/Old']);
  assert.equal(p.exitCode, 0, p.stdout);
  const { id } = p.json.proposal;
  const hash = p.json.review.review_hash;
  assert.equal(p.json.proposal.state, 'pending');

  fs.writeFileSync(path.join(root, 'Projects/Old/sub/new.md'), '# new\n');
  const before = snapshotTree(root);

  const r = await cli(['review', id]);
  assert.equal(r.json.proposal.state, 'blocked', r.stdout);
  const base = r.json.checks.find((c: { name: string; ok: boolean }) => c.name === 'base' && !c.ok);
  assert.ok(base, `a failing base check: ${JSON.stringify(r.json.checks)}`);
  assert.match(base.message, /Projects\/Old\/sub\/new\.md/, 'it names the file the move would leave behind');
  assert.equal(r.json.review_hash, null, 'no review hash to apply with');

  const a = await cli(['apply', id, '--review-hash', hash]);
  assert.deepEqual([a.exitCode, a.json?.error?.code], [75, 'STALE_HASH'], a.stdout);
  assert.deepEqual(snapshotTree(root), before, 'nothing moved');
  assert.equal((await cli(['show', id])).json.proposal.state, 'blocked');

  // the same folder, once the newcomer is gone again: the move is whole again and applies
  fs.rmSync(path.join(root, 'Projects/Old/sub/new.md'));
  const again = await cli(['review', id]);
  assert.equal(again.json.proposal.state, 'pending', again.stdout);
  const ok = await cli(['apply', id, '--review-hash', again.json.review_hash]);
  assert.equal(ok.exitCode, 0, ok.stdout);
  assert.equal(fs.existsSync(path.join(root, 'Projects/Old/a.md')), false);
  assert.equal(fs.readFileSync(path.join(root, 'Archive/Old/sub/b.md'), 'utf8'), '# b\n');
});

test('issue 20.7: a rename of a folder is held to the same rule; moves of single files are not', async () => {
  const { root, home } = tempVault({ 'F/a.md': '# a\n', 'G/x.md': '# x\n' });
  const cli = (args: string[]) => runCli(args, { vault: root, home });
  const folder = await cli(['propose', '--rename', 'F', 'F2']);
  assert.equal(folder.exitCode, 0, folder.stdout);
  const sha = (await cli(['note', 'G/x.md'])).json.sha256;
  const file = await cli(['propose', '--move', 'G/x.md', 'H/x.md', '--base', sha]);
  assert.equal(file.exitCode, 0, file.stdout);
  fs.writeFileSync(path.join(root, 'F/b.md'), '# b\n');
  fs.writeFileSync(path.join(root, 'G/y.md'), '# y\n');
  assert.equal((await cli(['review', folder.json.proposal.id])).json.proposal.state, 'blocked');
  assert.equal((await cli(['review', file.json.proposal.id])).json.proposal.state, 'pending', 'a file move does not care what else its folder holds');
});
