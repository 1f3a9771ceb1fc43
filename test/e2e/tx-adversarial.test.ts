import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { runCli } from '../helpers/run-cli.js';
import { snapshotTree, tempVault } from '../helpers/temp-vault.js';
import { sha } from '../unit/txn/txn-helpers.js';

/**
 * Adversarial input (issue #3 §5): generated malformed bundles, each malformed by
 * construction, are refused with exit 2 or 77 by both inspect and apply; never
 * exit 1 (a bug), never a write. Runs in-process through runCli for speed.
 */
const base = () => ({
  schema: 'vaultgate.transaction.v1',
  operation_id: 'op-adv',
  operation_type: 'generic',
  writes: [
    { path: 'a.md', mode: 'replace', content: 'A2' },
    { path: 'new/b.md', mode: 'create', content: 'B' },
    { path: 'c.md', mode: 'move', to: 'd/c.md' },
  ] as Array<Record<string, unknown>>,
  expected_hashes: { 'a.md': sha('A'), 'new/b.md': null, 'c.md': sha('C'), 'd/c.md': null } as Record<string, unknown>,
  read_preconditions: { 'keep.md': sha('K') } as Record<string, unknown>,
});

const evilPath = fc.oneof(
  fc.constantFrom('..', '../x.md', 'a/../b.md', '/abs.md', 'C:/x.md', 'c:x.md', 'a\\b.md', 'x\u0000.md', 'con', 'NUL.md', 'com1.txt', 'a:b.md',
    'a*b.md', 'q?.md', 'p|.md', 'trail.', 'trail ', 'dir./x.md', '.obsidian/x.json', '.git/HEAD', '.trash/x.md', '.vaultgate/vault-id',
    '.VAULTGATE/x', '', 'a//b.md', './a.md', 'a/', 'x'.repeat(234), 'é'.repeat(120), ('d'.repeat(250) + '/').repeat(5) + 'x.md', '.x.md.vg-0000abcd-0001.tmp'),
  fc.tuple(fc.constantFrom('ok/', 'deep/er/', ''), fc.constantFrom('..', 'con', 'x\u0001', 'a<b', 'tab\t', 'aux.md', ' .', '\\')).map(([a, b]) => a + b),
);
const wrongType = fc.oneof(fc.integer(), fc.boolean(), fc.constant(null), fc.array(fc.integer(), { maxLength: 2 }), fc.dictionary(fc.string({ maxLength: 3 }), fc.integer(), { maxKeys: 2 }));
const badHash = fc.oneof(fc.constant('A'.repeat(64)), fc.constant('0'.repeat(63)), fc.constant('g'.repeat(64)), fc.string({ maxLength: 70 }).filter((s) => !/^[0-9a-f]{64}$/.test(s)));
const KNOWN_TOP = ['schema', 'operation_id', 'operation_type', 'writes', 'expected_hashes', 'read_preconditions'];
const KNOWN_WRITE = ['path', 'mode', 'content', 'content_file', 'sha256', 'to'];

type Mut = (b: ReturnType<typeof base>) => string;
const mutation: fc.Arbitrary<{ kind: string; text: string }> = fc.oneof(
  fc.nat().map((n) => {
    const t = JSON.stringify(base());
    return { kind: 'truncate', text: t.slice(0, n % t.length) };
  }),
  fc.constantFrom<[string, Mut]>(
    ['dup-top', (b) => JSON.stringify(b).replace('{', '{"operation_id":"other",')],
    ['dup-write', (b) => JSON.stringify(b).replace('{"path":"a.md"', '{"path":"z.md","path":"a.md"')],
    ['dup-hash', (b) => JSON.stringify(b).replace('"expected_hashes":{', `"expected_hashes":{"a.md":"${sha('A')}",`)],
  ).map(([kind, f]) => ({ kind, text: f(base()) })),
  fc.tuple(fc.constantFrom('1e999', '-1e999', 'NaN', 'Infinity', '-Infinity', '1e400', '0x10', '01', '+1', '.5'), fc.constantFrom('schema', 'operation_id', 'content', 'to')).map(([num, field]) => ({
    kind: 'number',
    text: JSON.stringify(base()).replace(new RegExp(`"${field}":"[^"]*"`), `"${field}":${num}`),
  })),
  fc.tuple(fc.integer({ min: 0xd800, max: 0xdfff }), fc.string({ maxLength: 4 })).map(([unit, tail]) => ({
    kind: 'lone-surrogate',
    text: JSON.stringify(base()).replace('"content":"A2"', `"content":"x\\u${unit.toString(16)}${JSON.stringify(tail).slice(1, -1).replace(/\\u[dD][c-fC-F]/g, 'u')}"`),
  })),
  fc.tuple(fc.string({ minLength: 1, maxLength: 8 }), fc.jsonValue({ maxDepth: 2 }), fc.boolean()).filter(([k, , top]) => !(top ? KNOWN_TOP : KNOWN_WRITE).includes(k)).map(([key, value, top]) => {
    const b = base();
    if (top) (b as Record<string, unknown>)[key] = value;
    else b.writes[0]![key] = value;
    return { kind: 'unknown-field', text: JSON.stringify(b) };
  }),
  fc.tuple(evilPath, fc.nat(2), fc.boolean()).map(([p, n, asTo]) => {
    const b = base();
    const w = b.writes[n]!;
    const old = (asTo && w.to ? w.to : w.path) as string;
    if (asTo && w.to) w.to = p;
    else w.path = p;
    b.expected_hashes = Object.fromEntries(Object.entries(b.expected_hashes).map(([k, v]) => [k === old ? p : k, v]));
    return { kind: 'evil-path', text: JSON.stringify(b) };
  }),
  fc.tuple(wrongType, fc.constantFrom('schema', 'operation_id', 'operation_type', 'writes', 'expected_hashes', 'read_preconditions', 'w.path', 'w.mode', 'w.content', 'w.to')).map(([v, field]) => {
    const b = base() as Record<string, unknown> & ReturnType<typeof base>;
    if (field.startsWith('w.')) (b.writes[field === 'w.to' ? 2 : 0] as Record<string, unknown>)[field.slice(2)] = v;
    else (b as Record<string, unknown>)[field] = field === 'writes' && Array.isArray(v) ? v.map(() => 1) : v;
    return { kind: 'wrong-type', text: JSON.stringify(b) };
  }),
  fc.tuple(badHash, fc.constantFrom('a.md', 'c.md', 'keep.md')).map(([h, p]) => {
    const b = base();
    if (p === 'keep.md') b.read_preconditions[p] = h;
    else b.expected_hashes[p] = h;
    return { kind: 'bad-hash', text: JSON.stringify(b) };
  }),
  fc.constantFrom<[string, Mut]>(
    ['missing-expected', (b) => (delete b.expected_hashes['new/b.md'], JSON.stringify(b))],
    ['extra-expected', (b) => ((b.expected_hashes['zzz.md'] = null), JSON.stringify(b))],
    ['null-for-existing', (b) => ((b.expected_hashes['a.md'] = null), JSON.stringify(b))],
    ['case-collision', (b) => (b.writes.push({ path: 'A.MD', mode: 'create', content: 'x' }), (b.expected_hashes['A.MD'] = null), JSON.stringify(b))],
    ['file-and-folder', (b) => (b.writes.push({ path: 'new', mode: 'create', content: 'x' }), (b.expected_hashes['new'] = null), JSON.stringify(b))],
    ['unknown-type', (b) => ((b.operation_type = 'admin'), JSON.stringify(b))],
    ['out-of-scope', (b) => ((b.operation_type = 'attachment'), JSON.stringify(b))],
    ['capture-scope', (b) => ((b.operation_type = 'capture'), JSON.stringify(b))],
    ['no-writes', (b) => ((b.writes = []), (b.expected_hashes = {}), JSON.stringify(b))],
    ['bom', (b) => '\ufeff' + JSON.stringify(b)],
    ['trailing', (b) => JSON.stringify(b) + ',{}'],
    ['empty', () => ''],
    ['bare-value', () => '"vaultgate.transaction.v1"'],
  ).map(([kind, f]) => ({ kind, text: f(base()) })),
);

test('≥500 generated malformed bundles: inspect and apply exit 2 or 77, never 1, never a write', async (t) => {
  const { root, home } = tempVault({ 'a.md': 'A', 'c.md': 'C', 'keep.md': 'K' });
  assert.equal((await runCli(['init'], { vault: root, home })).exitCode, 0);
  const before = snapshotTree(root, { includeHidden: true });
  const file = path.join(path.dirname(root), 'adv.json');
  const kinds: Record<string, number> = {};
  let runs = 0;
  await fc.assert(
    fc.asyncProperty(mutation, async ({ kind, text }) => {
      fs.writeFileSync(file, text);
      const i = await runCli(['tx', 'inspect', file], { vault: root, home });
      const a = await runCli(['tx', 'apply', file, '--approval', 'ab'.repeat(32)], { vault: root, home });
      for (const r of [i, a]) {
        assert.ok(r.exitCode === 2 || r.exitCode === 77, `${kind}: exit ${r.exitCode} for ${JSON.stringify(text).slice(0, 300)}\n${r.stdout}${r.stderr}`);
        assert.equal(r.json?.ok, false);
      }
      kinds[kind] = (kinds[kind] ?? 0) + 1;
      runs++;
    }),
    { numRuns: 600, seed: 20261202 },
  );
  assert.deepEqual(snapshotTree(root, { includeHidden: true }), before, 'no malformed bundle wrote anything');
  t.diagnostic(`${runs} malformed bundles, ${runs * 2} CLI runs; by kind: ${JSON.stringify(kinds)}`);
  assert.ok(runs >= 500);
});
