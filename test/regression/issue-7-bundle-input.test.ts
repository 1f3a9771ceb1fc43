import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isVaultgateError } from '../../src/errors.js';
import { applyBundle, inspectBundle, parseBundle } from '../../src/txn/index.js';
import { isReservedPath } from '../../src/vault/index.js';
import { REPO_ROOT } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';
import { sha } from '../unit/txn/txn-helpers.js';

/** Issue #7 defects 6, 9 and 10: what a bundle may say, checked key by key and byte by byte. */
const codeOf = (fn: () => unknown): string => {
  try {
    fn();
    return 'OK';
  } catch (e) {
    assert.ok(isVaultgateError(e), (e as Error).stack);
    return e.code;
  }
};
/** A bundle as text, so keys like `__proto__` stay own keys (JSON.stringify would keep them too, but object literals would not). */
const bundleText = (writes: string, expected: string, reads = '{}') =>
  `{"schema":"vaultgate.transaction.v1","operation_id":"op1","operation_type":"generic","writes":${writes},"expected_hashes":${expected},"read_preconditions":${reads}}`;

test('issue 7.6: a read precondition keyed __proto__ is kept and checked (a wrong hash is refused)', () => {
  const { root } = tempVault({ 'a.md': 'A' });
  fs.writeFileSync(path.join(root, '__proto__'), 'P'); // (an object literal cannot carry a __proto__ key)
  const text = bundleText(`[{"path":"a.md","mode":"replace","content":"A2"}]`, `{"a.md":"${sha('A')}"}`, `{"__proto__":"${sha('WRONG')}"}`);
  const b = parseBundle(Buffer.from(text), { baseDir: root });
  assert.deepEqual(Object.keys(b.read_preconditions), ['__proto__'], 'the key survived parsing');
  assert.equal(codeOf(() => inspectBundle(root, b)), 'STALE_HASH');
  const good = parseBundle(Buffer.from(text.replace(sha('WRONG'), sha('P'))), { baseDir: root });
  assert.equal(inspectBundle(root, good).read_preconditions['__proto__'], sha('P'));
});

test('issue 7.6: an extra expected_hashes.__proto__ is refused like any key no write touches', () => {
  const text = bundleText(`[{"path":"a.md","mode":"create","content":"x"}]`, `{"a.md":null,"__proto__":null}`);
  assert.equal(codeOf(() => parseBundle(Buffer.from(text), { baseDir: process.cwd() })), 'BUNDLE_INVALID');
  const obj = bundleText(`[{"path":"a.md","mode":"create","content":"x"}]`, `{"a.md":null,"__proto__":{"x":null}}`);
  assert.equal(codeOf(() => parseBundle(Buffer.from(obj), { baseDir: process.cwd() })), 'BUNDLE_INVALID');
});

test('issue 7.6: a note literally named __proto__ (and constructor, toString) can be written', async () => {
  const { root } = tempVault({ 'constructor': 'C' });
  const text = bundleText(
    `[{"path":"__proto__","mode":"create","content":"P"},{"path":"sub/__proto__.md","mode":"create","content":"Q"},{"path":"constructor","mode":"replace","content":"C2"},{"path":"toString","mode":"create","content":"T"}]`,
    `{"__proto__":null,"sub/__proto__.md":null,"constructor":"${sha('C')}","toString":null}`,
  );
  const b = parseBundle(Buffer.from(text), { baseDir: root });
  await applyBundle(root, b, inspectBundle(root, b).approval_sha256);
  assert.equal(fs.readFileSync(path.join(root, '__proto__'), 'utf8'), 'P');
  assert.equal(fs.readFileSync(path.join(root, 'sub/__proto__.md'), 'utf8'), 'Q');
  assert.equal(fs.readFileSync(path.join(root, 'constructor'), 'utf8'), 'C2');
  assert.equal(fs.readFileSync(path.join(root, 'toString'), 'utf8'), 'T');
});

test('issue 7.9: an over-long path is PATH_INVALID (1024 bytes is fine, 1025 is not); a long file name is BUNDLE_LIMIT; docs say so', () => {
  const dir = 'd'.repeat(200) + '/';
  const at = (bytes: number) => {
    // folders of 201 bytes, then a name that makes the total exactly `bytes`
    let p = '';
    while (bytes - p.length > 230) p += dir;
    return p + 'n'.repeat(bytes - p.length - 3) + '.md';
  };
  const parse = (p: string) => codeOf(() => parseBundle(Buffer.from(bundleText(`[{"path":${JSON.stringify(p)},"mode":"create","content":"x"}]`, `{${JSON.stringify(p)}:null}`)), { baseDir: process.cwd() }));
  assert.equal(Buffer.byteLength(at(1024)), 1024);
  assert.equal(parse(at(1024)), 'OK');
  assert.equal(parse(at(1025)), 'PATH_INVALID');
  assert.equal(parse('n'.repeat(230) + '.md'), 'OK', 'a 233-byte name leaves room for the 22-byte temp decoration');
  assert.equal(parse('n'.repeat(231) + '.md'), 'BUNDLE_LIMIT');
  assert.equal(parse('n'.repeat(253) + '.md'), 'PATH_INVALID', 'a component over 255 bytes is not a path at all');
  const bundleDoc = fs.readFileSync(path.join(REPO_ROOT, 'docs/bundle.md'), 'utf8');
  const errorsDoc = fs.readFileSync(path.join(REPO_ROOT, 'docs/errors.md'), 'utf8');
  const limits = bundleDoc.slice(bundleDoc.indexOf('## Limits'), bundleDoc.indexOf('## Scopes'));
  assert.doesNotMatch(limits, /^\| path \|/m, 'bundle.md lists the path length under BUNDLE_LIMIT, but the code says PATH_INVALID');
  assert.match(bundleDoc, /1025\s+bytes is `PATH_INVALID`/, 'bundle.md says an over-long path is PATH_INVALID');
  assert.doesNotMatch(errorsDoc.split('\n').find((l) => l.startsWith('| `BUNDLE_LIMIT`'))!, /path length/);
});

test('issue 7.10: reserved folders are matched with the engine case fold, so look-alikes such as .obſidian are reserved too', () => {
  for (const p of ['.obsidian/x.json', '.OBSIDIAN/x', '.obſidian/app.json', '.vaultgate/x', '.VAULTGATE/x', '.trash/x.md', '.git/HEAD', '.Git/config']) {
    assert.equal(isReservedPath(p), true, p);
  }
  for (const p of ['obsidian/x.md', '.obsidian-notes/x.md', 'notes/.obsidian/x.md']) assert.equal(isReservedPath(p), false, p);
  const text = bundleText(`[{"path":".obſidian/app.json","mode":"create","content":"{}"}]`, `{".obſidian/app.json":null}`);
  assert.equal(codeOf(() => parseBundle(Buffer.from(text), { baseDir: process.cwd() })), 'PATH_RESERVED');
});
