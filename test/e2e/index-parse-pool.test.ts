import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { runCliProcess } from '../helpers/run-cli.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';

function dump(file: string) {
  const db = new Database(file, { readonly: true });
  try {
    const q = (sql: string) => db.prepare(sql).all();
    return {
      files: q('SELECT id, path, kind, sha256, title, anchors, frontmatter_error, warning FROM files ORDER BY path'),
      sections: q('SELECT s.id, f.path, s.idx, s.heading_path, s.text, s.part, s.parts FROM sections s JOIN files f ON f.id = s.file_id ORDER BY f.path, s.idx'),
      links: q('SELECT l.id, f.path, l.ord, l.raw, l.status, l.target, l.resolution FROM links l JOIN files f ON f.id = l.file_id ORDER BY f.path, l.ord'),
      fts: q(`SELECT f.path, s.idx FROM sections_fts JOIN sections s ON s.id = sections_fts.rowid JOIN files f ON f.id = s.file_id WHERE sections_fts MATCH '"token17" OR "share"' ORDER BY f.path, s.idx`),
    };
  } finally {
    db.close();
  }
}

test('parse pool: worker threads (VAULTGATE_PARSE_WORKERS=2) index exactly what the main thread does, row ids included', async () => {
  const files: Record<string, string | Buffer> = { 'bad.md': Buffer.from([0xff, 0xfe]) };
  // Attachments between the notes: rows are written in plan order either way.
  for (let i = 0; i < 40; i++) files[`d${i % 7}/img${i}.png`] = Buffer.from([i]);
  for (let i = 0; i < 320; i++) files[`d${i % 7}/n${i}.md`] = `---\ntags: [t${i % 3}]\n---\n# N${i}\nshared token${i} [[n${(i + 1) % 320}#N${(i + 1) % 320}]]\n## Sub\nmore\n`;
  const { root } = tempVault(files);
  const inline = await runCliProcess(['index'], { vault: root, home: tempDir(), env: { VAULTGATE_PARSE_WORKERS: '0' } });
  const pooled = await runCliProcess(['index'], { vault: root, home: tempDir(), env: { VAULTGATE_PARSE_WORKERS: '2' } });
  assert.equal(pooled.exitCode, 0, pooled.stdout + pooled.stderr);
  assert.deepEqual([pooled.json.notes, pooled.json.warnings.map((w: { code: string }) => w.code)], [320, ['NOT_UTF8']]);
  assert.deepEqual(dump(pooled.json.file), dump(inline.json.file));
  assert.equal(dump(pooled.json.file).fts.length, 320);
});

test('parse pool: a worker that joins partway (a spare core found after 40 notes) prepares exactly what the main thread does, in order', async () => {
  // The compiled module: a worker thread cannot start from a TypeScript source (parse-pool.ts, workerUrl).
  const pool = (await import(new URL('../../dist/index/parse-pool.js', import.meta.url).href)) as typeof import('../../src/index/parse-pool.js');
  const files: Record<string, string> = {};
  for (let i = 0; i < 300; i++) files[`d${i % 5}/n${i}.md`] = `---\naliases: [a${i}]\n---\n# N${i}\nword${i} [[n${(i + 7) % 300}]] #t${i % 4}\n`;
  const { root } = tempVault(files);
  const paths = Object.keys(files).sort();
  const run = (workers: import('../../src/index/parse-pool.js').PoolSize, probe?: { workers(left: number): number }) => {
    const out: unknown[] = [];
    pool.prepareInOrder(root, paths, (k, prepared) => out.push([k, prepared]), workers, probe);
    return out;
  };
  const asked: number[] = [];
  const joined = run('spare', { workers: (left) => (asked.push(left), asked.length > 40 ? 1 : 0) });
  assert.deepEqual(asked.slice(-2), [300 - 39, 300 - 40]);
  assert.equal(asked.length, 41);
  assert.deepEqual(joined, run(0));
});
