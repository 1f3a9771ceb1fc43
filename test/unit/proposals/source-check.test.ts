import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { sourceChecks, quotesOnly, sourcePins } from '../../../src/proposals/source-check.js';
import type { StoredChange } from '../../../src/proposals/types.js';
import { tempDir } from '../../helpers/temp-vault.js';

const sha = (b: Buffer | string) => crypto.createHash('sha256').update(b).digest('hex');

function capture(source: string, bytes: Buffer): StoredChange {
  return { path: `.raw/captured/${sha(bytes)}.md`, action: 'write', to: null, base_sha256: null, old_text: null, new_text: null, new_sha256: sha(bytes), capture: { source, bytes } };
}
const note = (p: string, text: string): StoredChange => ({ path: p, action: 'write', to: null, base_sha256: null, old_text: null, new_text: text, new_sha256: sha(text) });

test('quotesOnly keeps blockquote lines (callout titles left out), blanks the rest, keeps line numbers', () => {
  const text = '---\nsource: x\n---\n# T\n\n> [!quote] Title here\n> Quoted one.\nOwn words.\n> > Nested quote.\n';
  assert.equal(quotesOnly(text), '\n\n\n\n\n\n> Quoted one.\n\n> > Nested quote.\n');
});

test('source check: quotes verbatim pass, a changed word blocks with its line, own words are never checked', () => {
  const root = tempDir();
  const bytes = Buffer.from('# S\n\nThe *first* sentence. The second [[Link|sentence]].\n');
  fs.writeFileSync(path.join(root, 'src.md'), bytes);
  const ok = sourceChecks(root, [capture('src.md', bytes), note('n.md', '# N\n\n> The first sentence.\n> The second sentence.\n\nAnything I like.\n')]);
  assert.deepEqual(ok.map((c) => [c.name, c.ok]), [['source', true]]);
  const bad = sourceChecks(root, [capture('src.md', bytes), note('n.md', '# N\n\n> The first sentence.\n\n> The 2nd sentence.\n')]);
  assert.deepEqual(bad.map((c) => [c.ok, c.severity, c.path, (c.details as any).line]), [[false, 'block', 'n.md', 5]]);
});

test('source check: the source is pinned to the captured bytes (changed or gone blocks as STALE_HASH); vault sources become read preconditions', () => {
  const root = tempDir();
  const bytes = Buffer.from('text\n');
  fs.writeFileSync(path.join(root, 'src.md'), 'other\n');
  const changed = sourceChecks(root, [capture('src.md', bytes)]);
  assert.deepEqual(changed.map((c) => [c.ok, (c.details as any).code, (c.details as any).actual]), [[false, 'STALE_HASH', sha('other\n')]]);
  const gone = sourceChecks(root, [capture('nope.md', bytes)]);
  assert.deepEqual(gone.map((c) => [c.ok, (c.details as any).actual]), [[false, null]]);
  assert.deepEqual(sourcePins([capture('inbox/a.md', bytes), capture('/abs/b.md', bytes)]), { 'inbox/a.md': sha(bytes) });
  // a proposal that also moves the source pins nothing for it (the move's base does)
  assert.deepEqual(sourcePins([capture('inbox/a.md', bytes), { path: 'inbox/a.md', action: 'move', to: 'done/a.md', base_sha256: sha(bytes), old_text: null, new_text: null, new_sha256: sha(bytes) }]), {});
});
