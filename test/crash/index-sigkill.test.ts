/**
 * A first build killed in the middle of its load. A new index is loaded in
 * rollback-journal mode and switched to WAL once loaded (src/index/db.ts
 * initialise, ensureWal), so a kill mid-load leaves pages written into the
 * file itself and a hot journal beside it. The next command must roll the
 * journal back, build again, and end with exactly the index an uninterrupted
 * build makes, in WAL mode.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { writeSyntheticVault } from '../../bench/synthetic-vault.js';
import { indexFile } from '../../src/index/index.js';
import { dumpIndex } from '../helpers/index-dump.js';
import { CLI_BIN, runCliProcess } from '../helpers/run-cli.js';
import { tempDir } from '../helpers/temp-vault.js';

/** Big enough that the load outgrows the bulk page cache (32 MB) and writes pages into the file before it commits. */
const NOTES = 5000;
/** The file past its schema-only size: the load has written pages into it. */
const SPILLED_BYTES = 4 << 20;

test('index: SIGKILL in the middle of a first build; the next run rolls the hot journal back and builds the same index, in WAL mode', async () => {
  const base = tempDir();
  const root = path.join(base, 'vault');
  writeSyntheticVault(root, { notes: NOTES, seed: 11 });
  const home = path.join(base, 'home');
  const file = indexFile(root, { VAULTGATE_HOME: home });

  const child = spawn(process.execPath, [CLI_BIN, '--vault', root, 'index'], { env: { ...process.env, VAULTGATE_HOME: home }, stdio: 'ignore' });
  const exited = new Promise<NodeJS.Signals | null>((resolve) => child.on('exit', (_code, signal) => resolve(signal)));
  let finished = false;
  void exited.then(() => (finished = true));
  const size = () => fs.statSync(file, { throwIfNoEntry: false })?.size ?? 0;
  while (!finished && !(fs.existsSync(`${file}-journal`) && size() > SPILLED_BYTES)) await sleep(20);
  child.kill('SIGKILL');
  assert.equal(await exited, 'SIGKILL', 'the build was killed, not finished');
  assert.ok(fs.existsSync(`${file}-journal`), 'the kill came in the middle of the load: a hot journal is left');
  assert.ok(size() > SPILLED_BYTES, 'pages of the load were written into the file itself');

  const r = await runCliProcess(['index'], { vault: root, home });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  assert.equal(r.json.notes, NOTES);
  assert.equal(fs.existsSync(`${file}-journal`), false, 'the journal was rolled back and is gone');

  const reference = await runCliProcess(['index'], { vault: root, home: path.join(base, 'reference-home') });
  assert.equal(reference.exitCode, 0, reference.stdout + reference.stderr);
  const recovered = new Database(file, { readonly: true });
  const clean = new Database(reference.json.file, { readonly: true });
  try {
    assert.equal(recovered.pragma('journal_mode', { simple: true }), 'wal');
    assert.equal(recovered.pragma('quick_check', { simple: true }), 'ok');
    assert.deepEqual(dumpIndex(recovered), dumpIndex(clean), 'the same rows as an uninterrupted build');
  } finally {
    recovered.close();
    clean.close();
  }
  const search = await runCliProcess(['search', 'project', 'meeting'], { vault: root, home });
  const cleanSearch = await runCliProcess(['search', 'project', 'meeting'], { vault: root, home: path.join(base, 'reference-home') });
  assert.deepEqual([search.json.total, search.json.hits], [cleanSearch.json.total, cleanSearch.json.hits]);
});
