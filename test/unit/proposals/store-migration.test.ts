import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { PROPOSAL_STORE, ProposalStore } from '../../../src/proposals/index.js';
import { openStore } from '../../../src/store/index.js';
import { tempVault } from '../../helpers/temp-vault.js';

const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

/**
 * Schema v3 (issue #20 class 3) rebuilds `proposals` and `changes` to admit the
 * state `undone`: a v2 store keeps every proposal, change, text and audit event,
 * its guards (no delete, no change of a change) still hold, and the new state
 * and columns work.
 */
test('proposal store v2 → v3: every row kept, triggers and foreign keys kept, `undone` accepted', () => {
  const { root, home } = tempVault();
  const env = { VAULTGATE_HOME: home };
  const v2 = openStore(root, env, { ...PROPOSAL_STORE, migrations: PROPOSAL_STORE.migrations.slice(0, 2) })!;
  v2.db.prepare(`INSERT INTO proposals (seq, id, state, title, allow_shrink, origin, operation_id, created_at, updated_at, allow_relink, applied_at, changed_paths)
                 VALUES (1, 'p-1', 'applied', 'T', 0, 'propose', 'proposal-p-1-abcd', 'x', 'x', 1, 'y', '["a.md"]')`).run();
  v2.db.prepare(`INSERT INTO changes (proposal_seq, ord, path, action, base_sha256, new_sha256) VALUES (1, 0, 'a.md', 'write', ?, ?)`).run(sha('A'), sha('B'));
  v2.db.prepare(`INSERT INTO audit (at, event, actor, proposal, operation_id, review_hash, details) VALUES ('x', 'applied', 'operator', 'p-1', 'proposal-p-1-abcd', NULL, '{}')`).run();
  v2.db.close();

  const store = ProposalStore.open(root, env);
  try {
    assert.equal(store.db.pragma('user_version', { simple: true }), PROPOSAL_STORE.migrations.length);
    const p = store.require('p-1');
    assert.deepEqual([p.state, p.allow_relink, p.applied_at, p.changed_paths, p.undone_at, p.undone_by], ['applied', true, 'y', ['a.md'], null, null]);
    assert.deepEqual(p.changes.map((c) => [c.path, c.base_sha256, c.new_sha256]), [['a.md', sha('A'), sha('B')]]);
    assert.equal(store.log({ limit: 10 }).total, 1);
    assert.equal(store.transition('p-1', ['applied'], 'undone', undefined, { undone: { at: 'z', by: '_undo-proposal-p-1-abcd' } }), true);
    assert.deepEqual([store.require('p-1').state, store.require('p-1').undone_by], ['undone', '_undo-proposal-p-1-abcd']);
    assert.throws(() => store.db.prepare(`DELETE FROM proposals`).run(), /never deleted/);
    assert.throws(() => store.db.prepare(`UPDATE changes SET path = 'b.md'`).run(), /never changed/);
    assert.throws(() => store.db.prepare(`INSERT INTO changes (proposal_seq, ord, path, action) VALUES (9, 0, 'x.md', 'write')`).run(), /FOREIGN KEY/);
    assert.throws(() => store.db.prepare(`UPDATE proposals SET state = 'bogus'`).run(), /CHECK/);
    assert.deepEqual(store.db.pragma('foreign_key_check'), []);
  } finally {
    store.close();
  }
});
