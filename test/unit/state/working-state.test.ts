import assert from 'node:assert/strict';
import fs from 'node:fs';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import {
  MAX_STATE_BYTES,
  MAX_STATE_PATCH_BYTES,
  deleteState,
  getState,
  listStates,
  patchState,
} from '../../../src/state/index.js';
import { storeFile } from '../../../src/store/index.js';
import { tempVault } from '../../helpers/temp-vault.js';
import { errorCode as code } from '../../helpers/error-code.js';

function setup() {
  const { root, home } = tempVault({ 'a.md': 'x' });
  return { root, env: { VAULTGATE_HOME: home } };
}

test('state: a new session is revision 0 and {}, and reading it creates no store', () => {
  const { root, env } = setup();
  assert.deepEqual(getState(root, env, 'agent-1'), { session: 'agent-1', revision: 0, state: {} });
  assert.deepEqual(listStates(root, env), []);
  assert.equal(fs.existsSync(storeFile(root, env, 'state')), false);
  assert.deepEqual(deleteState(root, env, 'agent-1', 0), { session: 'agent-1', deleted: false, revision: 0 });
  assert.equal(fs.existsSync(storeFile(root, env, 'state')), false, 'a delete of nothing creates nothing');
});

test('state: patches merge (RFC 7396) against the current revision; a stale revision changes nothing', () => {
  const { root, env } = setup();
  const a = patchState(root, env, 's', 0, '{"step": 1, "seen": {"a.md": true}, "todo": ["x"]}');
  assert.deepEqual(a.state, { step: 1, seen: { 'a.md': true }, todo: ['x'] });
  assert.ok(a.revision > 0);
  const b = patchState(root, env, 's', a.revision, Buffer.from('{"step": 2, "seen": {"b.md": true}, "todo": null}\n'));
  assert.deepEqual(b.state, { step: 2, seen: { 'a.md': true, 'b.md': true } });
  assert.ok(b.revision > a.revision);
  assert.equal(code(() => patchState(root, env, 's', a.revision, '{"step": 99}')), 'STATE_STALE');
  assert.equal(code(() => patchState(root, env, 's', 0, '{"step": 99}')), 'STATE_STALE', 'revision 0 is only for a new session');
  assert.deepEqual(getState(root, env, 's'), b);
  assert.deepEqual(listStates(root, env).map((l) => [l.session, l.revision, l.bytes]), [['s', b.revision, Buffer.byteLength(JSON.stringify(b.state))]]);
});

test('state: delete is revision-checked, and a session created again never reuses a revision (no ABA)', () => {
  const { root, env } = setup();
  const a = patchState(root, env, 's', 0, '{"x": 1}');
  const b = patchState(root, env, 's', a.revision, '{"x": 2}');
  assert.equal(code(() => deleteState(root, env, 's', a.revision)), 'STATE_STALE');
  assert.deepEqual(deleteState(root, env, 's', b.revision), { session: 's', deleted: true, revision: 0 });
  assert.deepEqual(getState(root, env, 's'), { session: 's', revision: 0, state: {} });
  const again = patchState(root, env, 's', 0, '{"y": 1}');
  assert.ok(again.revision > b.revision, 'an agent still holding an old revision stays stale');
  assert.equal(code(() => patchState(root, env, 's', a.revision, '{}')), 'STATE_STALE');
});

test('state: patches are strict JSON objects; session ids and revisions are validated', () => {
  const { root, env } = setup();
  const bad: [string | Buffer, string][] = [
    ['{"a": 1, "a": 2}', 'STATE_PATCH_INVALID'],
    ['{"a": 1e999}', 'STATE_PATCH_INVALID'],
    ['{"a": "\\ud800"}', 'STATE_PATCH_INVALID'],
    ['{"a": 1,}', 'STATE_PATCH_INVALID'],
    ['', 'STATE_PATCH_INVALID'],
    ['[1, 2]', 'STATE_PATCH_INVALID'],
    ['null', 'STATE_PATCH_INVALID'],
    ['"x"', 'STATE_PATCH_INVALID'],
    [Buffer.from([0x7b, 0xff, 0x7d]), 'STATE_PATCH_INVALID'],
    ['{"a":' + '['.repeat(40) + ']'.repeat(40) + '}', 'STATE_PATCH_INVALID'],
  ];
  for (const [patch, want] of bad) assert.equal(code(() => patchState(root, env, 's', 0, patch)), want, String(patch));
  for (const id of ['', ' s', 'a/b', '../x', '-x', 'x'.repeat(129), 'ä']) assert.equal(code(() => getState(root, env, id)), 'INVALID_INPUT', id);
  assert.equal(code(() => patchState(root, env, 's', -1, '{}')), 'USAGE');
  assert.equal(code(() => patchState(root, env, 's', 1.5, '{}')), 'USAGE');
  assert.deepEqual(getState(root, env, 's'), { session: 's', revision: 0, state: {} }, 'nothing was stored');
  assert.equal(getState(root, env, 'claude@host:review-2026.12_1').revision, 0);
});

test('state: a patch or a state over its size limit is STATE_LIMIT and changes nothing', () => {
  const { root, env } = setup();
  assert.equal(code(() => patchState(root, env, 's', 0, `{"big": "${'x'.repeat(MAX_STATE_PATCH_BYTES)}"}`)), 'STATE_LIMIT');
  const half = 'y'.repeat(MAX_STATE_BYTES / 2 + 10);
  const a = patchState(root, env, 's', 0, JSON.stringify({ one: half }));
  assert.equal(code(() => patchState(root, env, 's', a.revision, JSON.stringify({ two: half }))), 'STATE_LIMIT');
  assert.ok(JSON.stringify(getState(root, env, 's')) === JSON.stringify(a), 'unchanged');
  const b = patchState(root, env, 's', a.revision, JSON.stringify({ one: null, two: half }));
  assert.deepEqual(Object.keys(b.state), ['two'], 'removing keys in the same patch keeps it under the limit');
});

test('state: a damaged or foreign state.sqlite is STATE_CORRUPT and left byte for byte as it was', () => {
  const { root, env } = setup();
  patchState(root, env, 's', 0, '{"x": 1}');
  const file = storeFile(root, env, 'state');
  fs.rmSync(file + '-wal', { force: true });
  fs.rmSync(file + '-shm', { force: true });
  fs.writeFileSync(file, 'the agent’s notes, not a database');
  const before = fs.readFileSync(file);
  assert.equal(code(() => getState(root, env, 's')), 'STATE_CORRUPT');
  assert.equal(code(() => patchState(root, env, 's', 1, '{}')), 'STATE_CORRUPT');
  assert.deepEqual(fs.readFileSync(file), before);
  fs.rmSync(file);
  const foreign = new Database(file);
  foreign.exec('CREATE TABLE sessions (x)');
  foreign.close();
  assert.equal(code(() => patchState(root, env, 's', 0, '{}')), 'STATE_CORRUPT');
});
