import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { isVaultgateError } from '../../../src/errors.js';
import { bundleFromValue, parseBundle, parseStrictJson } from '../../../src/txn/index.js';
import { tempDir } from '../../helpers/temp-vault.js';
import { sha } from './txn-helpers.js';

const base = () => ({
  schema: 'vaultgate.transaction.v1',
  operation_id: 'op-1',
  operation_type: 'generic',
  writes: [{ path: 'a.md', mode: 'create', content: 'x' }] as Array<Record<string, unknown>>,
  expected_hashes: { 'a.md': null } as Record<string, string | null>,
  read_preconditions: {} as Record<string, string>,
});

function code(fn: () => unknown): string {
  try {
    fn();
  } catch (e) {
    assert.ok(isVaultgateError(e), `untyped: ${(e as Error).stack}`);
    return e.code;
  }
  return 'OK';
}
const parse = (b: unknown, dir = process.cwd()) => parseBundle(Buffer.from(typeof b === 'string' ? b : JSON.stringify(b)), { baseDir: dir });

test('strict JSON: duplicate keys, non-finite numbers, lone surrogates and trailing commas are refused', () => {
  assert.equal(code(() => parseStrictJson('{"a":1,"a":2}')), 'BUNDLE_INVALID');
  assert.equal(code(() => parseStrictJson('{"a":1e999}')), 'BUNDLE_INVALID');
  assert.equal(code(() => parseStrictJson('{"a":-1e400}')), 'BUNDLE_INVALID');
  assert.equal(code(() => parseStrictJson('{"a":NaN}')), 'BUNDLE_INVALID');
  assert.equal(code(() => parseStrictJson('{"a":Infinity}')), 'BUNDLE_INVALID');
  assert.equal(code(() => parseStrictJson('{"a":"\\ud800"}')), 'BUNDLE_INVALID');
  assert.equal(code(() => parseStrictJson('{"a":"\\udc00x"}')), 'BUNDLE_INVALID');
  assert.equal(code(() => parseStrictJson('{"a":"\ud800"}')), 'BUNDLE_INVALID');
  assert.equal(code(() => parseStrictJson('{"a":[1,]}')), 'BUNDLE_INVALID');
  assert.equal(code(() => parseStrictJson('{"a":1} x')), 'BUNDLE_INVALID');
  assert.equal(code(() => parseStrictJson('[' .repeat(100) + ']'.repeat(100))), 'BUNDLE_INVALID');
  assert.deepEqual(parseStrictJson('{"a":"\\ud83d\\ude00","b":[1.5e3,-0,true,null],"__proto__":1}'), JSON.parse('{"a":"😀","b":[1500,-0,true,null],"__proto__":1}'));
  const p = parseStrictJson('{"__proto__":{"x":1}}') as Record<string, unknown>;
  assert.equal(Object.getPrototypeOf(p), Object.prototype, 'a __proto__ key stays an own property');
});

test('a bundle with duplicate keys is refused even though JSON.parse would accept it', () => {
  const text = JSON.stringify(base()).replace('"operation_id":"op-1"', '"operation_id":"op-1","operation_id":"op-2"');
  assert.doesNotThrow(() => JSON.parse(text));
  assert.equal(code(() => parse(text)), 'BUNDLE_INVALID');
});

test('bundle shape: unknown fields, wrong schema, bad modes, content rules', () => {
  assert.equal(code(() => parse(base())), 'OK');
  assert.equal(code(() => parse({ ...base(), extra: 1 })), 'BUNDLE_INVALID');
  assert.equal(code(() => parse({ ...base(), schema: 'vaultgate.transaction.v2' })), 'BUNDLE_INVALID');
  assert.equal(code(() => parse({ ...base(), operation_id: '../x' })), 'BUNDLE_INVALID');
  assert.equal(code(() => parse({ ...base(), writes: [] })), 'BUNDLE_INVALID');
  const w = (write: Record<string, unknown>, expected: Record<string, string | null> = { 'a.md': null }) => code(() => parse({ ...base(), writes: [write], expected_hashes: expected }));
  assert.equal(w({ path: 'a.md', mode: 'create', content: 'x', extra: true }), 'BUNDLE_INVALID');
  assert.equal(w({ path: 'a.md', mode: 'upsert', content: 'x' }), 'BUNDLE_INVALID');
  assert.equal(w({ path: 'a.md', mode: 'create' }), 'BUNDLE_INVALID');
  assert.equal(w({ path: 'a.md', mode: 'create', content: 'x', content_file: 'f' }), 'BUNDLE_INVALID');
  assert.equal(w({ path: 'a.md', mode: 'create', content: 'x', sha256: sha('y') }), 'BUNDLE_INVALID');
  assert.equal(w({ path: 'a.md', mode: 'create', content: 'x', sha256: sha('x') }), 'OK');
  assert.equal(w({ path: 'a.md', mode: 'delete', content: 'x' }, { 'a.md': sha('x') }), 'BUNDLE_INVALID');
  assert.equal(w({ path: 'a.md', mode: 'move' }, { 'a.md': sha('x') }), 'BUNDLE_INVALID');
  assert.equal(w({ path: 'a.md', mode: 'create', content: 'x', to: 'b.md' }), 'BUNDLE_INVALID');
});

test('expected_hashes: exactly one entry per written path, null only for paths that must not exist', () => {
  const h = sha('old');
  const b = (writes: unknown[], expected: Record<string, string | null>) => code(() => parse({ ...base(), writes, expected_hashes: expected }));
  assert.equal(b([{ path: 'a.md', mode: 'create', content: 'x' }], {}), 'BUNDLE_INVALID');
  assert.equal(b([{ path: 'a.md', mode: 'create', content: 'x' }], { 'a.md': null, 'b.md': null }), 'BUNDLE_INVALID');
  assert.equal(b([{ path: 'a.md', mode: 'create', content: 'x' }], { 'a.md': h }), 'BUNDLE_INVALID');
  assert.equal(b([{ path: 'a.md', mode: 'replace', content: 'x' }], { 'a.md': null }), 'BUNDLE_INVALID');
  assert.equal(b([{ path: 'a.md', mode: 'replace', content: 'x' }], { 'a.md': 'ABC' }), 'BUNDLE_INVALID');
  assert.equal(b([{ path: 'a.md', mode: 'move', to: 'b.md' }], { 'a.md': h }), 'BUNDLE_INVALID');
  assert.equal(b([{ path: 'a.md', mode: 'move', to: 'b.md' }], { 'a.md': h, 'b.md': null }), 'OK');
  assert.equal(b([{ path: 'a.md', mode: 'move', to: 'b.md' }], { 'a.md': h, 'b.md': h }), 'BUNDLE_INVALID');
  // read_preconditions may not pin a written path
  assert.equal(code(() => parse({ ...base(), read_preconditions: { 'A.md': h } })), 'BUNDLE_INVALID');
  assert.equal(code(() => parse({ ...base(), read_preconditions: { 'other.md': h } })), 'OK');
});

test('paths: relative, NFC, portable, not reserved, no collisions after case folding', () => {
  const p = (path: string) => code(() => parse({ ...base(), writes: [{ path, mode: 'create', content: 'x' }], expected_hashes: { [path]: null } }));
  assert.equal(p('../x.md'), 'PATH_OUTSIDE_VAULT');
  // Read arguments resolve `..` (toVaultRelative); a bundle keeps the exact-path rule: any `..` is refused.
  assert.equal(p('a/../x.md'), 'PATH_OUTSIDE_VAULT');
  assert.equal(p('./x.md'), 'PATH_INVALID');
  assert.equal(p('/etc/x.md'), 'PATH_OUTSIDE_VAULT');
  assert.equal(p('C:/x.md'), 'PATH_OUTSIDE_VAULT');
  assert.equal(p('a\\b.md'), 'PATH_INVALID');
  assert.equal(p('a\u0000b.md'), 'PATH_INVALID');
  assert.equal(p('a//b.md'), 'PATH_INVALID');
  assert.equal(p('a/./b.md'), 'PATH_INVALID');
  assert.equal(p('con.md'), 'PATH_INVALID');
  assert.equal(p('LPT1'), 'PATH_INVALID');
  assert.equal(p('a?.md'), 'PATH_INVALID');
  assert.equal(p('dir./x.md'), 'PATH_INVALID');
  assert.equal(p('x.md '), 'PATH_INVALID');
  assert.equal(p('.obsidian/app.json'), 'PATH_RESERVED');
  assert.equal(p('.VaultGate/x'), 'PATH_RESERVED');
  assert.equal(p('.git/config'), 'PATH_RESERVED');
  assert.equal(p('.trash/x.md'), 'PATH_RESERVED');
  assert.equal(p('.a.md.vg-0123abcd-0001.tmp'), 'BUNDLE_INVALID');
  // 255-byte components include our 22-byte temp decoration
  assert.equal(p('x'.repeat(233)), 'OK');
  assert.equal(p('x'.repeat(234)), 'BUNDLE_LIMIT');
  assert.equal(p('é'.repeat(117)), 'BUNDLE_LIMIT');
  assert.equal(p(("d".repeat(200) + "/").repeat(6) + 'x.md'), 'PATH_INVALID');
  // an NFD path is accepted and canonicalised to NFC
  const nfd = 'Cafe\u0301.md';
  const b = parse({ ...base(), writes: [{ path: nfd, mode: 'create', content: 'x' }], expected_hashes: { [nfd]: null } });
  assert.equal(b.writes[0]!.path, 'Café.md');
  const two = (a: string, c: string) =>
    code(() => parse({ ...base(), writes: [{ path: a, mode: 'create', content: 'x' }, { path: c, mode: 'create', content: 'y' }], expected_hashes: { [a]: null, [c]: null } }));
  assert.equal(two('Note.md', 'note.md'), 'BUNDLE_INVALID');
  assert.equal(two('Straße.md', 'STRASSE.md'), 'BUNDLE_INVALID');
  assert.equal(two('a', 'A/b.md'), 'BUNDLE_INVALID');
  assert.equal(two('a.md', 'b.md'), 'OK');
});

test('limits: writes, per-file and per-operation content are checked before anything is read in full', () => {
  const dir = tempDir();
  const many = Array.from({ length: 1025 }, (_, n) => ({ path: `n${n}.md`, mode: 'create', content: '' }));
  assert.equal(code(() => parse({ ...base(), writes: many, expected_hashes: Object.fromEntries(many.map((w) => [w.path, null])) })), 'BUNDLE_LIMIT');
  const ok = many.slice(0, 1024);
  assert.equal(code(() => parse({ ...base(), writes: ok, expected_hashes: Object.fromEntries(ok.map((w) => [w.path, null])) })), 'OK');
  const big = path.join(dir, 'big.bin');
  fs.writeFileSync(big, '');
  fs.truncateSync(big, 64 * 1024 * 1024 + 1); // sparse: refused from its size alone
  assert.equal(code(() => parse({ ...base(), writes: [{ path: 'a.bin', mode: 'create', content_file: 'big.bin', sha256: sha('') }], expected_hashes: { 'a.bin': null } }, dir)), 'BUNDLE_LIMIT');
  const mid = path.join(dir, 'mid.bin');
  fs.writeFileSync(mid, '');
  fs.truncateSync(mid, 48 * 1024 * 1024);
  const h = sha(fs.readFileSync(mid));
  const three = ['a', 'b', 'c'].map((n) => ({ path: `${n}.bin`, mode: 'create', content_file: 'mid.bin', sha256: h }));
  assert.equal(code(() => parse({ ...base(), writes: three, expected_hashes: { 'a.bin': null, 'b.bin': null, 'c.bin': null } }, dir)), 'BUNDLE_LIMIT');
  assert.equal(code(() => parse({ ...base(), writes: three.slice(0, 2), expected_hashes: { 'a.bin': null, 'b.bin': null } }, dir)), 'OK');
});

test('content_file is read relative to the bundle and must match its sha256', () => {
  const dir = tempDir();
  fs.writeFileSync(path.join(dir, 'img.png'), Buffer.from([0, 1, 2, 255]));
  const good = sha(Buffer.from([0, 1, 2, 255]));
  const b = parse({ ...base(), writes: [{ path: 'img.png', mode: 'create', content_file: 'img.png', sha256: good }], expected_hashes: { 'img.png': null } }, dir);
  assert.deepEqual([...(b.writes[0] as { content?: Buffer }).content!], [0, 1, 2, 255]);
  assert.equal(code(() => parse({ ...base(), writes: [{ path: 'img.png', mode: 'create', content_file: 'img.png', sha256: sha('x') }], expected_hashes: { 'img.png': null } }, dir)), 'BUNDLE_INVALID');
  assert.equal(code(() => parse({ ...base(), writes: [{ path: 'img.png', mode: 'create', content_file: 'nope.png', sha256: good }], expected_hashes: { 'img.png': null } }, dir)), 'BUNDLE_INVALID');
});

test('strict JSON agrees with JSON.parse on every well-formed document without duplicate keys (fast-check)', async () => {
  const fc = (await import('fast-check')).default;
  fc.assert(
    fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
      const text = JSON.stringify(v);
      assert.deepEqual(parseStrictJson(text), JSON.parse(text));
      const spaced = JSON.stringify(v, null, 2);
      assert.deepEqual(parseStrictJson(spaced), JSON.parse(spaced));
    }),
    { numRuns: 500, seed: 7 },
  );
});

test('the scope table is data: a policy can add a scope without touching the engine', async () => {
  const { checkScope, DEFAULT_SCOPES } = await import('../../../src/txn/index.js');
  const table = { ...DEFAULT_SCOPES, journal: { description: 'daily notes', modes: ['create', 'replace'] as const, files: 'markdown' as const, under: 'Journal' } };
  const ctx = { captures_folder: 'Inbox' };
  assert.doesNotThrow(() => checkScope('journal', [{ path: 'Journal/2026-12-02.md', mode: 'create', content: Buffer.from('x') }], ctx, table));
  assert.throws(() => checkScope('journal', [{ path: 'Other/x.md', mode: 'create', content: Buffer.from('x') }], ctx, table), /OUT_OF_SCOPE|outside Journal/);
  assert.throws(() => checkScope('journal', [{ path: 'Journal/x.md', mode: 'delete' }], ctx, table), /not allowed/);
  assert.throws(() => checkScope('journal', [{ path: 'Journal/x.md', mode: 'delete' }], ctx), /unknown operation_type/);
});

/**
 * Issue 20 §8: a bundle value built in-process (a proposal's, `built: true`) has
 * its shape checked by hand instead of loading the schema library; a value that
 * fails the hand check goes through the schema. Property: for any mutation of a
 * valid bundle value, the built path answers exactly what the schema path does
 * (the same bundle, or the same error code and message).
 */
test('bundle value: property — the hand shape check of a built value answers exactly as the schema does', () => {
  const outcome = (v: unknown, built: boolean) => {
    try {
      return { ok: bundleFromValue(structuredClone(v), { baseDir: '/', byteLength: 100, built }) };
    } catch (e) {
      assert.ok(isVaultgateError(e), `untyped: ${(e as Error).stack}`);
      return { code: e.code, message: e.message };
    }
  };
  const anyValue = fc.oneof(fc.constant(undefined), fc.constant(null), fc.string({ maxLength: 3 }), fc.integer(), fc.boolean(), fc.constant([]), fc.constant({}), fc.constant('a'.repeat(65)), fc.constant('x'.repeat(64).replace(/x/g, 'a')), fc.constant('op 1'));
  const bundleKeys = ['schema', 'operation_id', 'operation_type', 'writes', 'expected_hashes', 'read_preconditions', 'extra'];
  const writeKeys = ['path', 'mode', 'content', 'content_file', 'sha256', 'to', 'extra'];
  const mutation = fc.oneof(
    fc.tuple(fc.constant('top'), fc.constantFrom(...bundleKeys), anyValue, fc.boolean()),
    fc.tuple(fc.constant('write'), fc.constantFrom(...writeKeys), fc.oneof(anyValue, fc.constantFrom('create', 'replace', 'delete', 'move', 'b.md')), fc.boolean()),
    fc.tuple(fc.constant('count'), fc.constantFrom('none', 'many'), fc.constant(null), fc.boolean()),
  );
  fc.assert(
    fc.property(fc.array(mutation, { maxLength: 3 }), (ms) => {
      const b = base() as Record<string, unknown>;
      for (const [where, key, value, remove] of ms) {
        const first: unknown = Array.isArray(b.writes) ? b.writes[0] : undefined;
        const w = first !== null && typeof first === 'object' ? (first as Record<string, unknown>) : undefined;
        if (where === 'count') b.writes = key === 'none' ? [] : Array.from({ length: 1025 }, (_, i) => ({ path: `n${i}.md`, mode: 'create', content: '' }));
        else if (where === 'top') remove ? delete b[key] : (b[key] = value);
        else if (w) remove ? delete w[key] : (w[key] = value);
      }
      assert.deepEqual(outcome(b, true), outcome(b, false));
    }),
    { numRuns: 400 },
  );
  // the valid base itself takes the hand-checked path and gives the schema's bundle
  assert.deepEqual(outcome(base(), true), outcome(base(), false));
});
