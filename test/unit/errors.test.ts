/**
 * The error table and its documentation stay in step: every code in EXIT_CODES
 * has a row in docs/errors.md with the same exit code, the page lists no code
 * that does not exist, and every code not marked reserved is thrown somewhere.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { EXIT_CODES, VaultgateError, exitCodeOf } from '../../src/errors.js';
import { REPO_ROOT } from '../helpers/run-cli.js';

function documentedRows(): Map<string, { exit: number; reserved: boolean }> {
  const page = fs.readFileSync(path.join(REPO_ROOT, 'docs/errors.md'), 'utf8');
  const rows = new Map<string, { exit: number; reserved: boolean }>();
  for (const m of page.matchAll(/^\| `([A-Z_0-9]+)` \| (\d+) \| ([^|]*) \|/gm)) {
    assert.ok(!rows.has(m[1]!), `${m[1]} documented twice`);
    rows.set(m[1]!, { exit: Number(m[2]), reserved: m[3]!.trim().startsWith('reserved') });
  }
  return rows;
}

function sourceText(dir: string): string {
  let out = '';
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory()) out += sourceText(p);
    else if (e.name.endsWith('.ts') && p !== path.join(REPO_ROOT, 'src/errors.ts')) out += fs.readFileSync(p, 'utf8');
  }
  return out;
}

test('errors: docs/errors.md lists every code with its exit code, and nothing else', () => {
  const rows = documentedRows();
  for (const [code, exit] of Object.entries(EXIT_CODES)) {
    assert.equal(rows.get(code)?.exit, exit, `docs/errors.md: ${code} should be listed with exit ${exit}`);
  }
  for (const code of rows.keys()) assert.ok(code in EXIT_CODES, `docs/errors.md lists ${code}, which src/errors.ts does not have`);
});

test('errors: every code not marked reserved is thrown somewhere in src/', () => {
  const src = sourceText(path.join(REPO_ROOT, 'src'));
  for (const [code, row] of documentedRows()) {
    if (row.reserved || code === 'INTERNAL') continue;
    assert.ok(src.includes(`'${code}'`), `${code} is documented as live but no source file throws it`);
  }
});

test('errors: the exit code follows from the code; anything untyped is a bug (1)', () => {
  const e = new VaultgateError('STALE_HASH', 'a.md changed', { hint: 'inspect again', path: 'a.md', details: { expected: 'x' } });
  assert.equal(exitCodeOf(e), 75);
  assert.deepEqual(e.toJSON(), { code: 'STALE_HASH', message: 'a.md changed', hint: 'inspect again', path: 'a.md', details: { expected: 'x' } });
  assert.equal(exitCodeOf(new Error('boom')), 1);
  assert.equal(exitCodeOf('not even an error'), 1);
});

test('errors: the founding systems’ names in docs/errors.md map to codes that exist (issue 22 §4)', () => {
  const page = fs.readFileSync(path.join(REPO_ROOT, 'docs/errors.md'), 'utf8');
  const section = page.slice(page.indexOf('## Coming from the founding systems'));
  const rows = [...section.matchAll(/^\| `([A-Z_0-9]+)` \| `([A-Z_0-9]+)` \|/gm)].map((m) => [m[1]!, m[2]!] as const);
  assert.ok(rows.some(([from, to]) => from === 'CASEFOLD_PATH_ALIAS' && to === 'PATH_CASE_ALIAS'));
  for (const [from, to] of rows) {
    assert.ok(to in EXIT_CODES, `${from} maps to ${to}, which src/errors.ts does not have`);
    assert.ok(!(from in EXIT_CODES), `${from} is a vaultgate code itself, not a renamed one`);
  }
});
