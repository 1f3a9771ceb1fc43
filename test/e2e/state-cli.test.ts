import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { storeFile } from '../../src/store/index.js';
import { runCliProcess } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

/** Working state through the real CLI (issue 8 §5), including real concurrent processes. */

test('state: get, patch from stdin and from a file, stale revisions refused, list, delete', async () => {
  const { root, home } = tempVault({ 'a.md': '# A\n' });
  const cli = (args: string[], input?: string) => runCliProcess(args, { vault: root, home, ...(input !== undefined ? { input } : {}) });
  assert.deepEqual((await cli(['state', 'get', 'review'])).json, { ok: true, session: 'review', revision: 0, state: {} });
  const a = await cli(['state', 'patch', 'review', '--revision', '0'], '{"step": 1, "seen": ["a.md"]}\n');
  assert.equal(a.exitCode, 0, a.stdout + a.stderr);
  assert.deepEqual(a.json.state, { step: 1, seen: ['a.md'] });
  const file = path.join(path.dirname(root), 'patch.json');
  fs.writeFileSync(file, '{"step": 2, "seen": null, "note": {"x": 1}}');
  const b = await cli(['state', 'patch', 'review', '--revision', String(a.json.revision), '--patch-file', file]);
  assert.deepEqual(b.json.state, { step: 2, note: { x: 1 } });
  const stale = await cli(['state', 'patch', 'review', '--revision', String(a.json.revision)], '{"step": 3}');
  assert.equal(stale.exitCode, 75);
  assert.deepEqual(stale.json.error.details, { session: 'review', expected: a.json.revision, actual: b.json.revision });
  assert.deepEqual((await cli(['state', 'get', 'review'])).json.state, { step: 2, note: { x: 1 } }, 'nothing changed');
  const dup = await cli(['state', 'patch', 'review', '--revision', String(b.json.revision)], '{"step": 3, "step": 4}');
  assert.deepEqual([dup.exitCode, dup.json.error.code], [2, 'STATE_PATCH_INVALID']);
  const list = await cli(['state', 'list']);
  assert.deepEqual(list.json.sessions.map((s: any) => [s.session, s.revision]), [['review', b.json.revision]]);
  assert.equal((await cli(['state', 'delete', 'review', '--revision', String(a.json.revision)])).exitCode, 75);
  const del = await cli(['state', 'delete', 'review', '--revision', String(b.json.revision)]);
  assert.deepEqual(del.json, { ok: true, session: 'review', deleted: true, revision: 0 });
  assert.equal((await cli(['state', 'list'])).json.total, 0);
  assert.deepEqual([(await cli(['state', 'get', 'a b'])).exitCode, (await cli(['state', 'patch', 's', '--revision', '-1'], '{}')).exitCode], [2, 2]);
});

test('state: 6 processes patching with the same revision — exactly one wins, the others exit 75 and change nothing', async () => {
  const { root, home } = tempVault({ 'a.md': '# A\n' });
  const base = await runCliProcess(['state', 'patch', 'race', '--revision', '0'], { vault: root, home, input: '{"start": true}' });
  const rev = String(base.json.revision);
  const results = await Promise.all(
    Array.from({ length: 6 }, (_, i) => runCliProcess(['state', 'patch', 'race', '--revision', rev], { vault: root, home, input: JSON.stringify({ winner: i, [`by${i}`]: true }) })),
  );
  const codes = results.map((r) => r.exitCode);
  assert.equal(codes.filter((c) => c === 0).length, 1, JSON.stringify(results.map((r) => r.stdout + r.stderr)));
  assert.equal(codes.filter((c) => c === 75).length, 5, JSON.stringify(codes));
  for (const r of results) if (r.exitCode === 75) assert.equal(r.json.error.code, 'STATE_STALE');
  const winner = codes.indexOf(0);
  const final = await runCliProcess(['state', 'get', 'race'], { vault: root, home });
  assert.deepEqual(final.json.state, { start: true, winner, [`by${winner}`]: true }, 'only the winner’s patch landed');
  assert.equal(final.json.revision, results[winner]!.json.revision);
  // and a second round from the new revision works the same way
  const again = await Promise.all(Array.from({ length: 3 }, (_, i) => runCliProcess(['state', 'patch', 'race', '--revision', String(final.json.revision)], { vault: root, home, input: `{"round2": ${i}}` })));
  assert.deepEqual(again.map((r) => r.exitCode).sort(), [0, 75, 75]);
});

test('state: 6 processes creating one session in a vault with no state store yet — exactly one wins', async () => {
  const { root, home } = tempVault({ 'a.md': '# A\n' });
  const results = await Promise.all(
    Array.from({ length: 6 }, (_, i) => runCliProcess(['state', 'patch', 'fresh', '--revision', '0'], { vault: root, home, input: `{"by": ${i}}` })),
  );
  const codes = results.map((r) => r.exitCode);
  assert.deepEqual([...codes].sort(), [0, 75, 75, 75, 75, 75], JSON.stringify(results.map((r) => r.stdout + r.stderr)));
  const final = await runCliProcess(['state', 'get', 'fresh'], { vault: root, home });
  assert.deepEqual(final.json.state, { by: codes.indexOf(0) });
});

test('state: a corrupt state.sqlite is exit 3 for every verb, and the file is left untouched', async () => {
  const { root, home } = tempVault({ 'a.md': '# A\n' });
  assert.equal((await runCliProcess(['state', 'patch', 's', '--revision', '0'], { vault: root, home, input: '{"x": 1}' })).exitCode, 0);
  const file = storeFile(root, { VAULTGATE_HOME: home }, 'state');
  for (const side of ['-wal', '-shm']) fs.rmSync(file + side, { force: true });
  fs.writeFileSync(file, Buffer.from('SQLite format 3\u0000' + 'garbage'.repeat(200)));
  const before = fs.readFileSync(file);
  const mtime = fs.statSync(file).mtimeMs;
  for (const [args, input] of [[['state', 'get', 's']], [['state', 'patch', 's', '--revision', '1'], '{"y": 2}'], [['state', 'list']], [['state', 'delete', 's', '--revision', '1']]] as [string[], string?][]) {
    const r = await runCliProcess(args, { vault: root, home, ...(input ? { input } : {}) });
    assert.equal(r.exitCode, 3, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.equal(r.json.error.code, 'STATE_CORRUPT');
  }
  assert.deepEqual(fs.readFileSync(file), before);
  assert.equal(fs.statSync(file).mtimeMs, mtime);
  assert.deepEqual(fs.readdirSync(path.dirname(file)).sort(), ['state.sqlite'], 'no -wal or -shm was created beside it');
});
