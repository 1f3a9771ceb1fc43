import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { readTargets, recordTargets, targetMet, targetsTable, type TargetRow } from '../../../bench/lib/targets.js';

const row = (value: number | null, bound: TargetRow['bound'], limit: number): TargetRow => ({ issue: '#26', what: 'x', value, unit: 'ms', bound, limit });

test('targets: a bound is met, missed, or unknown when nothing was measured', () => {
  assert.equal(targetMet(row(30, '<=', 30)), true);
  assert.equal(targetMet(row(30, '<', 30)), false);
  assert.equal(targetMet(row(6.1, '>=', 6)), true);
  assert.equal(targetMet(row(5.9, '>=', 6)), false);
  assert.equal(targetMet(row(null, '<=', 1)), null);
  assert.equal(targetMet(row(Number.NaN, '<=', 1)), null);
});

test('targets: only the files recorded during this run are read, and the table says which were met', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'vg-targets-'));
  try {
    fs.writeFileSync(path.join(dir, 'targets-old.json'), JSON.stringify({ bench: 'old', date: '2020-01-01T00:00:00.000Z', loadavg: [1], rows: [row(1, '<=', 2)] }));
    const since = new Date();
    recordTargets('index', [{ ...row(1.31, '<=', 1.3), unit: '×', what: 'search / floor' }, row(null, '<', 300)], dir);
    const got = readTargets(since, dir);
    assert.deepEqual(got.map((t) => t.bench), ['index']);
    const table = targetsTable(got);
    assert.match(table, /search \/ floor\s*\| 1\.31 ×\s*\| <= 1\.3 ×\s*\| NO/);
    assert.match(table, /n\/a .*\| \?/);
    assert.doesNotMatch(table, /old/);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
