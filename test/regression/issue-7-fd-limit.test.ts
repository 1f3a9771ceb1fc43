import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isVaultgateError } from '../../src/errors.js';
import { applyBundle, faultyFsOps, inspectBundle, parseBundle, realFsOps, txStatus } from '../../src/txn/index.js';
import { CLI_BIN } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';
import { makeBundle, vaultImage, writeBundleFile } from '../unit/txn/txn-helpers.js';

/**
 * Issue #7 defect 8: with `ulimit -n` in the 20s–30s, apply exited 1 (INTERNAL) from
 * lazy module loading. Running out of descriptors is the environment, not a bug:
 * it is RESOURCE_LIMIT (exit 3) with a hint, and nothing is written. Below about 19
 * descriptors node itself cannot start (it aborts before any of our code runs).
 */
function underLimit(n: number, args: string[], env: Record<string, string> = {}) {
  const quoted = args.map((a) => `'${a.replace(/'/g, `'\\''`)}'`).join(' ');
  const r = spawnSync('bash', ['-c', `ulimit -n ${n} && exec '${process.execPath}' ${quoted}`], { encoding: 'utf8', env: { ...process.env, ...env }, timeout: 60_000 });
  let json: any;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { exitCode: r.status, signal: r.signal, stdout: r.stdout, stderr: r.stderr, json };
}

test('issue 7.8: few file descriptors (ulimit -n from node’s own floor to 44): success or RESOURCE_LIMIT exit 3, never exit 1, never a write', (t) => {
  // the smallest limit under which node can load a one-line script file at all
  const trivial = path.join(tempVault().root, 'trivial.mjs');
  fs.writeFileSync(trivial, 'process.exitCode = 0;\n');
  let floor = 16;
  while (floor < 40 && underLimit(floor, [trivial]).exitCode !== 0) floor++;
  t.diagnostic(`node itself needs ulimit -n ≥ ${floor} here`);
  const outcomes: string[] = [];
  // the floor and just above it (where loading our modules runs out), then wider steps up to plenty
  const limits = [...new Set([floor, floor + 2, floor + 5, floor + 9, floor + 14, 44].filter((n) => n <= 44))];
  for (const n of limits) {
    const { root, home } = tempVault({ 'a.md': 'A', 'b.md': 'B' });
    const file = writeBundleFile(path.dirname(root), makeBundle(root, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }, { path: 'c/d.md', mode: 'create', content: 'D' }]));
    const approval = inspectBundle(root, parseBundle(fs.readFileSync(file), { baseDir: root })).approval_sha256;
    const before = vaultImage(root);
    for (const args of [['tx', 'inspect', file], ['tx', 'apply', file, '--approval', approval], ...(n === floor ? [['tx', 'status']] : [])]) {
      const r = underLimit(n, [CLI_BIN, '--vault', root, ...args], { VAULTGATE_HOME: home });
      const what = `ulimit -n ${n}: ${args[1]}`;
      assert.equal(r.signal, null, `${what}: killed by ${r.signal}`);
      assert.ok(r.exitCode === 0 || r.exitCode === 3, `${what}: exit ${r.exitCode}\n${r.stdout}${r.stderr.slice(0, 1500)}`);
      if (r.exitCode === 3) {
        assert.equal(r.json?.error?.code, 'RESOURCE_LIMIT', `${what}: ${r.stdout}${r.stderr.slice(0, 500)}`);
        assert.match(r.json.error.hint, /ulimit -n/);
        if (args[1] === 'apply') assert.deepEqual(vaultImage(root), before, `${what}: refused but wrote`);
      }
      outcomes.push(`${n}:${args[1]}:${r.exitCode === 0 ? 'ok' : 'limit'}`);
    }
    assert.deepEqual(txStatus(root).pending, []);
  }
  t.diagnostic(outcomes.join(' '));
  assert.ok(outcomes.some((o) => o.endsWith('limit')), 'no run hit the limit: the test proves nothing');
  assert.ok(outcomes.some((o) => o.includes('apply:ok')), 'no apply succeeded even with 44 descriptors');
});

test('issue 7.8: EMFILE or ENFILE inside the engine is RESOURCE_LIMIT with the vault rolled back', async () => {
  for (const code of ['EMFILE', 'ENFILE']) {
    const { root } = tempVault({ 'a.md': 'A', 'b.md': 'B' });
    const bundle = parseBundle(Buffer.from(JSON.stringify(makeBundle(root, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }, { path: 'b.md', mode: 'replace', content: 'B2' }]))), { baseDir: root });
    const approval = inspectBundle(root, bundle).approval_sha256;
    const before = vaultImage(root);
    let opened = 0;
    const ops = faultyFsOps({ atStep: Number.MAX_SAFE_INTEGER, kind: 'crash' }, {
      ...realFsOps,
      openExclusive(p, mode) {
        // the temp file of the second write: one vault file already replaced
        if (p.includes('.b.md.vg-') && opened++ === 0) throw Object.assign(new Error(`${code}: too many open files`), { code });
        return realFsOps.openExclusive(p, mode);
      },
    });
    await assert.rejects(applyBundle(root, bundle, approval, { ops }), (e) => isVaultgateError(e) && e.code === 'RESOURCE_LIMIT' && e.exitCode === 3 && /ulimit -n/.test(e.hint ?? ''));
    assert.deepEqual(vaultImage(root), before);
    assert.deepEqual(txStatus(root).pending, []);
  }
});
