/**
 * Issue 20 §8: `review` and `apply` answer a pending proposal's last review
 * again when the key of what it read (src/proposals/review-inputs.ts) is the
 * same. The one property that matters: a review so answered is exactly the
 * review made afresh — after any change to the vault, the config, a link's
 * target, a file's mode or a folder's names. Each step below changes one
 * thing (or nothing) and compares the lifecycle's review with `runReview`
 * made from scratch; nothing-changed steps must be reuses, or the test would
 * prove nothing.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { apply, propose, review, ProposalStore, type StoredReview } from '../../../src/proposals/index.js';
import { runReview, type ReviewReuse } from '../../../src/proposals/review.js';
import { reviewInputs, reviewReads } from '../../../src/proposals/review-inputs.js';
import { VaultSession } from '../../../src/session/index.js';
import { tempVault } from '../../helpers/temp-vault.js';

const sha = (b: string | Buffer) => crypto.createHash('sha256').update(b).digest('hex');

const NOTES: Record<string, string> = {
  'notes/A.md': '# A\n\nsee [[B]]\n',
  'notes/B.md': '# B\n\n## Part\n\ntext ^blk\n',
  'notes/C.md': 'c\n',
  'other/D.md': 'd [[A]] [[E]]\n',
};

/** One change to the vault (or none): what a person or another agent might do between two reviews. */
const MUTATIONS: Record<string, (root: string) => void> = {
  nothing: () => {},
  'edit a touched note': (root) => fs.appendFileSync(path.join(root, 'notes/A.md'), 'more\n'),
  'put a touched note back': (root) => fs.writeFileSync(path.join(root, 'notes/A.md'), NOTES['notes/A.md']!),
  'chmod a touched note': (root) => fs.chmodSync(path.join(root, 'notes/A.md'), 0o600),
  'chmod it back': (root) => fs.chmodSync(path.join(root, 'notes/A.md'), 0o644),
  'create the note a new link names': (root) => fs.writeFileSync(path.join(root, 'notes/E.md'), 'e\n'),
  'delete it': (root) => fs.rmSync(path.join(root, 'notes/E.md'), { recursive: true, force: true }),
  'edit a link target': (root) => fs.writeFileSync(path.join(root, 'notes/B.md'), '# B\n\n## Other\n\ntext\n'),
  'put the link target back': (root) => fs.writeFileSync(path.join(root, 'notes/B.md'), NOTES['notes/B.md']!),
  'edit an unrelated note': (root) => fs.appendFileSync(path.join(root, 'other/D.md'), 'x\n'),
  'create the named note in another folder': (root) => fs.writeFileSync(path.join(root, 'other/E.md'), 'e elsewhere\n'),
  'delete that one': (root) => fs.rmSync(path.join(root, 'other/E.md'), { force: true }),
  'a folder named like a created note': (root) => fs.existsSync(path.join(root, 'notes/new.md')) || fs.mkdirSync(path.join(root, 'notes/new.md')),
  'remove that folder': (root) => fs.rmSync(path.join(root, 'notes/new.md'), { recursive: true, force: true }),
  'create a namesake beside a created note': (root) => fs.existsSync(path.join(root, 'notes/new.md')) || fs.writeFileSync(path.join(root, 'notes/new.md'), 'clash\n'),
  'remove the namesake': (root) => fs.rmSync(path.join(root, 'notes/new.md'), { recursive: true, force: true }),
  'hand the folder to an owner': (root) => (fs.mkdirSync(path.join(root, '.vaultgate'), { recursive: true }), fs.writeFileSync(path.join(root, '.vaultgate/config.yaml'), 'areas:\n  - glob: "notes/**"\n    owner: imported\n')),
  'take it back': (root) => fs.rmSync(path.join(root, '.vaultgate/config.yaml'), { force: true }),
  'plant a link where the engine keeps its state': (root) => {
    fs.mkdirSync(path.join(root, '.vaultgate/txn'), { recursive: true });
    if (!fs.existsSync(path.join(root, '.vaultgate/txn/backups'))) fs.symlinkSync(os.tmpdir(), path.join(root, '.vaultgate/txn/backups'));
  },
  'remove the link': (root) => fs.rmSync(path.join(root, '.vaultgate/txn/backups'), { force: true }),
  'link format absolute': (root) => (fs.mkdirSync(path.join(root, '.obsidian'), { recursive: true }), fs.writeFileSync(path.join(root, '.obsidian/app.json'), '{"newLinkFormat":"absolute"}')),
};

/**
 * Whether a review now would answer the proposal's last review again: the
 * lifecycle's decision (lifecycle.ts `reuseOf`: a pending proposal with a stored
 * key), probed through runReview without saving anything.
 */
async function wouldReuse(session: VaultSession, root: string, env: Record<string, string>, id: string): Promise<boolean> {
  const store = ProposalStore.open(root, env);
  try {
    const p = store.require(id);
    if (p.state !== 'pending' || p.review === null || p.review_inputs === null) return false;
    const inputs: ReviewReuse = { last: { review: p.review, key: p.review_inputs } };
    await runReview(session, p, { inputs });
    return inputs.reused === true;
  } finally {
    store.close();
  }
}

/** What a person approves and reads: everything but when it was made. */
function comparable(r: StoredReview) {
  const { reviewed_at: _at, ...rest } = JSON.parse(JSON.stringify(r)) as StoredReview;
  return rest;
}

async function setUp() {
  const { root, home } = tempVault(NOTES);
  const env = { VAULTGATE_HOME: home };
  const session = VaultSession.open({ vault: root, env, cwd: root });
  const made = await propose(
    session,
    {
      changes: [
        { action: 'write', path: 'notes/A.md', base: sha(NOTES['notes/A.md']!), content: '# A\n\nsee [[B#Part]], [[B#^blk]], [[C]] and [[E]]\n' },
        { action: 'write', path: 'notes/New.md', base: null, content: 'new, linking [[A]] and [[B#Part]]\n' },
      ],
    },
    'test',
  );
  return { root, env, session, id: made.proposal.id };
}

/** The lifecycle's review (which may answer the last one again) and one made from scratch, on the same vault. */
async function bothReviews(session: VaultSession, root: string, env: Record<string, string>, id: string) {
  const reused = await wouldReuse(session, root, env, id);
  const answered = await review(session, id, 'test');
  const store = ProposalStore.open(root, env);
  try {
    const stored = store.require(id);
    const fresh = await runReview(session, stored);
    return { answered: comparable(stored.review!), fresh: comparable(fresh), reused, state: answered.proposal.state };
  } finally {
    store.close();
  }
}

test('review inputs: a review answered again is the review made afresh, whatever changed in between (property)', async () => {
  const names = Object.keys(MUTATIONS);
  let reuses = 0;
  await fc.assert(
    fc.asyncProperty(fc.array(fc.constantFrom(...names), { minLength: 1, maxLength: 8 }), async (steps) => {
      const { root, env, session, id } = await setUp();
      try {
        let last = await bothReviews(session, root, env, id);
        for (const step of steps) {
          MUTATIONS[step]!(root);
          const now = await bothReviews(session, root, env, id);
          assert.deepEqual(now.answered.checks, now.fresh.checks, `checks after "${step}" (steps ${steps.join(', ')})`);
          assert.deepEqual(now.answered, now.fresh, `the review after "${step}" (steps ${steps.join(', ')})`);
          // nothing changed since a pending review: it is answered again, not made again
          if (step === 'nothing' && last.state === 'pending') assert.ok(now.reused, `a pending review with nothing changed is reused (steps ${steps.join(', ')})`);
          if (now.reused) reuses++;
          last = now;
        }
      } finally {
        await session.close();
      }
    }),
    { numRuns: 25, seed: 20_08 },
  );
  assert.ok(reuses > 0, 'some reviews were answered again');
});

test('review inputs: each kind of change is seen, and nothing-changed is a reuse', async () => {
  for (const step of Object.keys(MUTATIONS)) {
    const { root, env, session, id } = await setUp();
    try {
      const first = await bothReviews(session, root, env, id);
      assert.equal(first.state, 'pending', 'the proposal starts pending');
      assert.ok(first.reused, 'the review after propose answers propose’s review again');
      MUTATIONS[step]!(root);
      const now = await bothReviews(session, root, env, id);
      assert.deepEqual(now.answered, now.fresh, step);
      if (step === 'nothing') assert.ok(now.reused, step);
      // a change that makes a difference is never answered from the last review
      if (JSON.stringify(now.fresh) !== JSON.stringify(first.fresh)) assert.ok(!now.reused, `${step}: a different review is not a reuse`);
    } finally {
      await session.close();
    }
  }
});

test('review inputs: apply answers the approved review again and lands; a failed apply forgets the key', async () => {
  const { root, env, session, id } = await setUp();
  try {
    const r = await review(session, id, 'test');
    // the engine refuses what the review would approve: the touched note changes between review and apply
    fs.appendFileSync(path.join(root, 'notes/A.md'), 'late edit\n');
    await assert.rejects(apply(session, id, r.review_hash!, 'test'));
    const store = ProposalStore.open(root, env);
    try {
      assert.equal(store.require(id).review_inputs, null, 'after a failed apply the next review is made afresh');
    } finally {
      store.close();
    }
    fs.writeFileSync(path.join(root, 'notes/A.md'), NOTES['notes/A.md']!);
    assert.ok(!(await wouldReuse(session, root, env, id)), 'the first review after the failed apply is made afresh');
    const again = await review(session, id, 'test');
    assert.equal(again.proposal.state, 'pending');
    assert.ok(await wouldReuse(session, root, env, id), 'the second review after the failed apply answers the first again');
    const second = await review(session, id, 'test');
    const done = await apply(session, id, second.review_hash!, 'test');
    assert.equal(done.proposal.state, 'applied');
    assert.equal(fs.readFileSync(path.join(root, 'notes/A.md'), 'utf8'), '# A\n\nsee [[B#Part]], [[B#^blk]], [[C]] and [[E]]\n');
  } finally {
    await session.close();
  }
});

test('review inputs: a proposal whose review reads what no key covers is reviewed afresh every time', async () => {
  const { root, home } = tempVault(NOTES);
  const env = { VAULTGATE_HOME: home };
  const session = VaultSession.open({ vault: root, env, cwd: root });
  try {
    // a folder moved whole: its listing is read, and not keyed
    const made = await propose(session, { changes: [{ action: 'move', path: 'notes', base: null, to: 'moved' }] }, 'test');
    const store = ProposalStore.open(root, env);
    try {
      assert.equal(store.require(made.proposal.id).review_inputs, null);
    } finally {
      store.close();
    }
    await review(session, made.proposal.id, 'test');
    assert.ok(!(await wouldReuse(session, root, env, made.proposal.id)));
  } finally {
    await session.close();
  }
});

test('review inputs: the key sees every disk input even when the index has not (a watched index lags the disk)', async () => {
  const { root, env, session, id } = await setUp();
  const store = ProposalStore.open(root, env);
  try {
    const p = store.require(id);
    const config = session.config();
    // one read of the index: every key below is made against the same rows, so only the disk differs
    session.read((h) => {
      const keyNow = (q = p, cfg = config) => reviewInputs(root, h.db, cfg, q, reviewReads(root, q.changes))!.key();
      const first = keyNow();
      assert.equal(keyNow(), first, 'nothing changed: the same key');
      const differs = (what: string, change: () => void, undo: () => void) => {
        change();
        try {
          assert.notEqual(keyNow(), first, what);
        } finally {
          undo();
        }
        assert.equal(keyNow(), first, `${what}, undone`);
      };
      const A = path.join(root, 'notes/A.md');
      const B = path.join(root, 'notes/B.md');
      differs('a touched note’s bytes', () => fs.appendFileSync(A, 'x'), () => fs.writeFileSync(A, NOTES['notes/A.md']!));
      differs('a touched note’s mode', () => fs.chmodSync(A, 0o600), () => fs.chmodSync(A, 0o644));
      differs('a link target’s bytes', () => fs.appendFileSync(B, 'x'), () => fs.writeFileSync(B, NOTES['notes/B.md']!));
      differs('a name beside a created note', () => fs.writeFileSync(path.join(root, 'notes/new.md'), 'x'), () => fs.rmSync(path.join(root, 'notes/new.md')));
      differs('a file where a note is created', () => fs.writeFileSync(path.join(root, 'notes/New.md'), 'x'), () => fs.rmSync(path.join(root, 'notes/New.md')));
      differs('the link format', () => (fs.mkdirSync(path.join(root, '.obsidian')), fs.writeFileSync(path.join(root, '.obsidian/app.json'), '{"newLinkFormat":"absolute"}')), () => fs.rmSync(path.join(root, '.obsidian'), { recursive: true }));
      const umask = process.umask();
      differs('the umask', () => process.umask(umask ^ 0o077), () => process.umask(umask));
      assert.notEqual(keyNow(p, { ...config, default_owner: 'imported' }), first, 'the config');
      assert.notEqual(keyNow({ ...p, operation_id: `${p.operation_id}-2` }), first, 'the transaction id');
      assert.notEqual(keyNow({ ...p, allow_relink: !p.allow_relink }), first, 'a flag');
      assert.notEqual(keyNow({ ...p, link_targets: p.link_targets!.slice(1) }), first, 'the recorded targets');
      assert.equal(reviewInputs(root, h.db, config, { ...p, scenario: 'x' }, reviewReads(root, p.changes)), null, 'a scenario is not keyed');
      const txn = path.join(root, '.vaultgate/txn');
      differs('a link where the engine keeps its state', () => (fs.mkdirSync(txn, { recursive: true }), fs.symlinkSync(os.tmpdir(), path.join(txn, 'done'))), () => fs.rmSync(path.join(txn, 'done')));
      // an operation pending (interrupted, quarantined or being applied) may block the paths it holds: not keyed
      fs.mkdirSync(path.join(txn, 'pending/op-1'), { recursive: true });
      assert.equal(reviewInputs(root, h.db, config, p, reviewReads(root, p.changes)), null, 'a pending operation is not keyed');
      fs.rmSync(path.join(txn, 'pending/op-1'), { recursive: true });
      assert.equal(keyNow(), first, 'the lock folder and the state folders, empty, change nothing');
    });
  } finally {
    store.close();
    await session.close();
  }
});
