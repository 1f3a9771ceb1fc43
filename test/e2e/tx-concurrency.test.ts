import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { inspectBundle, parseBundle, txStatus } from '../../src/txn/index.js';
import { runCliProcess } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';
import { makeBundle, vaultImage, type WriteSpec } from '../unit/txn/txn-helpers.js';

/**
 * Concurrency (issue #3 §5): 8 real processes apply bundles at once, all inspected
 * against the same starting vault. Each lands whole or exits 75; no update is lost;
 * the final vault equals applying the winners one after another. Since every bundle
 * was planned from the same state, two winners must touch disjoint paths.
 */
async function race(files: Record<string, string>, plans: WriteSpec[][]) {
  const { root, home } = tempVault(files);
  assert.equal((await runCliProcess(['init'], { vault: root, home })).exitCode, 0);
  const work = path.dirname(root);
  const jobs = plans.map((writes, i) => {
    const file = path.join(work, `b${i}.json`);
    fs.writeFileSync(file, JSON.stringify(makeBundle(root, `op${i}`, writes)));
    const approval = inspectBundle(root, parseBundle(fs.readFileSync(file), { baseDir: work })).approval_sha256;
    return { file, approval, writes };
  });
  const results = await Promise.all(jobs.map((j) => runCliProcess(['tx', 'apply', j.file, '--approval', j.approval], { vault: root, home })));
  // the serial replay: apply each winner's writes to a copy of the starting files
  const expected = tempVault(files).root;
  const winners: number[] = [];
  results.forEach((r, i) => {
    assert.ok(r.exitCode === 0 || r.exitCode === 75, `bundle ${i}: exit ${r.exitCode} ${r.stdout}${r.stderr}`);
    if (r.exitCode === 75) assert.match(r.json.error.code, /^(STALE_HASH|APPROVAL_MISMATCH|LOCK_BUSY)$/);
    if (r.exitCode !== 0) return;
    winners.push(i);
    for (const w of jobs[i]!.writes) {
      const p = path.join(expected, w.path);
      if (w.mode === 'delete') fs.rmSync(p);
      else if (w.mode === 'move') {
        fs.mkdirSync(path.dirname(path.join(expected, w.to!)), { recursive: true });
        fs.renameSync(p, path.join(expected, w.to!));
      } else {
        fs.mkdirSync(path.dirname(p), { recursive: true });
        fs.writeFileSync(p, w.content!);
      }
    }
  });
  const touched = winners.flatMap((i) => jobs[i]!.writes.flatMap((w) => (w.to ? [w.path, w.to] : [w.path])));
  assert.equal(new Set(touched).size, touched.length, 'two winners touched the same path: a lost update');
  assert.deepEqual(vaultImage(root), vaultImage(expected));
  assert.deepEqual(txStatus(root).pending, []);
  assert.equal(txStatus(root).lock, null, 'the lock is released');
  return { winners, codes: results.map((r) => r.exitCode) };
}

const files8 = () => Object.fromEntries([...Array.from({ length: 8 }, (_, i) => [`s${i}.md`, `start ${i}`]), ['shared.md', 'base']]);

test('8 processes with disjoint bundles: all land, none is refused for the lock', async () => {
  const r = await race(files8(), Array.from({ length: 8 }, (_, i) => [{ path: `s${i}.md`, mode: 'replace', content: `by ${i}` } as WriteSpec, { path: `new/c${i}.md`, mode: 'create', content: `c${i}` } as WriteSpec]));
  assert.deepEqual(r.codes, [0, 0, 0, 0, 0, 0, 0, 0]);
});

test('8 processes replacing one shared file: exactly one lands, seven exit 75', async () => {
  const r = await race(files8(), Array.from({ length: 8 }, (_, i) => [{ path: 'shared.md', mode: 'replace', content: `by ${i}` } as WriteSpec, { path: `s${i}.md`, mode: 'delete' } as WriteSpec]));
  assert.equal(r.winners.length, 1);
  assert.equal(r.codes.filter((c) => c === 75).length, 7);
});

test('8 processes with overlapping rings of create/replace/delete/move: each lands whole or exits 75, the result is a serial order', async () => {
  for (let round = 0; round < 2; round++) {
    const plans = Array.from({ length: 8 }, (_, i): WriteSpec[] => [
      { path: `s${i}.md`, mode: 'replace', content: `ring ${round} by ${i}` },
      round === 0 ? { path: `s${(i + 1) % 8}.md`, mode: 'delete' } : { path: `s${(i + 3) % 8}.md`, mode: 'move', to: `moved/${i}.md` },
      { path: `created/${i}.md`, mode: 'create', content: `${i}` },
    ]);
    const r = await race(files8(), plans);
    assert.ok(r.winners.length >= 1 && r.winners.length <= 4, `winners ${r.winners}`);
  }
});
