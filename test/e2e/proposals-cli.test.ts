/**
 * The proposal loop end to end (issue #8 §1–§3), through the CLI on temporary
 * vaults: every propose form, review's checks, apply and its refusals, decline,
 * reopen, rollback, the list and the audit log. Bad input gets a typed error
 * and loses nothing.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, runCli, runCliProcess } from '../helpers/run-cli.js';
import { snapshotTree, tempVault, writeFiles } from '../helpers/temp-vault.js';

const sha = (s: string | Buffer) => crypto.createHash('sha256').update(s).digest('hex');

type V = { root: string; home: string };
const vg = (v: V, args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}) => runCli(args, { vault: v.root, home: v.home, ...opts });
const read = (v: V, rel: string) => fs.readFileSync(path.join(v.root, rel), 'utf8');
/** `severity:name` of every failing check, of a CLI run or of its JSON. */
const failing = (r: any) => {
  const j = r.json ?? r;
  return (j.review ?? j).checks.filter((c: any) => !c.ok).map((c: any) => `${c.severity}:${c.name}`);
};

const NOTE = `---
tags: [demo]
---
# Bread

Intro with a link to [[Other#Part]].

## Starter

Feed it daily. ^feed

## Bake

Hot oven.
`;

function vault(extra: Record<string, string> = {}): V {
  return tempVault({ 'Bread.md': NOTE, 'Other.md': '# Other\n\n## Part\n\ntext\n', 'Uses.md': 'See [[Bread#Starter]] and [[Bread#^feed]].\n', ...extra });
}

async function proposeOk(v: V, args: string[], opts: { env?: Record<string, string>; cwd?: string } = {}) {
  const r = await vg(v, ['propose', ...args], opts);
  assert.equal(r.exitCode, 0, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.json;
}

async function reviewHash(v: V, id: string): Promise<string> {
  const r = await vg(v, ['review', id]);
  assert.equal(r.exitCode, 0, r.stdout);
  return r.json.review_hash;
}

test('the loop: propose → review → apply → rollback → apply; the vault holds the original bytes again, and the log tells it all', async () => {
  const v = vault();
  const base = sha(NOTE);
  const p = await proposeOk(v, ['Bread.md', '--replace', 'Hot oven.', '--with', 'Very hot oven.', '--base', base, '--title', 'Hotter', '--agent', 'claude']);
  assert.deepEqual(Object.keys(p), ['ok', 'proposal', 'review']);
  assert.deepEqual(Object.keys(p.proposal), ['id', 'state', 'title', 'files']);
  assert.deepEqual([p.proposal.id, p.proposal.state, p.proposal.title], ['p-1', 'pending', 'Hotter']);
  assert.deepEqual(Object.keys(p.review), ['checks', 'files', 'diff', 'link_changes', 'review_hash']);
  assert.deepEqual(
    [...new Set(p.review.checks.map((c: any) => c.name))],
    ['base', 'path', 'owner', 'managed_blocks', 'frontmatter', 'links', 'link_target', 'link_stability', 'shrink'],
  );
  assert.equal(read(v, 'Bread.md'), NOTE, 'propose writes nothing into the vault');
  assert.equal(fs.existsSync(path.join(v.root, '.vaultgate')), false, 'not even .vaultgate/');

  const r = await vg(v, ['review', 'p-1']);
  assert.deepEqual(Object.keys(r.json), ['ok', 'proposal', 'checks', 'files', 'diff', 'link_changes', 'review_hash']);
  assert.deepEqual(r.json.proposal, { id: 'p-1', state: 'pending' });
  assert.equal(r.json.review_hash, p.review.review_hash, 'review is stable while nothing changes');
  const f = r.json.files[0];
  assert.deepEqual(Object.keys(f), ['path', 'action', 'old_sha256', 'new_sha256', 'diff', 'links_added', 'links_removed', 'links_rewritten', 'links_broken', 'shrink']);
  assert.deepEqual([f.path, f.action, f.old_sha256, f.new_sha256], ['Bread.md', 'write', base, sha(NOTE.replace('Hot oven.', 'Very hot oven.'))]);
  assert.match(f.diff, /^diff --git a\/Bread.md b\/Bread.md\n--- a\/Bread.md\n\+\+\+ b\/Bread.md\n@@ -11,4 \+11,4 @@\n/);
  assert.match(f.diff, /\n-Hot oven.\n\+Very hot oven.\n$/);
  assert.equal(r.json.diff, f.diff);

  const a = await vg(v, ['apply', 'p-1', '--review-hash', r.json.review_hash]);
  assert.equal(a.exitCode, 0, a.stdout);
  assert.deepEqual(Object.keys(a.json), ['ok', 'operation_id', 'changed_paths', 'proposal']);
  assert.match(a.json.operation_id, /^proposal-p-1-[0-9a-f]{8}$/);
  assert.deepEqual([a.json.changed_paths, a.json.proposal], [['Bread.md'], { id: 'p-1', state: 'applied' }]);
  assert.equal(read(v, 'Bread.md'), NOTE.replace('Hot oven.', 'Very hot oven.'));
  const again = await vg(v, ['apply', 'p-1', '--review-hash', r.json.review_hash]);
  assert.deepEqual([again.exitCode, again.json.replayed, again.json.operation_id], [0, true, a.json.operation_id], 'a second apply returns the stored result');

  const rb = await vg(v, ['rollback', 'p-1']);
  assert.equal(rb.exitCode, 0, rb.stdout);
  // proposed is not done: the log says `rollback_proposed`, and `rolled_back` only once the inverse is applied (issue 21 §4)
  const proposedOnly = await vg(v, ['log', '--proposal', 'p-1', '--limit', '1']);
  assert.deepEqual([proposedOnly.json.events[0].event, proposedOnly.json.events[0].details.rollback_proposal], ['rollback_proposed', 'p-2']);
  const before = await vg(v, ['show', 'p-1']);
  assert.deepEqual([before.json.proposal.rolled_back_by, before.json.proposal.rollback_state], ['p-2', 'pending']);
  assert.deepEqual([rb.json.proposal.id, rb.json.proposal.state, rb.json.proposal.rollback_of], ['p-2', 'pending', 'p-1']);
  assert.equal(read(v, 'Bread.md'), NOTE.replace('Hot oven.', 'Very hot oven.'), 'rollback never writes');
  const dup = await vg(v, ['rollback', 'p-1']);
  assert.deepEqual([dup.exitCode, dup.json.error.code], [2, 'PROPOSAL_STATE']);
  const a2 = await vg(v, ['apply', 'p-2', '--review-hash', rb.json.review.review_hash]);
  assert.equal(a2.exitCode, 0, a2.stdout);
  assert.equal(read(v, 'Bread.md'), NOTE);

  const shown = await vg(v, ['show', 'p-1']);
  assert.deepEqual([shown.json.proposal.state, shown.json.proposal.agent, shown.json.proposal.rolled_back_by, shown.json.proposal.rollback_state], ['applied', 'claude', 'p-2', 'applied']);
  const log = await vg(v, ['log']);
  assert.deepEqual(
    log.json.events.map((e: any) => `${e.event} ${e.proposal} ${e.actor}`).reverse(),
    ['proposed p-1 claude', 'reviewed p-1 claude', 'reviewed p-1 operator', 'applied p-1 operator', 'proposed p-2 operator', 'reviewed p-2 operator', 'rollback_proposed p-1 operator', 'applied p-2 operator', 'rolled_back p-1 operator'],
  );
  const applied = log.json.events.find((e: any) => e.event === 'applied' && e.proposal === 'p-1');
  assert.deepEqual([applied.operation_id, applied.review_hash], [a.json.operation_id, r.json.review_hash]);
  assert.deepEqual(applied.details.files, [{ path: 'Bread.md', action: 'write', base_sha256: base, new_sha256: f.new_sha256 }]);
  const rolled = log.json.events.find((e: any) => e.event === 'rolled_back');
  assert.deepEqual([rolled.proposal, rolled.operation_id, rolled.details.rollback_proposal, rolled.details.changed_paths], ['p-1', a2.json.operation_id, 'p-2', ['Bread.md']]);
  const list = await vg(v, ['proposals', '--state', 'applied']);
  assert.deepEqual(list.json.proposals.map((x: any) => x.id), ['p-2', 'p-1']);
  assert.equal((await vg(v, ['log', '--proposal', 'p-2', '--limit', '1'])).json.events[0].event, 'applied');
});

test('every propose form becomes an exact full-text change', async () => {
  const v = vault();
  const dir = path.dirname(v.root);
  const base = sha(NOTE);
  fs.writeFileSync(path.join(dir, 'full.md'), '# Bread\n\nAll new.\n');
  fs.writeFileSync(path.join(dir, 'tail.md'), 'Appended.\n');
  fs.writeFileSync(path.join(dir, 'starter.md'), 'Feed it twice a day. ^feed\n');
  const cases: Array<[string[], string]> = [
    [['Bread.md', '--content-file', 'full.md', '--base', base, '--allow-shrink'], '# Bread\n\nAll new.\n'],
    [['Bread.md', '--append-file', 'tail.md', '--base', base], NOTE + 'Appended.\n'],
    [['Bread.md', '--section', 'Bread > Starter', '--content-file', 'starter.md', '--base', base], NOTE.replace('Feed it daily. ^feed', 'Feed it twice a day. ^feed')],
    [['Bread.md', '--append-to-section', 'Starter', '--content', 'Or twice.', '--base', base], NOTE.replace('Feed it daily. ^feed\n', 'Feed it daily. ^feed\nOr twice.\n')],
    [['Bread.md', '--append', '--content', 'End.\n', '--base', base], NOTE + 'End.\n'],
  ];
  for (const [args, want] of cases) {
    const p = await proposeOk(v, args, { cwd: dir });
    assert.equal(p.proposal.files[0].new_sha256, sha(want), args.join(' '));
    assert.equal(p.proposal.state, 'pending', `${args.join(' ')}: ${JSON.stringify(failing({ json: p }))}`);
  }
  // stdin, a new note
  const s = await runCliProcess(['propose', 'New/Note.md', '--stdin', '--base', 'none'], { vault: v.root, home: v.home, input: '# New\n' });
  assert.equal(s.exitCode, 0, s.stdout + s.stderr);
  assert.deepEqual([s.json.proposal.files[0].base_sha256, s.json.proposal.files[0].new_sha256, s.json.proposal.title], [null, sha('# New\n'), 'Create New/Note.md']);
  // delete and move
  const d = await proposeOk(v, ['--delete', 'Other.md', '--base', sha('# Other\n\n## Part\n\ntext\n'), '--allow-shrink']);
  assert.deepEqual(d.review.files[0].links_broken.map((b: any) => [b.source, b.raw, b.reason]), [['Bread.md', '[[Other#Part]]', 'unresolved']]);
  const m = await proposeOk(v, ['--move', 'Other.md', 'Archive/Other.md', '--base', sha('# Other\n\n## Part\n\ntext\n')]);
  assert.deepEqual(m.proposal.files, [{ path: 'Other.md', action: 'move', to: 'Archive/Other.md', base_sha256: sha('# Other\n\n## Part\n\ntext\n'), new_sha256: sha('# Other\n\n## Part\n\ntext\n') }]);
  assert.equal(m.review.files[0].diff, 'diff --git a/Other.md b/Archive/Other.md\nrename from Other.md\nrename to Archive/Other.md\n');
  assert.deepEqual(m.review.files[0].links_broken, [], '[[Other#Part]] still resolves by name after the move');
  // several files at once
  const doc = {
    title: 'Two at once',
    summary: 'why',
    changes: [
      { path: 'Bread.md', action: 'write', content: NOTE + 'More.\n', base },
      { path: 'Fresh.md', action: 'write', content: 'fresh\n', base: null },
    ],
  };
  fs.writeFileSync(path.join(dir, 'changes.json'), JSON.stringify(doc));
  const c = await proposeOk(v, ['--changes', 'changes.json'], { cwd: dir });
  assert.deepEqual([c.proposal.title, c.proposal.files.map((x: any) => x.path)], ['Two at once', ['Bread.md', 'Fresh.md']]);
  const a = await vg(v, ['apply', c.proposal.id, '--review-hash', c.review.review_hash]);
  assert.equal(a.exitCode, 0, a.stdout);
  assert.deepEqual([read(v, 'Bread.md'), read(v, 'Fresh.md')], [NOTE + 'More.\n', 'fresh\n']);
});

test('refused proposals store nothing: stale base (75), no-op, reserved folder, text not found or found twice, bad --changes', async () => {
  const v = vault();
  const dir = path.dirname(v.root);
  const base = sha(NOTE);
  const expect = async (args: string[], exit: number, code: string, opts: { cwd?: string } = {}) => {
    const r = await vg(v, ['propose', ...args], opts);
    assert.deepEqual([r.exitCode, r.json?.error?.code], [exit, code], `${args.join(' ')}: ${r.stdout}`);
    return r.json.error;
  };
  await expect(['Bread.md', '--content', 'x', '--base', sha('old')], 75, 'STALE_HASH');
  await expect(['Bread.md', '--content', 'x', '--base', 'none'], 75, 'STALE_HASH');
  await expect(['Gone.md', '--delete', '--base', base], 75, 'STALE_HASH');
  await expect(['--move', 'Bread.md', 'Other.md', '--base', base], 75, 'STALE_HASH');
  await expect(['Bread.md', '--content', NOTE, '--base', base], 2, 'PROPOSAL_NOOP');
  await expect(['Bread.md', '--replace', 'Hot', '--with', 'Hot', '--base', base], 2, 'PROPOSAL_NOOP');
  await expect(['.obsidian/app.json', '--content', '{}', '--base', 'none'], 2, 'PATH_RESERVED');
  await expect(['.vaultgate/config.yaml', '--content', 'x: 1', '--base', 'none'], 2, 'PATH_RESERVED');
  await expect(['../out.md', '--content', 'x', '--base', 'none'], 2, 'PATH_OUTSIDE_VAULT');
  assert.deepEqual((await expect(['Bread.md', '--replace', 'nothing like this', '--with', 'x', '--base', base], 2, 'EDIT_NO_MATCH')).details, { count: 0 });
  assert.deepEqual((await expect(['Bread.md', '--replace', 'it', '--with', 'x', '--base', base], 2, 'EDIT_AMBIGUOUS')).details, { count: 2 });
  await expect(['Bread.md', '--section', 'Nowhere', '--content', 'x', '--base', base], 2, 'HEADING_NOT_FOUND');
  await expect(['Bread.md', '--delete', '--content', 'x', '--base', base], 2, 'USAGE');
  await expect(['Bread.md', '--content', 'x'], 2, 'USAGE');
  await expect(['Bread.md', '--content', 'x', '--base', 'abc'], 2, 'USAGE');
  fs.writeFileSync(path.join(dir, 'unknown.json'), JSON.stringify({ title: 't', changes: [{ path: 'a.md', action: 'write', content: 'x', base: null, mode: 'x' }] }));
  fs.writeFileSync(path.join(dir, 'dup.json'), '{"title":"t","title":"u","changes":[{"path":"a.md","action":"write","content":"x","base":null}]}');
  fs.writeFileSync(path.join(dir, 'twice.json'), JSON.stringify({ title: 't', changes: [{ path: 'a.md', action: 'write', content: 'x', base: null }, { path: 'A.md', action: 'write', content: 'y', base: null }] }));
  assert.match((await expect(['--changes', 'unknown.json'], 2, 'CHANGES_INVALID', { cwd: dir })).message, /unknown\.json: changes\[0\]\.mode: unknown field/);
  assert.match((await expect(['--changes', 'dup.json'], 2, 'CHANGES_INVALID', { cwd: dir })).message, /duplicate key/);
  await expect(['--changes', 'twice.json'], 2, 'BUNDLE_INVALID', { cwd: dir });
  assert.deepEqual((await vg(v, ['proposals'])).json, { ok: true, total: 0, proposals: [] }, 'nothing was stored');
  assert.equal(fs.existsSync(path.join(v.root, '.vaultgate')), false);
});

test('review follows the vault: a changed base blocks (apply 75), a wrong hash is 75, and a restored base makes it pending again', async () => {
  const v = vault();
  const p = await proposeOk(v, ['Bread.md', '--append', '--content', 'x\n', '--base', sha(NOTE)]);
  const hash = p.review.review_hash;
  const wrong = await vg(v, ['apply', 'p-1', '--review-hash', 'f'.repeat(64)]);
  assert.deepEqual([wrong.exitCode, wrong.json.error.code], [75, 'APPROVAL_MISMATCH']);
  fs.writeFileSync(path.join(v.root, 'Bread.md'), NOTE + 'edited by hand\n');
  const r = await vg(v, ['review', 'p-1']);
  assert.deepEqual([r.json.proposal.state, failing(r), r.json.review_hash], ['blocked', ['block:base'], null]);
  const a = await vg(v, ['apply', 'p-1', '--review-hash', hash]);
  assert.deepEqual([a.exitCode, a.json.error.code], [75, 'STALE_HASH']);
  assert.equal(read(v, 'Bread.md'), NOTE + 'edited by hand\n', 'nothing written');
  assert.equal((await vg(v, ['show', 'p-1'])).json.proposal.state, 'blocked');
  fs.writeFileSync(path.join(v.root, 'Bread.md'), NOTE);
  const again = await vg(v, ['review', 'p-1']);
  assert.deepEqual([again.json.proposal.state, again.json.review_hash], ['pending', hash]);
  assert.equal((await vg(v, ['apply', 'p-1', '--review-hash', hash])).exitCode, 0);
});

test('decline needs a reason; a declined proposal does not apply (exit 2, hint to reopen); reopen reviews it again', async () => {
  const v = vault();
  const p = await proposeOk(v, ['Bread.md', '--append', '--content', 'x\n', '--base', sha(NOTE)]);
  assert.equal((await vg(v, ['decline', 'p-1'])).json.error.code, 'USAGE');
  const d = await vg(v, ['decline', 'p-1', '--reason', 'not now']);
  assert.deepEqual(d.json.proposal, { id: 'p-1', state: 'declined', reason: 'not now' });
  const a = await vg(v, ['apply', 'p-1', '--review-hash', p.review.review_hash]);
  assert.deepEqual([a.exitCode, a.json.error.code], [2, 'PROPOSAL_DECLINED']);
  assert.match(a.json.error.hint, /vaultgate reopen p-1/);
  assert.equal((await vg(v, ['decline', 'p-1', '--reason', 'again'])).json.error.code, 'PROPOSAL_STATE');
  const r = await vg(v, ['reopen', 'p-1']);
  assert.deepEqual([r.exitCode, r.json.proposal.state], [0, 'pending']);
  assert.equal((await vg(v, ['show', 'p-1'])).json.proposal.declined_reason, null);
  assert.equal((await vg(v, ['apply', 'p-1', '--review-hash', r.json.review_hash])).exitCode, 0);
  assert.equal((await vg(v, ['reopen', 'p-1'])).json.error.code, 'PROPOSAL_STATE');
  const events = (await vg(v, ['log', '--proposal', 'p-1'])).json.events.map((e: any) => e.event).reverse();
  assert.deepEqual(events, ['proposed', 'reviewed', 'declined', 'reopened', 'applied']);
  assert.equal((await vg(v, ['log'])).json.events.find((e: any) => e.event === 'declined').details.reason, 'not now');
});

test('unknown ids are typed errors (exit 2); a malformed id is a usage error', async () => {
  const v = vault();
  for (const args of [['review', 'p-9'], ['show', 'p-9'], ['apply', 'p-9', '--review-hash', 'a'.repeat(64)], ['log', '--proposal', 'p-9']]) {
    const r = await vg(v, args);
    assert.deepEqual([r.exitCode, r.json.error.code], [2, 'PROPOSAL_UNKNOWN'], args.join(' '));
  }
  await proposeOk(v, ['X.md', '--content', 'x', '--base', 'none']);
  assert.equal((await vg(v, ['review', 'p-2'])).json.error.code, 'PROPOSAL_UNKNOWN');
  assert.equal((await vg(v, ['review', 'x-1'])).json.error.code, 'USAGE');
});

test('owner areas: a write into a non-human area is proposable, review blocks it, apply exits 77; index: false areas are not indexed', async () => {
  const v = vault({
    'Imported/Feed.md': '# Feed\n\nimported text\n',
    'Build/out.md': '# Out\n\ncompiled zebra text\n',
    '.vaultgate/config.yaml': 'areas:\n  - glob: "Imported/**"\n    owner: imported\n  - glob: "Build/**"\n    owner: compiled\n    index: false\n',
  });
  const p = await proposeOk(v, ['Imported/Feed.md', '--content', '# Feed\n\nmine now\n', '--base', sha('# Feed\n\nimported text\n')]);
  assert.deepEqual([p.proposal.state, failing(p)], ['blocked', ['block:owner']]);
  assert.match(p.review.checks.find((c: any) => c.name === 'owner').message, /belongs to imported \(area "Imported\/\*\*"/);
  const a = await vg(v, ['apply', p.proposal.id, '--review-hash', p.review.review_hash]);
  assert.deepEqual([a.exitCode, a.json.error.code], [77, 'AREA_PROTECTED']);
  const otherCase = await proposeOk(v, ['imported/New.md', '--content', 'x', '--base', 'none']);
  assert.ok(failing(otherCase).includes('block:owner'), 'globs match case-insensitively: on macOS imported/ is Imported/');
  const moveOut = await proposeOk(v, ['--move', 'Imported/Feed.md', 'Mine.md', '--base', sha('# Feed\n\nimported text\n')]);
  assert.equal(moveOut.proposal.state, 'blocked', 'moving out of a protected area touches it too');
  const s = await vg(v, ['search', 'zebra']);
  assert.equal(s.json.total, 0, 'Build/** has index: false');
  const bad = await vg(v, ['check'], {});
  assert.equal(bad.exitCode, 0);
  writeFiles(v.root, { '.vaultgate/config.yaml': 'areas:\n  - glob: "Imported/{a,b}"\n    owner: imported\n' });
  const c = await vg(v, ['review', 'p-1']);
  assert.deepEqual([c.exitCode, c.json.error.code], [2, 'CONFIG_INVALID']);
  writeFiles(v.root, { '.vaultgate/config.yaml': 'areas:\n  - glob: "Imported/**"\n    owner: robot\n' });
  assert.equal((await vg(v, ['review', 'p-1'])).json.error.code, 'CONFIG_INVALID');
  writeFiles(v.root, { '.vaultgate/config.yaml': 'default_owner: unknown\nareas:\n  - glob: "**/*.md"\n    owner: human\n' });
  assert.equal((await vg(v, ['review', 'p-1'])).json.proposal.state, 'pending');
});

test('managed blocks: a change inside one blocks (apply 77); a change elsewhere in the note is fine; configured markers count too', async () => {
  const text = '# Log\n\nmine\n\n%%dataview-managed%%\ngenerated 1\n%%/dataview-managed%%\n\n<!-- BEGIN SYNC -->\nsynced\n<!-- END SYNC -->\n';
  const v = vault({ 'Log.md': text, '.vaultgate/config.yaml': 'managed_blocks:\n  - start: "<!-- BEGIN SYNC -->"\n    end: "<!-- END SYNC -->"\n' });
  const base = sha(text);
  const ok = await proposeOk(v, ['Log.md', '--replace', 'mine', '--with', 'mine, edited', '--base', base]);
  assert.equal(ok.proposal.state, 'pending');
  const inside = await proposeOk(v, ['Log.md', '--replace', 'generated 1', '--with', 'generated 2', '--base', base]);
  assert.deepEqual(failing(inside), ['block:managed_blocks']);
  assert.match(inside.review.checks.find((c: any) => c.name === 'managed_blocks').message, /edits managed block dataview \(line 5\)/);
  const synced = await proposeOk(v, ['Log.md', '--replace', 'synced', '--with', 'mine', '--base', base]);
  assert.deepEqual(failing(synced), ['block:managed_blocks']);
  const a = await vg(v, ['apply', inside.proposal.id, '--review-hash', inside.review.review_hash]);
  assert.deepEqual([a.exitCode, a.json.error.code], [77, 'AREA_PROTECTED']);
  assert.equal(read(v, 'Log.md'), text);
});

test('frontmatter: new broken YAML blocks; a note already broken the same way only warns', async () => {
  const broken = '---\ntitle: [unclosed\n---\nbody\n';
  const v = vault({ 'Broken.md': broken });
  const p = await proposeOk(v, ['Bread.md', '--replace', 'tags: [demo]', '--with', 'tags: [demo', '--base', sha(NOTE)]);
  assert.deepEqual(failing(p), ['block:frontmatter']);
  const q = await proposeOk(v, ['Broken.md', '--replace', 'body', '--with', 'body!', '--base', sha(broken)]);
  assert.deepEqual([q.proposal.state, failing(q)], ['pending', ['warn:frontmatter']]);
});

test('links: a new ambiguous link or missing heading blocks, a link to a missing note warns, a removed heading others link to is listed', async () => {
  const v = vault({ 'a/Dup.md': 'a', 'b/Dup.md': 'b' });
  const base = sha(NOTE);
  const p = await proposeOk(v, ['Bread.md', '--append', '--content', '[[Dup]] [[Other#Nope]] [[Someday]] [[Other#Part]]\n', '--base', base]);
  assert.deepEqual(failing(p), ['block:links', 'block:links', 'warn:links']);
  assert.deepEqual(
    p.review.files[0].links_added.map((l: any) => [l.raw, l.status, l.subpath?.exists ?? null]),
    [['[[Dup]]', 'ambiguous', null], ['[[Other#Nope]]', 'resolved', false], ['[[Someday]]', 'unresolved', null], ['[[Other#Part]]', 'resolved', true]],
  );
  const s = await proposeOk(v, ['Bread.md', '--replace', '## Starter\n\nFeed it daily. ^feed\n\n', '--with', '', '--base', base]);
  assert.deepEqual([s.proposal.state, failing(s)], ['pending', ['warn:links']]);
  assert.deepEqual(s.review.files[0].links_broken.map((b: any) => [b.source, b.raw, b.reason]), [['Uses.md', '[[Bread#Starter]]', 'missing_anchor'], ['Uses.md', '[[Bread#^feed]]', 'missing_anchor']]);
  const r = await proposeOk(v, ['Bread.md', '--replace', '[[Other#Part]]', '--with', 'nothing', '--base', base]);
  assert.deepEqual(r.review.files[0].links_removed.map((l: any) => l.raw), ['[[Other#Part]]']);
});

test('shrink: removing more than half of a note blocks unless --allow-shrink; deleting a linked note blocks unless --allow-broken-links (or issue 8\'s --allow-shrink)', async () => {
  const v = vault();
  const base = sha(NOTE);
  const p = await proposeOk(v, ['Bread.md', '--content', '# Bread\n', '--base', base]);
  assert.deepEqual(failing(p), ['warn:links', 'block:shrink'], 'Uses.md links to the headings it removes');
  assert.ok(p.review.files[0].shrink > 0.5);
  const ok = await proposeOk(v, ['Bread.md', '--content', '# Bread\n', '--base', base, '--allow-shrink']);
  assert.deepEqual([ok.proposal.state, failing(ok)], ['pending', ['warn:links', 'warn:shrink']]);
  const del = await proposeOk(v, ['--delete', 'Bread.md', '--base', base]);
  // issue 8 names it a shrink, issue 12 lists its links under link_stability: both checks say it
  assert.deepEqual(failing(del), ['block:link_stability', 'block:shrink']);
  const delShrink = del.review.checks.find((c: any) => c.name === 'shrink');
  assert.deepEqual([delShrink.path, delShrink.details], ['Bread.md', { deleted: true, links: 2, sources: 1 }]);
  assert.match(delShrink.message, /deletes Bread\.md, which 1 note links to .*--allow-shrink/);
  assert.equal(del.review.files[0].shrink, 1);
  const stab = del.review.checks.find((c: any) => c.name === 'link_stability');
  assert.equal(stab.path, 'Bread.md');
  assert.deepEqual(
    stab.details.links.map((l: any) => [l.source, l.line, l.raw, l.before, l.after, l.reason]),
    [['Uses.md', 1, '[[Bread#Starter]]', 'Bread.md', 'unresolved', 'target_deleted'], ['Uses.md', 1, '[[Bread#^feed]]', 'Bread.md', 'unresolved', 'target_deleted']],
  );
  // issue 8: "deletes a note with backlinks … blocked unless --allow-shrink"; issue 12: "unless --allow-broken-links": either allows it
  const shrinkAllowed = await proposeOk(v, ['--delete', 'Bread.md', '--base', base, '--allow-shrink']);
  assert.deepEqual([shrinkAllowed.proposal.state, failing(shrinkAllowed)], ['pending', ['warn:link_stability', 'warn:shrink']]);
  const allowed = await proposeOk(v, ['--delete', 'Bread.md', '--base', base, '--allow-broken-links']);
  assert.deepEqual([allowed.proposal.state, failing(allowed)], ['pending', ['warn:link_stability', 'warn:shrink']]);
  assert.ok(allowed.review.link_changes.every((c: any) => c.intended && c.reason === 'target_deleted'), 'said so: intended');
  const lone = await proposeOk(v, ['--delete', 'Uses.md', '--base', sha('See [[Bread#Starter]] and [[Bread#^feed]].\n')]);
  assert.equal(lone.proposal.state, 'pending', 'a note nobody links to may go');
});

test('rollback of a proposal whose file changed since the apply is created, but blocked with the reason', async () => {
  const v = vault();
  const p = await proposeOk(v, ['Bread.md', '--append', '--content', 'x\n', '--base', sha(NOTE)]);
  assert.equal((await vg(v, ['apply', 'p-1', '--review-hash', p.review.review_hash])).exitCode, 0);
  fs.appendFileSync(path.join(v.root, 'Bread.md'), 'a later edit\n');
  const rb = await vg(v, ['rollback', 'p-1']);
  assert.equal(rb.exitCode, 0, rb.stdout);
  // proposed is not done: the log says `rollback_proposed`, and `rolled_back` only once the inverse is applied (issue 21 §4)
  const proposedOnly = await vg(v, ['log', '--proposal', 'p-1', '--limit', '1']);
  assert.deepEqual([proposedOnly.json.events[0].event, proposedOnly.json.events[0].details.rollback_proposal], ['rollback_proposed', 'p-2']);
  assert.deepEqual([rb.json.proposal.state, failing(rb)], ['blocked', ['block:base']]);
  assert.match(rb.json.review.checks[0].message, /Bread\.md changed since the proposal was made/);
  assert.equal((await vg(v, ['rollback', 'p-2'])).json.error.code, 'PROPOSAL_STATE', 'only applied proposals roll back');
  // a rollback of a created note deletes it; of a move moves it back
  const c = await proposeOk(v, ['N.md', '--content', 'n\n', '--base', 'none']);
  await vg(v, ['apply', c.proposal.id, '--review-hash', c.review.review_hash]);
  const m = await proposeOk(v, ['--move', 'Other.md', 'O2.md', '--base', sha('# Other\n\n## Part\n\ntext\n')]);
  await vg(v, ['apply', m.proposal.id, '--review-hash', m.review.review_hash]);
  for (const id of [c.proposal.id, m.proposal.id]) {
    const r = await vg(v, ['rollback', id]);
    assert.equal(r.json.proposal.state, 'pending', JSON.stringify(failing(r)));
    assert.equal((await vg(v, ['apply', r.json.proposal.id, '--review-hash', r.json.review.review_hash])).exitCode, 0);
  }
  assert.equal(fs.existsSync(path.join(v.root, 'N.md')), false);
  assert.equal(read(v, 'Other.md'), '# Other\n\n## Part\n\ntext\n');
});

test('a corrupt or foreign proposal store is exit 3 (STATE_CORRUPT) and the file is left untouched', async () => {
  const v = vault();
  await proposeOk(v, ['X.md', '--content', 'x', '--base', 'none']);
  const store = fs.readdirSync(path.join(v.home), { recursive: true }).map(String).find((f) => f.endsWith('proposals.sqlite'))!;
  const file = path.join(v.home, store);
  const garbage = Buffer.from('this is not a database, but it is the user’s history'.repeat(200));
  fs.writeFileSync(file, garbage);
  for (const f of ['-wal', '-shm']) fs.rmSync(file + f, { force: true });
  for (const args of [['proposals'], ['review', 'p-1'], ['propose', 'Y.md', '--content', 'y', '--base', 'none'], ['log']]) {
    const r = await vg(v, args);
    assert.deepEqual([r.exitCode, r.json.error.code], [3, 'STATE_CORRUPT'], args.join(' '));
  }
  assert.deepEqual(fs.readFileSync(file), garbage);
  assert.equal(fs.existsSync(path.join(v.root, 'Y.md')), false);
});

test('reads of a vault without proposals create nothing', async () => {
  const v = vault();
  const before = snapshotTree(v.home, { includeHidden: true });
  assert.deepEqual((await vg(v, ['proposals'])).json, { ok: true, total: 0, proposals: [] });
  assert.deepEqual((await vg(v, ['log'])).json, { ok: true, total: 0, events: [] });
  assert.deepEqual(snapshotTree(v.home, { includeHidden: true }), before);
});

test('scenarios: propose --scenario applies its write rules and validator in review; a breach blocks and apply exits 77; an unknown scenario stores nothing', async () => {
  const v = tempVault({ 'Books/Dune.md': '---\ntags: [books]\n---\n# Dune\n\nSand.\n', 'Notes/x.md': 'x\n' });
  fs.cpSync(path.join(REPO_ROOT, 'examples/scenarios/books'), path.join(v.root, '.vaultgate/scenarios/books'), { recursive: true });
  const good = await proposeOk(v, ['Books/Emma.md', '--content', '---\ntags: [books]\nrating: 4\n---\n# Emma\n\nA novel.\n', '--base', 'none', '--scenario', 'books']);
  assert.deepEqual([good.proposal.state, failing(good)], ['pending', []]);
  assert.deepEqual(good.review.checks.filter((c: any) => ['scenario', 'validator'].includes(c.name)).map((c: any) => [c.name, c.ok]), [['scenario', true], ['validator', true]]);
  const outside = await proposeOk(v, ['Notes/x.md', '--content', 'y\n', '--base', sha('x\n'), '--scenario', 'books']);
  assert.deepEqual(failing(outside), ['block:scenario', 'block:scenario'], 'outside its areas, and no tags');
  const rules = await proposeOk(v, ['Books/Bad.md', '--content', '---\nrating: 9\n---\n# Wrong title\n', '--base', 'none', '--scenario', 'books']);
  assert.deepEqual(failing(rules), ['block:scenario', 'block:validator']);
  const a = await vg(v, ['apply', outside.proposal.id, '--review-hash', outside.review.review_hash]);
  assert.deepEqual([a.exitCode, a.json.error.code], [77, 'OUT_OF_SCOPE']);
  assert.equal(read(v, 'Notes/x.md'), 'x\n');
  assert.equal((await vg(v, ['apply', good.proposal.id, '--review-hash', good.review.review_hash])).exitCode, 0);
  const unknown = await vg(v, ['propose', 'Books/Y.md', '--content', 'y', '--base', 'none', '--scenario', 'nope']);
  assert.deepEqual([unknown.exitCode, unknown.json.error.code], [2, 'SCENARIO_NOT_FOUND']);
  assert.equal((await vg(v, ['proposals'])).json.total, 3, 'nothing stored for the unknown scenario');
  // a scenario that breaks after the proposal was made blocks its review, saying why
  fs.writeFileSync(path.join(v.root, '.vaultgate/scenarios/books/scenario.yaml'), 'name: books\nversion: 1\nareas: ["Books/**"]\ntypo: 1\n');
  const r = await vg(v, ['review', rules.proposal.id]);
  assert.match(r.json.checks.find((c: any) => c.name === 'scenario').message, /cannot be loaded.*typo/);
});

test('a crash after the transaction committed but before the proposal was marked: the next look settles it as applied, from the engine’s record', async () => {
  const v = vault();
  const p = await proposeOk(v, ['Bread.md', '--append', '--content', 'x\n', '--base', sha(NOTE)]);
  const { ProposalStore } = await import('../../src/proposals/index.js');
  const { proposalBundle } = await import('../../src/proposals/bundle.js');
  const { applyBundle } = await import('../../src/txn/index.js');
  const store = ProposalStore.open(v.root, { VAULTGATE_HOME: v.home });
  try {
    const rec = store.require('p-1');
    // what apply does under the lock, then the engine's transaction — and the process "dies" before marking the proposal
    // (the engine checks its own approval hash, which the review hash wraps with the link changes)
    assert.ok(store.transition('p-1', { from: ['pending'], to: 'recovery' }));
    await applyBundle(v.root, proposalBundle(rec.operation_id, rec.changes), rec.review!.approval_sha256!);
  } finally {
    store.close();
  }
  assert.equal(read(v, 'Bread.md'), NOTE + 'x\n');
  const shown = await vg(v, ['show', 'p-1']);
  assert.deepEqual([shown.json.proposal.state, shown.json.proposal.changed_paths], ['applied', ['Bread.md']]);
  const events = (await vg(v, ['log', '--proposal', 'p-1'])).json.events;
  assert.deepEqual([events[0].event, events[0].details], ['recovery', { outcome: 'applied' }]);
  const again = await vg(v, ['apply', 'p-1', '--review-hash', p.review.review_hash]);
  assert.deepEqual([again.exitCode, again.json.replayed], [0, true]);
});

test('an interrupted apply a person settled with tx resolve: the proposal is declined, saying so (its transaction id is spent)', async () => {
  const v = vault();
  await proposeOk(v, ['Bread.md', '--append', '--content', 'x\n', '--base', sha(NOTE)]);
  const { ProposalStore } = await import('../../src/proposals/index.js');
  const store = ProposalStore.open(v.root, { VAULTGATE_HOME: v.home });
  let op: string;
  try {
    op = store.require('p-1').operation_id;
    assert.ok(store.transition('p-1', { from: ['pending'], to: 'recovery' }));
  } finally {
    store.close();
  }
  // the record `tx resolve OP --keep-current` leaves (no writes: nothing to parse)
  fs.mkdirSync(path.join(v.root, '.vaultgate/txn/done'), { recursive: true });
  fs.writeFileSync(
    path.join(v.root, `.vaultgate/txn/done/${op}.json`),
    JSON.stringify({ schema: 'vaultgate.done.v1', operation_id: op, operation_type: 'generic', outcome: 'resolved_keep_current', bundle_sha256: 'x', approval_sha256: 'y', completed_at: new Date().toISOString(), changed_paths: ['Bread.md'], backup_dir: null, writes: [], created_dirs: [] }),
  );
  const shown = await vg(v, ['show', 'p-1']);
  assert.equal(shown.json.proposal.state, 'declined');
  assert.match(shown.json.proposal.declined_reason, /tx resolve.*resolved keep current/);
  assert.deepEqual((await vg(v, ['log', '--proposal', 'p-1'])).json.events[0].details, { outcome: 'resolved_keep_current' });
});
