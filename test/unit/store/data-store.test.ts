import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { openStore, storeFile } from '../../../src/store/index.js';
import { tempVault } from '../../helpers/temp-vault.js';
import { errorCode as code } from '../../helpers/error-code.js';

const spec = { name: 'demo', applicationId: 0x76670001, migrations: ['CREATE TABLE a(x)', 'CREATE TABLE b(y)'] };

test('data store: created under the data root, migrated in order, reopened as is', () => {
  const { root, home } = tempVault({ 'a.md': 'x' });
  const env = { VAULTGATE_HOME: home };
  assert.equal(openStore(root, env, spec, { readonly: true }), null, 'a read never creates the file');
  const s = openStore(root, env, { ...spec, migrations: spec.migrations.slice(0, 1) })!;
  s.db.prepare('INSERT INTO a VALUES (1)').run();
  s.db.close();
  const t = openStore(root, env, spec)!;
  assert.equal(t.file, storeFile(root, env, 'demo'));
  assert.ok(t.file.startsWith(path.join(home, 'data')));
  assert.equal(t.db.prepare('SELECT count(*) FROM a').pluck().get(), 1, 'history kept across the upgrade');
  assert.equal(t.db.pragma('user_version', { simple: true }), 2);
  t.db.close();
});

test('data store: a foreign, newer or damaged file is STATE_CORRUPT and left untouched', () => {
  const { root, home } = tempVault({ 'a.md': 'x' });
  const env = { VAULTGATE_HOME: home };
  openStore(root, env, spec)!.db.close();
  const file = storeFile(root, env, 'demo');
  assert.equal(code(() => openStore(root, env, { ...spec, applicationId: 1 })), 'STATE_CORRUPT');
  assert.equal(code(() => openStore(root, env, { ...spec, migrations: spec.migrations.slice(0, 1) })), 'STATE_CORRUPT');
  fs.rmSync(file + '-wal', { force: true });
  fs.rmSync(file + '-shm', { force: true });
  fs.writeFileSync(file, 'this is not a database, it is somebody’s history');
  const before = fs.readFileSync(file);
  assert.equal(code(() => openStore(root, env, spec)), 'STATE_CORRUPT');
  assert.deepEqual(fs.readFileSync(file), before, 'never recreated');
});
