/**
 * The vector store's version 3 → 4 upgrade (vector-store.ts): a provider's
 * vectors survive it (embedding them again may cost hours), their sections'
 * JSON moving to `note_sections` and their lengths to `section_len`; LSA's
 * rows are dropped, to be retrained.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { loadNoteVectors, loadSectionRefs, openVectorStore, vectorStoreFile, VECTOR_SCHEMA_VERSION } from '../../../../src/wing/similar/index.js';
import { tempVault } from '../../../helpers/temp-vault.js';

const V3_SCHEMA = `
CREATE TABLE meta (key TEXT PRIMARY KEY, value TEXT NOT NULL) STRICT;
CREATE TABLE models (provider TEXT NOT NULL, model TEXT NOT NULL, dims INTEGER NOT NULL, created_at TEXT NOT NULL,
  trained_notes INTEGER NOT NULL, folded_notes INTEGER NOT NULL DEFAULT 0, body BLOB, PRIMARY KEY (provider, model)) STRICT;
CREATE TABLE vectors (provider TEXT NOT NULL, model TEXT NOT NULL, hash TEXT NOT NULL, dense BLOB NOT NULL, sparse BLOB,
  PRIMARY KEY (provider, model, hash)) STRICT, WITHOUT ROWID;
CREATE TABLE notes (provider TEXT NOT NULL, model TEXT NOT NULL, path TEXT NOT NULL, sha256 TEXT NOT NULL, sections TEXT NOT NULL,
  dense BLOB NOT NULL, sparse BLOB, section_dense BLOB NOT NULL, PRIMARY KEY (provider, model, path)) STRICT, WITHOUT ROWID;
`;

const f32 = (xs: number[]) => Buffer.from(Float32Array.from(xs).buffer);

test('vector store: a version-3 file is upgraded in place — provider vectors kept, LSA dropped', () => {
  const { root, home } = tempVault({ 'a.md': '# A\n' });
  const env = { VAULTGATE_HOME: home };
  const file = vectorStoreFile(root, env);
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const old = new Database(file);
  old.exec(V3_SCHEMA);
  old.pragma(`application_id = ${0x56475643}`);
  old.pragma('user_version = 3');
  const sections = [
    { heading_path: ['A'], lines: [1, 3], hash: 'h1', len: 4 },
    { heading_path: ['A', 'Empty'], lines: [4, 4], hash: 'h2', len: 0 },
  ];
  old.prepare('INSERT INTO models VALUES (?, ?, ?, ?, ?, ?, ?)').run('local', 'toy', 2, 'then', 1, 0, null);
  old.prepare('INSERT INTO models VALUES (?, ?, ?, ?, ?, ?, ?)').run('lsa', 'lsa-2-x', 2, 'then', 1, 0, Buffer.from([0, 0, 0, 0]));
  old.prepare('INSERT INTO vectors VALUES (?, ?, ?, ?, NULL)').run('local', 'toy', 'h1', f32([3, 4]));
  old.prepare('INSERT INTO vectors VALUES (?, ?, ?, ?, NULL)').run('lsa', 'lsa-2-x', 'h9', f32([1, 0]));
  old.prepare('INSERT INTO notes VALUES (?, ?, ?, ?, ?, ?, NULL, ?)').run('local', 'toy', 'a.md', 'sha', JSON.stringify(sections), f32([0.6, 0.8]), f32([0.6, 0.8, 0, 0]));
  old.prepare('INSERT INTO notes VALUES (?, ?, ?, ?, ?, ?, NULL, ?)').run('lsa', 'lsa-2-x', 'a.md', 'sha', JSON.stringify(sections), f32([1, 0]), f32([1, 0, 0, 0]));
  old.prepare("INSERT INTO meta VALUES ('lsa_model', 'lsa-2-x')").run();
  old.close();

  const store = openVectorStore(root, env);
  try {
    assert.equal(store.pragma('user_version', { simple: true }), VECTOR_SCHEMA_VERSION);
    const kept = loadNoteVectors(store, 'local', 'toy').get('a.md')!;
    assert.deepEqual([...kept.dense], [Math.fround(0.6), Math.fround(0.8)]);
    assert.deepEqual(
      kept.sections.map((s) => [s.len, [...s.dense]]),
      [
        [4, [Math.fround(0.6), Math.fround(0.8)]],
        [0, []],
      ],
    );
    assert.deepEqual(loadSectionRefs(store, 'local', 'toy', ['a.md']).get('a.md'), sections.map(({ heading_path, lines }) => ({ heading_path, lines })));
    assert.equal(store.prepare("SELECT count(*) FROM vectors WHERE provider = 'local'").pluck().get(), 1, 'provider section vectors kept');
    assert.deepEqual(
      ['notes', 'vectors', 'models'].map((t) => store.prepare(`SELECT count(*) FROM ${t} WHERE provider = 'lsa'`).pluck().get()),
      [0, 0, 0],
      'LSA is retrained, not upgraded',
    );
    assert.equal(store.prepare("SELECT count(*) FROM meta WHERE key = 'lsa_model'").pluck().get(), 0);
  } finally {
    store.close();
  }
  // Opened again: nothing left to do.
  openVectorStore(root, env).close();
});
