import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkScope, DEFAULT_SCOPES, scopeTableFor } from '../../../src/txn/scopes.js';

const ctx = {
  captures_folder: 'Inbox',
  ingest: { captured_folder: '.raw/captured' },
  operations: {
    save: { paths: ['wiki/**', 'index.md'], create_only: false, files: 'markdown' as const },
    capture: { paths: ['.raw/captured/**'], create_only: true, files: 'any' as const },
  },
};
const w = (mode: 'create' | 'replace' | 'delete', p: string) => ({ mode, path: p, content: Buffer.from('') }) as any;
const refusal = (f: () => void) => {
  try {
    f();
  } catch (e: any) {
    return [e.code, e.details?.operation_type, e.path];
  }
  return null;
};

test('scope table: configured types are added to the built-in ones and replace a built-in of the same name', () => {
  assert.equal(scopeTableFor({ captures_folder: 'Inbox' }), DEFAULT_SCOPES);
  const t = scopeTableFor(ctx);
  assert.deepEqual(Object.keys(t).sort(), ['attachment', 'capture', 'generic', 'note', 'save']);
  assert.deepEqual(t.capture!.modes, ['create']);
  assert.deepEqual(t.capture!.paths, ['.raw/captured/**']);
});

test('checkScope: globs, create-only and file kinds; every refusal names the type and the path', () => {
  assert.equal(refusal(() => checkScope('save', [w('create', 'wiki/a/b.md'), w('replace', 'index.md')], ctx)), null);
  assert.deepEqual(refusal(() => checkScope('save', [w('create', 'Wiki/a.md')], ctx)), ['OUT_OF_SCOPE', 'save', 'Wiki/a.md'], 'case-sensitive: a scope grants writes');
  assert.deepEqual(refusal(() => checkScope('save', [w('create', 'wiki/a.png')], ctx)), ['OUT_OF_SCOPE', 'save', 'wiki/a.png']);
  assert.deepEqual(refusal(() => checkScope('capture', [w('delete', '.raw/captured/x.md')], ctx)), ['OUT_OF_SCOPE', 'capture', '.raw/captured/x.md']);
  assert.equal(refusal(() => checkScope('capture', [w('create', '.raw/captured/x.pdf')], ctx)), null);
  // the built-in capture (no config) may write the captures folder and the captured folder
  const plain = { captures_folder: 'Inbox', ingest: { captured_folder: '.raw/captured' } };
  assert.equal(refusal(() => checkScope('capture', [w('create', '.raw/captured/x.md'), w('create', 'Inbox/y.md')], plain)), null);
  assert.deepEqual(refusal(() => checkScope('capture', [w('create', 'wiki/x.md')], plain)), ['OUT_OF_SCOPE', 'capture', 'wiki/x.md']);
});
