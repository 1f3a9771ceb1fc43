import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { proposalBundle } from '../../../src/proposals/bundle.js';
import type { StoredChange } from '../../../src/proposals/index.js';
import { parseBundle } from '../../../src/txn/index.js';

const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

/**
 * Issue 20 §8: a proposal's bundle is validated as the value it is built as,
 * no longer copied through a native JSON round trip first (a copy of every
 * text in propose, review and apply). It is exactly the bundle the engine reads
 * from the same document as a file: every text, mode, hash and path.
 */
test('proposalBundle: property — the same bundle the engine parses from the document as a file', () => {
  const text = fc.string({ unit: fc.constantFrom('a', ' ', '\n', '\r', '\t', '"', '\\', '\u0000', '\u001f', '’', '🎉', '\ufeff', '\u2028'), maxLength: 40 });
  fc.assert(
    fc.property(fc.array(fc.tuple(text, text, fc.constantFrom('write', 'create', 'delete', 'move')), { minLength: 1, maxLength: 5 }), (specs) => {
      const changes: StoredChange[] = specs.map(([old, now, kind], i) => {
        const path = `n${i}.md`;
        if (kind === 'create') return { path, action: 'write', to: null, base_sha256: null, old_text: null, new_text: now, new_sha256: sha(now) };
        if (kind === 'delete') return { path, action: 'delete', to: null, base_sha256: sha(old), old_text: old, new_text: null, new_sha256: null };
        if (kind === 'move') return { path, action: 'move', to: `m/n${i}.md`, base_sha256: sha(old), old_text: old, new_text: now, new_sha256: sha(now) };
        return { path, action: 'write', to: null, base_sha256: sha(old), old_text: old, new_text: now, new_sha256: sha(now) };
      });
      const pins = { 'pinned.md': sha('pin') };
      const doc = {
        schema: 'vaultgate.transaction.v1',
        operation_id: 'op-1',
        operation_type: 'generic',
        writes: changes.flatMap((c) =>
          c.action === 'delete'
            ? [{ path: c.path, mode: 'delete' }]
            : c.action === 'move'
              ? [{ path: c.path, mode: 'delete' }, { path: c.to, mode: 'create', content: c.new_text }]
              : [{ path: c.path, mode: c.base_sha256 === null ? 'create' : 'replace', content: c.new_text }],
        ),
        expected_hashes: Object.fromEntries(changes.flatMap((c) => (c.action === 'move' ? [[c.path, c.base_sha256], [c.to, null]] : [[c.path, c.base_sha256]]))),
        read_preconditions: pins,
      };
      const fromFile = parseBundle(Buffer.from(JSON.stringify(doc), 'utf8'), { baseDir: '/' });
      assert.deepEqual(proposalBundle('op-1', changes, pins), fromFile);
    }),
    { numRuns: 200 },
  );
});
