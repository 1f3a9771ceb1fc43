/**
 * Issue #22 §4: the engine's own state files (journal records, result records,
 * the lock owner, proposal rows read back) are read with a size bound, like
 * every other input. A result record under `.vaultgate/txn/done/` was read
 * whole, whatever its size: a planted or damaged one of gigabytes was an
 * out-of-memory crash instead of an answer. Now one over the bound (far above
 * what the engine ever writes) is STATE_CORRUPT (exit 3), naming the file and
 * what to do, and at most the bound plus one byte of it is read.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { MAX_STATE_FILE_BYTES } from '../../src/txn/index.js';
import { runCliProcess } from '../helpers/run-cli.js';
import { snapshotTree, tempVault } from '../helpers/temp-vault.js';

test('issue 22 §4: an oversized result record is STATE_CORRUPT naming the file, not read whole', async () => {
  const v = tempVault({ 'a.md': 'a\n' });
  const cli = (args: string[]) => runCliProcess(args, { vault: v.root, home: v.home });
  assert.equal((await cli(['init'])).exitCode, 0);
  // a result record that is valid in every field, padded past the bound 
  const op = 'big-record';
  const record = {
    schema: 'vaultgate.done.v1',
    operation_id: op,
    operation_type: 'generic',
    outcome: 'applied',
    bundle_sha256: 'x',
    approval_sha256: 'y',
    completed_at: new Date().toISOString(),
    changed_paths: ['a.md'],
    backup_dir: null,
    writes: [],
    created_dirs: [],
  };
  const file = path.join(v.root, '.vaultgate/txn/done', `${op}.json`);
  // valid JSON all through: the record, then whitespace past the bound
  fs.writeFileSync(file, Buffer.concat([Buffer.from(JSON.stringify(record)), Buffer.alloc(MAX_STATE_FILE_BYTES, 0x20)]));
  const bundle = path.join(path.dirname(v.root), 'b.json');
  fs.writeFileSync(
    bundle,
    JSON.stringify({
      schema: 'vaultgate.transaction.v1',
      operation_id: op,
      operation_type: 'note',
      writes: [{ path: 'a.md', mode: 'replace', content: 'b\n' }],
      expected_hashes: { 'a.md': crypto.createHash('sha256').update('a\n').digest('hex') },
    }),
  );
  const before = snapshotTree(v.root);
  const r = await cli(['tx', 'apply', bundle, '--approval', '0'.repeat(64)]);
  assert.equal(r.exitCode, 3, r.stdout + r.stderr);
  assert.equal(r.json.error.code, 'STATE_CORRUPT');
  assert.match(r.json.error.message, /\.vaultgate\/txn\/done\/big-record\.json/);
  assert.match(r.json.error.message, /over the .* bound/);
  assert.ok(r.json.error.hint.length > 0);
  assert.deepEqual(r.json.error.details, { file: `.vaultgate/txn/done/${op}.json`, limit: MAX_STATE_FILE_BYTES });
  assert.deepEqual(snapshotTree(v.root), before, 'nothing written');
});

test('issue 22 §4: a kept proposal text that would inflate past what its row states is STATE_CORRUPT, inflated no further', async () => {
  const zlib = await import('node:zlib');
  const { ProposalStore } = await import('../../src/proposals/index.js');
  const v = tempVault({});
  const store = ProposalStore.open(v.root, { VAULTGATE_HOME: v.home });
  try {
    const text = 'old\n';
    const base = crypto.createHash('sha256').update(text).digest('hex');
    const p = store.insert(
      {
        title: 't',
        summary: null,
        agent: null,
        session: null,
        scenario: null,
        allow_shrink: false,
        allow_relink: false,
        allow_broken_links: false,
        origin: 'propose',
        rollback_of: null,
        changes: [{ path: 'a.md', action: 'write', to: null, base_sha256: base, old_text: text, new_text: 'new\n', new_sha256: crypto.createHash('sha256').update('new\n').digest('hex') }],
      },
      'a',
    );
    // a damaged (or planted) row: 4 bytes claimed, 64 MiB of zeros deflated to a few KB
    store.db.exec('DROP TRIGGER texts_never_updated');
    store.db.prepare('UPDATE texts SET data = ? WHERE sha256 = ?').run(zlib.deflateRawSync(Buffer.alloc(64 * 1024 * 1024)), base);
    // a store caches the texts it wrote itself (issue 20 §8): the damage is what the next process reads
    const reader = ProposalStore.open(v.root, { VAULTGATE_HOME: v.home });
    try {
      assert.throws(() => reader.get(p.id), (e: any) => e.code === 'STATE_CORRUPT' && /does not inflate to the 4 bytes it claims/.test(e.message));
    } finally {
      reader.close();
    }
  } finally {
    store.close();
  }
});
