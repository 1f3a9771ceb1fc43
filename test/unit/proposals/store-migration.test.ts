import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import zlib from 'node:zlib';
import { PROPOSAL_STORE, ProposalStore } from '../../../src/proposals/index.js';
import { RAW_ABOVE_BYTES } from '../../../src/proposals/store.js';
import { textKey } from '../../../src/proposals/text-key.js';
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
    assert.equal(store.transition('p-1', { from: ['applied'], to: 'undone', set: { undone: { at: 'z', by: '_undo-proposal-p-1-abcd' } } }), true);
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

/**
 * Schema v10 (issue 20 §8): a text of RAW_ABOVE_BYTES or more is kept raw (deflating
 * and inflating a 12 MB proposal's texts cost more than storing it); a shorter one is
 * still deflated. A v9 store's rows (all deflated) read back unchanged after the
 * migration, and a large text round-trips exactly, byte for byte, through a raw row.
 */
test('proposal store v9 → v10: deflated rows read back; a large text is kept raw and round-trips exactly', () => {
  const { root, home } = tempVault();
  const env = { VAULTGATE_HOME: home };
  const small = 'small note ’ 🎉\n';
  const large = '\ufeff' + Array.from({ length: 12_000 }, (_, i) => `word${i} ’ 🎉 [[n${i % 60}]]`).join(' ') + '\r\n';
  const v9 = openStore(root, env, { ...PROPOSAL_STORE, migrations: PROPOSAL_STORE.migrations.slice(0, 9) })!;
  v9.db.prepare(`INSERT INTO proposals (seq, id, state, title, allow_shrink, origin, operation_id, created_at, updated_at) VALUES (1, 'p-1', 'pending', 'T', 0, 'propose', 'proposal-p-1-abcd', 'x', 'x')`).run();
  v9.db.prepare(`INSERT INTO changes (proposal_seq, ord, path, action, base_sha256, new_sha256) VALUES (1, 0, 'a.md', 'write', ?, ?)`).run(sha(small), sha(large));
  for (const t of [small, large]) v9.db.prepare('INSERT INTO texts (sha256, bytes, data) VALUES (?, ?, ?)').run(sha(t), Buffer.byteLength(t), zlib.deflateRawSync(Buffer.from(t)));
  v9.db.close();

  const store = ProposalStore.open(root, env);
  try {
    assert.equal(store.db.pragma('user_version', { simple: true }), PROPOSAL_STORE.migrations.length);
    // v11: a review stored before it has no key of what it read, so it is never reused
    assert.equal(store.require('p-1').review_inputs, null);
    const old = store.require('p-1').changes[0]!;
    assert.deepEqual([old.old_text, old.new_text], [small, large], 'v9 rows (deflated) read back exactly');
    assert.deepEqual(store.db.prepare('SELECT DISTINCT codec FROM texts').pluck().all(), ['deflate-raw']);
    const larger = large.replace('word0', 'WORD0');
    const p = store.insert(
      {
        title: 'T2', summary: null, agent: null, session: null, scenario: null, allow_shrink: false, allow_relink: false, allow_broken_links: false, origin: 'propose', rollback_of: null,
        changes: [{ path: 'b.md', action: 'write', to: null, base_sha256: sha(small), old_text: small, new_text: larger, new_sha256: sha(larger) }],
      },
      'a',
    );
    assert.ok(Buffer.byteLength(larger) >= RAW_ABOVE_BYTES);
    const row = store.db.prepare('SELECT bytes, codec, data FROM texts WHERE sha256 = ?').get(sha(larger)) as { bytes: number; codec: string; data: Buffer };
    assert.equal(row.codec, 'raw');
    assert.ok(row.data.equals(Buffer.from(larger, 'utf8')), 'the raw row holds the text’s exact bytes');
    assert.equal(store.db.prepare('SELECT codec FROM texts WHERE sha256 = ?').pluck().get(sha(small)), 'deflate-raw', 'a short text stays deflated');
    assert.equal(p.changes[0]!.new_text, larger);
    // a fresh store (no memo) reads the raw row back exactly
    store.close();
    const again = ProposalStore.open(root, env);
    try {
      assert.equal(again.require(p.id).changes[0]!.new_text, larger);
      // a raw row whose bytes do not match its hash is refused, like a deflated one
      again.db.exec('DROP TRIGGER texts_never_updated');
      again.db.prepare('UPDATE texts SET data = ? WHERE sha256 = ?').run(Buffer.from(larger.replace('word1', 'WORD1'), 'utf8'), sha(larger));
      assert.throws(() => ProposalStore.open(root, env).require(p.id), (e: Error & { code?: string }) => e.code === 'STATE_CORRUPT');
    } finally {
      again.close();
    }
  } finally {
    try {
      store.close();
    } catch {
      // closed above
    }
  }
});

/** Issue 20 §8: the keys the store hands review's parse memo are exactly `textKey` of its texts; bytes that are not UTF-8 are never keyed by their hash. */
test('proposal store: knownTextKeys are textKey of every text kept or read exactly, none for bytes that are not UTF-8', () => {
  const { root, home } = tempVault();
  const env = { VAULTGATE_HOME: home };
  const old = '\ufeff# Old ’\r\n' + 'word '.repeat(400);
  const now = '# New 🎉\n' + 'other '.repeat(400);
  const store = ProposalStore.open(root, env);
  try {
    store.insert(
      {
        title: 'T', summary: null, agent: null, session: null, scenario: null, allow_shrink: false, allow_relink: false, allow_broken_links: false, origin: 'propose', rollback_of: null,
        changes: [{ path: 'a.md', action: 'write', to: null, base_sha256: sha(old), old_text: old, new_text: now, new_sha256: sha(now) }],
      },
      'a',
    );
    assert.deepEqual(new Map(store.knownTextKeys()), new Map([old, now].map((x) => [x, textKey(x)])));
    // bytes that are not UTF-8 kept under a hash a text row names (a capture of the same bytes)
    const binary = Buffer.from([0xff, 0xfe, 0x41, 0x80]);
    const bsha = crypto.createHash('sha256').update(binary).digest('hex');
    store.db.prepare('INSERT INTO texts (sha256, bytes, data) VALUES (?, ?, ?)').run(bsha, binary.byteLength, zlib.deflateRawSync(binary));
    store.db.prepare(`INSERT INTO changes (proposal_seq, ord, path, action, base_sha256, new_sha256) VALUES (1, 1, 'b.md', 'write', ?, ?)`).run(bsha, sha(now));
  } finally {
    store.close();
  }
  const again = ProposalStore.open(root, env);
  try {
    const p = again.require('p-1');
    assert.equal(p.changes[1]!.old_text, Buffer.from([0xff, 0xfe, 0x41, 0x80]).toString('utf8'), 'read as before');
    assert.deepEqual(new Map(again.knownTextKeys()), new Map([old, now].map((x) => [x, textKey(x)])));
  } finally {
    again.close();
  }
});

/** Issue 20 §8: short texts are deflated with a window fitted to their size; every size reads back exactly. */
test('proposal store: texts of every size up to the raw bound round-trip exactly', () => {
  const { root, home } = tempVault();
  const env = { VAULTGATE_HOME: home };
  const texts = [0, 1, 200, 511, 512, 513, 4096, 40_000, RAW_ABOVE_BYTES - 1].map((n, i) => Array.from({ length: n }, (_, k) => ['a', 'b', '’', '🎉', '\n'][(k * 7 + i) % 5]).join(''));
  const store = ProposalStore.open(root, env);
  try {
    texts.forEach((t, i) =>
      store.insert(
        { title: `T${i}`, summary: null, agent: null, session: null, scenario: null, allow_shrink: false, allow_relink: false, allow_broken_links: false, origin: 'propose', rollback_of: null, changes: [{ path: `n${i}.md`, action: 'write', to: null, base_sha256: null, old_text: null, new_text: t, new_sha256: sha(t) }] },
        'a',
      ),
    );
  } finally {
    store.close();
  }
  const again = ProposalStore.open(root, env);
  try {
    texts.forEach((t, i) => assert.equal(again.require(`p-${i + 1}`).changes[0]!.new_text, t));
  } finally {
    again.close();
  }
});
