import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { VaultgateError } from '../../../src/errors.js';
import { openIndex } from '../../../src/index/db.js';
import { indexFile, withFreshIndex, type IndexHandle } from '../../../src/index/index.js';
import { refreshIndex } from '../../../src/index/refresh.js';
import { relinkIndex } from '../../../src/index/relink.js';
import { searchIndex } from '../../../src/retrieval/index.js';
import { spareCores } from '../../../src/index/parse-pool.js';
import { tempVault, writeFiles } from '../../helpers/temp-vault.js';

function refresh(root: string, home: string) {
  const h = openIndex(root, { VAULTGATE_HOME: home });
  try {
    return { r: refreshIndex(h), h };
  } finally {
    h.db.close();
  }
}

function withIndex<T>(root: string, home: string, fn: (h: IndexHandle) => T): T {
  return withFreshIndex(root, { VAULTGATE_HOME: home }, (h) => fn(h)).result;
}

function linkOf(root: string, home: string, from: string, raw: string) {
  return withIndex(root, home, (h) =>
    h.db
      .prepare(`SELECT l.status, l.target, l.resolution FROM links l JOIN files f ON f.id = l.file_id WHERE f.path = ? AND l.raw = ?`)
      .get(from, raw),
  ) as { status: string; target: string | null; resolution: string };
}

function bump(file: string): void {
  const t = fs.statSync(file).mtime;
  fs.utimesSync(file, t, new Date(t.getTime() + 5000));
}

test('refresh: a second run with no change writes nothing', () => {
  const { root, home } = tempVault({ 'a.md': '# A\nalpha', 'b.md': 'beta [[a]]', 'img.png': '' });
  const first = refresh(root, home).r;
  assert.deepEqual([first.refreshed, first.added, first.notes, first.files], [true, 3, 2, 3]);
  const second = refresh(root, home).r;
  assert.deepEqual([second.refreshed, second.added, second.changed, second.deleted], [false, 0, 0, 0]);
});

test('refresh: a folder tree that could not be trusted is stored by a no-change refresh, so later walks read no folder', () => {
  const { root, home } = tempVault({ 'a.md': '# A\nalpha', 'sub/b.md': 'beta' });
  // Folders written just now: the first walk cannot trust their mtimes (RACY_MS) and records them untrusted.
  refresh(root, home);
  const old = new Date(Date.now() - 60_000);
  for (const dir of [root, path.join(root, 'sub')]) fs.utimesSync(dir, old, old);
  const walks: { foldersRead: number; treeChanged: boolean }[] = [];
  const run = () => {
    const h = openIndex(root, { VAULTGATE_HOME: home });
    try {
      const r = refreshIndex(h, { onWalk: (w) => walks.push({ foldersRead: w.foldersRead, treeChanged: w.treeChanged }) });
      assert.equal(r.refreshed, false);
    } finally {
      h.db.close();
    }
  };
  run();
  run();
  assert.deepEqual(walks, [
    { foldersRead: 2, treeChanged: true },
    { foldersRead: 0, treeChanged: false },
  ]);
});

test('refresh: add, change, delete and rename are all picked up', () => {
  const { root, home } = tempVault({ 'a.md': '# A\nalpha', 'b.md': 'beta' });
  refresh(root, home);
  writeFiles(root, { 'c.md': 'gamma words' });
  assert.equal(refresh(root, home).r.added, 1);
  assert.equal(withIndex(root, home, (h) => searchIndex(h.db, 'gamma').total), 1);

  fs.writeFileSync(path.join(root, 'a.md'), '# A\ndelta now');
  bump(path.join(root, 'a.md'));
  assert.equal(refresh(root, home).r.changed, 1);
  assert.equal(withIndex(root, home, (h) => searchIndex(h.db, 'alpha').total), 0);
  assert.equal(withIndex(root, home, (h) => searchIndex(h.db, 'delta').hits[0]?.path), 'a.md');

  fs.rmSync(path.join(root, 'b.md'));
  assert.equal(refresh(root, home).r.deleted, 1);
  assert.equal(withIndex(root, home, (h) => searchIndex(h.db, 'beta').total), 0);

  fs.renameSync(path.join(root, 'c.md'), path.join(root, 'moved.md'));
  const r = refresh(root, home).r;
  assert.deepEqual([r.renamed, r.added, r.deleted], [1, 0, 0]);
  assert.equal(withIndex(root, home, (h) => searchIndex(h.db, 'gamma').hits[0]?.path), 'moved.md');
});

test('refresh: a touched file with the same bytes only updates its stat (no re-parse)', () => {
  const { root, home } = tempVault({ 'a.md': 'same' });
  refresh(root, home);
  bump(path.join(root, 'a.md'));
  const r = refresh(root, home).r;
  assert.deepEqual([r.touched, r.changed], [1, 0]);
  assert.equal(refresh(root, home).r.refreshed, false);
});

test('refresh: a change of ctime alone (chmod) re-hashes the file and only updates its stat; a same-size edit with the mtime put back is re-indexed', () => {
  const { root, home } = tempVault({ 'a.md': 'alpha one', 'b.md': 'beta' });
  refresh(root, home);
  const a = path.join(root, 'a.md');
  fs.chmodSync(a, 0o640);
  const chmod = refresh(root, home).r;
  assert.deepEqual([chmod.refreshed, chmod.touched, chmod.changed], [true, 1, 0]);
  assert.equal(refresh(root, home).r.refreshed, false, 'the new stat was stored');
  const before = fs.statSync(a);
  fs.writeFileSync(a, 'gamma one');
  fs.utimesSync(a, before.atime, before.mtime);
  const edit = refresh(root, home).r;
  assert.deepEqual([edit.touched, edit.changed], [0, 1]);
  assert.equal(withIndex(root, home, (h) => searchIndex(h.db, 'gamma').hits[0]?.path), 'a.md');
});

test('refresh: a new file with a duplicate name turns a bare link ambiguous, then resolved with candidates', () => {
  const { root, home } = tempVault({ 'src/From.md': 'see [[Note]]', 'b/Note.md': 'one' });
  refresh(root, home);
  let l = linkOf(root, home, 'src/From.md', '[[Note]]');
  assert.deepEqual([l.status, l.target, JSON.parse(l.resolution).candidates], ['resolved', 'b/Note.md', null]);

  writeFiles(root, { 'c/Note.md': 'two' }); // same length as b/Note.md: Obsidian's pick is undetermined
  assert.ok(refresh(root, home).r.relinked >= 1);
  l = linkOf(root, home, 'src/From.md', '[[Note]]');
  assert.deepEqual([l.status, l.target, JSON.parse(l.resolution).candidates], ['ambiguous', null, ['b/Note.md', 'c/Note.md']]);

  writeFiles(root, { 'Note.md': 'root' }); // the shortest path wins
  refresh(root, home);
  l = linkOf(root, home, 'src/From.md', '[[Note]]');
  assert.deepEqual([l.status, l.target, JSON.parse(l.resolution).candidates], ['resolved', 'Note.md', ['Note.md', 'b/Note.md', 'c/Note.md']]);

  fs.rmSync(path.join(root, 'Note.md'));
  fs.rmSync(path.join(root, 'c/Note.md'));
  refresh(root, home);
  l = linkOf(root, home, 'src/From.md', '[[Note]]');
  assert.deepEqual([l.status, l.target], ['resolved', 'b/Note.md']);
  fs.rmSync(path.join(root, 'b/Note.md'));
  refresh(root, home);
  assert.equal(linkOf(root, home, 'src/From.md', '[[Note]]').status, 'unresolved');
});

test('refresh: removing the heading a link names is seen by that link (subpath re-checked)', () => {
  const { root, home } = tempVault({ 'a.md': 'go [[b#Setup]]', 'b.md': '# B\n## Setup\nsteps\n' });
  refresh(root, home);
  assert.equal(JSON.parse(linkOf(root, home, 'a.md', '[[b#Setup]]').resolution).subpath.exists, true);
  fs.writeFileSync(path.join(root, 'b.md'), '# B\n## Install\nsteps\n');
  bump(path.join(root, 'b.md'));
  refresh(root, home);
  assert.equal(JSON.parse(linkOf(root, home, 'a.md', '[[b#Setup]]').resolution).subpath.exists, false);
});

test('refresh: changing index.exclude re-classifies files and links become unindexed', () => {
  const { root, home } = tempVault({ 'a.md': '[[secret]]', 'private/secret.md': 'hidden words' });
  refresh(root, home);
  assert.equal(linkOf(root, home, 'a.md', '[[secret]]').status, 'resolved');
  writeFiles(root, { '.vaultgate/config.yaml': 'index:\n  exclude: [private]\n' });
  refresh(root, home);
  assert.equal(linkOf(root, home, 'a.md', '[[secret]]').status, 'unindexed');
  assert.equal(withIndex(root, home, (h) => searchIndex(h.db, 'hidden').total), 0);
});

test('refresh: a non-UTF-8 note is reported as a warning and the rest is indexed', () => {
  const { root, home } = tempVault({ 'bad.md': Buffer.from([0x66, 0xff, 0xfe]), 'good.md': 'fine' });
  const r = refresh(root, home).r;
  assert.equal(r.notes, 1);
  assert.deepEqual(r.warnings.map((w) => [w.path, w.code]), [['bad.md', 'NOT_UTF8']]);
});

test('the index lives under VAULTGATE_HOME/cache, never inside the vault', () => {
  const { root, home } = tempVault({ 'a.md': 'x' });
  refresh(root, home);
  assert.ok(indexFile(root, { VAULTGATE_HOME: home }).startsWith(path.join(home, 'cache') + path.sep));
  assert.deepEqual(fs.readdirSync(root), ['a.md']);
});

test('a corrupt cache file is discarded and rebuilt, never trusted', () => {
  const { root, home } = tempVault({ 'a.md': 'alpha' });
  const file = indexFile(root, { VAULTGATE_HOME: home });
  refresh(root, home);
  fs.writeFileSync(file, Buffer.alloc(8192, 0x41)); // garbage: not a database
  fs.rmSync(file + '-wal', { force: true });
  fs.rmSync(file + '-shm', { force: true });
  const h = openIndex(root, { VAULTGATE_HOME: home });
  assert.equal(h.created, 'corrupt');
  h.db.close();
  assert.equal(withIndex(root, home, (x) => searchIndex(x.db, 'alpha').total), 1);
});

test('a truncated cache file is detected when read and rebuilt', () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 300; i++) files[`n${i}.md`] = `# Note ${i}\n${'word '.repeat(200)} unique${i}\n`;
  const { root, home } = tempVault(files);
  const file = indexFile(root, { VAULTGATE_HOME: home });
  refresh(root, home);
  const db = new Database(file);
  db.pragma('wal_checkpoint(TRUNCATE)');
  db.close();
  const bytes = fs.readFileSync(file);
  // Keep the header page, scribble over the rest.
  fs.writeFileSync(file, Buffer.concat([bytes.subarray(0, 4096), Buffer.alloc(bytes.length - 4096, 0x5a)]));
  assert.equal(withIndex(root, home, (x) => searchIndex(x.db, 'unique7').hits[0]?.path), 'n7.md');
});

test('a foreign SQLite file (another program, or another schema version) is rebuilt', () => {
  const { root, home } = tempVault({ 'a.md': 'alpha' });
  const file = indexFile(root, { VAULTGATE_HOME: home });
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const other = new Database(file);
  other.exec('CREATE TABLE files(x); INSERT INTO files VALUES (1);');
  other.close();
  const h = openIndex(root, { VAULTGATE_HOME: home });
  assert.equal(h.created, 'foreign');
  h.db.pragma('user_version = 999');
  h.db.close();
  const again = openIndex(root, { VAULTGATE_HOME: home });
  assert.equal(again.created, 'schema');
  again.db.close();
  assert.equal(withIndex(root, home, (x) => searchIndex(x.db, 'alpha').total), 1);
});

test('refresh: two files whose names differ only by NFC/NFD index one and warn, never crash', () => {
  const nfc = 'Café.md';
  const nfd = 'Cafe\u0301.md';
  const { root, home } = tempVault({ [nfc]: 'composed', [nfd]: 'decomposed', 'other.md': 'fine' });
  const r = refresh(root, home).r;
  assert.equal(r.notes, 2);
  assert.deepEqual(r.warnings.map((w) => [w.path, w.code]), [['Café.md', 'NFC_COLLISION']]);
  assert.equal(refresh(root, home).r.refreshed, false);
});

test('a new index is loaded with a rollback journal and is in WAL mode once loaded; an opener meanwhile leaves the mode alone', () => {
  const { root, home } = tempVault({ 'a.md': 'alpha [[b]]', 'b.md': 'beta' });
  const env = { VAULTGATE_HOME: home };
  const loader = openIndex(root, env);
  try {
    assert.equal(loader.created, 'new');
    assert.equal(loader.db.pragma('journal_mode', { simple: true }), 'delete', 'no WAL for the first load: its pages are written once');
    // Another process opening before the load: it must not ask for the exclusive lock the switch needs.
    const early = openIndex(root, env);
    assert.equal(early.db.pragma('journal_mode', { simple: true }), 'delete');
    early.db.close();
    refreshIndex(loader);
    assert.equal(loader.db.pragma('journal_mode', { simple: true }), 'wal');
  } finally {
    loader.db.close();
  }
  assert.equal(fs.existsSync(`${indexFile(root, env)}-journal`), false);
  const later = openIndex(root, env);
  assert.equal(later.db.pragma('journal_mode', { simple: true }), 'wal');
  later.db.close();
});

test('a loaded index left in rollback-journal mode (the switch found the file busy) is switched by the next open', () => {
  const { root, home } = tempVault({ 'a.md': 'alpha' });
  refresh(root, home);
  const file = indexFile(root, { VAULTGATE_HOME: home });
  const db = new Database(file);
  db.pragma('journal_mode = DELETE');
  db.close();
  const h = openIndex(root, { VAULTGATE_HOME: home });
  assert.equal(h.db.pragma('journal_mode', { simple: true }), 'wal');
  h.db.close();
});

test('a refresher that cannot get the write lock in time fails with LOCK_BUSY (exit 75), not a crash', () => {
  const { root, home } = tempVault({ 'a.md': 'alpha' });
  refresh(root, home);
  writeFiles(root, { 'b.md': 'beta' });
  const holder = new Database(indexFile(root, { VAULTGATE_HOME: home }));
  holder.exec('BEGIN IMMEDIATE');
  try {
    assert.throws(
      () => withFreshIndex(root, { VAULTGATE_HOME: home }, () => null, { busyTimeoutMs: 50 }),
      (e: unknown) => e instanceof VaultgateError && e.code === 'LOCK_BUSY' && e.exitCode === 75,
    );
  } finally {
    holder.exec('ROLLBACK');
    holder.close();
  }
  assert.equal(withIndex(root, home, (h) => searchIndex(h.db, 'beta').total), 1);
});

test('refresh: after a run of small changes, every link resolves exactly as a rebuild from scratch resolves it', () => {
  const { root, home } = tempVault();
  fs.cpSync(path.join(import.meta.dirname, '../../../examples/demo-vault'), root, { recursive: true });
  const links = (h: IndexHandle) =>
    h.db
      .prepare(`SELECT f.path, l.ord, l.status, l.target, l.resolution FROM links l JOIN files f ON f.id = l.file_id ORDER BY f.path, l.ord`)
      .all();
  refresh(root, home);
  // Each step is a small refresh (few names): relinking reads only the files sharing the links' names.
  const steps: (() => void)[] = [
    () => writeFiles(root, { 'Elsewhere/Rules.md': '# Other rules\n' }), // a third file named Rules
    // Anchor text: a new note describing others, then edited, then its target renamed.
    () => writeFiles(root, { 'Linker.md': 'See [[Games/Catan/Rules#The robber on a 7|what a seven does]] and [[Home|the start page]] and [[Sourdough|bread]].\n' }),
    () => writeFiles(root, { 'Linker.md': 'See [[Games/Catan/Rules#Setup|board setup]] and [[Sourdough|levain bread]].\n' }),
    () => fs.renameSync(path.join(root, 'Wiki/Cooking/Sourdough.md'), path.join(root, 'Wiki/Cooking/Levain.md')),
    () => writeFiles(root, { 'Wiki/Cooking/Sourdough.md': '---\ndescription: bread that rises with wild yeast\n---\n# Sourdough again\nFlour and water.\n' }),
    () => writeFiles(root, { 'Self.md': '# Top\n## Sub\nsee [[#Sub]] and [[#Gone]] and [[Home]]\n' }), // self-links
    () => fs.renameSync(path.join(root, 'Games/Chess/Rules.md'), path.join(root, 'Games/Chess/Laws.md')),
    () => writeFiles(root, { 'Self.md': '# Top\n## Gone\nsee [[#Sub]] and [[#Gone]]\n' }), // headings change under self-links
    () => fs.rmSync(path.join(root, 'Elsewhere/Rules.md')),
  ];
  for (const step of steps) {
    step();
    assert.equal(refresh(root, home).r.refreshed, true);
  }
  const incremental = withIndex(root, home, links);
  const incrementalFts = withIndex(root, home, ftsContent);
  const rebuilt = withFreshIndex(root, { VAULTGATE_HOME: home }, links, { rebuild: true }).result;
  const rebuiltFts = withIndex(root, home, ftsContent);
  assert.ok(incremental.length > 50);
  assert.deepEqual(incremental, rebuilt);
  // Every token of every FTS table, placed by note path and section index rather than
  // by row id (ids depend on the order notes were indexed in): anchor text included.
  assert.ok(incrementalFts.anchors_fts!.some((r) => r.includes('seven')) === false, 'the edited link no longer describes the robber');
  assert.ok(incrementalFts.anchors_fts!.some((r) => r.includes('levain')), JSON.stringify(incrementalFts.anchors_fts));
  assert.ok(incrementalFts.anchors_fts!.some((r) => r.includes('wild')), 'frontmatter values are anchor text of their note');
  assert.deepEqual(incrementalFts, rebuiltFts);
});

/** The content of the FTS tables as (note path, section index or 'note', column, offset, token) rows, sorted. */
function ftsContent(h: IndexHandle): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  const place = h.db.prepare(`SELECT path FROM files WHERE id = ?`).pluck();
  for (const table of ['sections_fts', 'anchors_fts', 'bigrams_fts']) {
    h.db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.v_${table} USING fts5vocab(main, ${table}, instance)`);
    const rows = h.db.prepare(`SELECT term, doc, col, offset FROM temp.v_${table}`).all() as { term: string; doc: number; col: string; offset: number }[];
    out[table] = rows
      .map((r) => {
        const idx = r.doc % 2 ** 20;
        return `${place.get(Math.floor(r.doc / 2 ** 20))}#${idx === 2 ** 20 - 1 ? 'note' : idx} ${r.col}@${r.offset} ${r.term}`;
      })
      .sort();
  }
  return out;
}

test('refresh: a relink of many pages resolves every link exactly as against the whole file list', async () => {
  const { resolveLink } = await import('../../../src/links/index.js');
  const { anchorLookupFromDb, fileIndexFromDb } = await import('../../../src/index/index.js');
  // 240 notes of 24 links each: more than one page of the relink (5000 links), with
  // names shared across folders (ambiguous, own-folder and shortest-path picks),
  // case collisions, relative, absolute and self links, headings and attachments.
  const files: Record<string, string> = {};
  const folders = ['Alpha', 'Beta', 'Beta/Deep', 'Gamma', 'gamma'];
  for (let i = 0; i < 240; i++) {
    const folder = folders[Math.floor(i / 48)]!; // each folder holds Note 0..47: every name in five places
    const links = [];
    for (let k = 0; k < 6; k++) {
      const j = (i * 7 + k * 13) % 60;
      links.push(`[[Note ${j}]]`, `[[note ${j}#Part ${k % 3}]]`, `[[../Beta/Note ${j}|b]]`, `[[/Gamma/Note ${j % 10}.md]]`);
    }
    files[`${folder}/Note ${i % 48}.md`] = `# Part 0\n## Part 1\n${links.join(' ')} [[#Part 1]] [[pic ${i % 4}.png]]\n## Part 2\n`;
  }
  // Notes no other link names: their self-links need their own file in the page's index.
  for (let i = 0; i < 30; i++) files[`Zeta/Solo ${i}.md`] = `# Top\n## Under\nsee [[#Under]] and [[#Nowhere]]\n`;
  files['Alpha/pic 1.png'] = '';
  files['Beta/pic 1.png'] = '';
  files['pic 2.png'] = '';
  const { root, home } = tempVault(files);
  refresh(root, home);
  withIndex(root, home, (h) => {
    const rows = h.db
      .prepare(`SELECT l.kind, l.path, l.subpath, f.path AS from_path, l.resolution FROM links l JOIN files f ON f.id = l.file_id WHERE l.external = 0`)
      .all() as { kind: 'wikilink'; path: string; subpath: string | null; from_path: string; resolution: string }[];
    assert.ok(rows.length > 5000, `${rows.length} links`);
    const whole = fileIndexFromDb(h.db);
    const anchors = anchorLookupFromDb(h.db);
    let ambiguous = 0;
    for (const r of rows) {
      const want = resolveLink(whole, { kind: r.kind, path: r.path, subpath: r.subpath }, r.from_path, anchors);
      if (want.status === 'ambiguous') ambiguous++;
      assert.equal(r.resolution, JSON.stringify(want), `${r.from_path}: ${r.path}`);
    }
    assert.ok(ambiguous > 0, 'some links are ambiguous');
  });
});

test('spareCores: idle time between two cpu samples, plus this process beyond its main thread, in cores', () => {
  // Two cores, 1000 ms each: one idle throughout, one busy with this process's main thread.
  assert.equal(spareCores({ idle: 500, total: 4000, own: 0 }, { idle: 1500, total: 6000, own: 1000 }, 2), 1);
  // Another process took 90% of the second core.
  assert.equal(spareCores({ idle: 500, total: 4000, own: 0 }, { idle: 600, total: 6000, own: 1000 }, 2), 0.1);
  // This process's own helper threads (V8's compiler and GC) took 60% of the second core: still spare for a worker.
  assert.equal(spareCores({ idle: 500, total: 4000, own: 0 }, { idle: 900, total: 6000, own: 1600 }, 2), 1);
  // Another process spinning, and ours sharing what is left with its helpers: not spare.
  assert.ok(spareCores({ idle: 500, total: 4000, own: 0 }, { idle: 500, total: 6000, own: 1200 }, 2) < 0.3);
  // No time passed; counters that tick coarser than ours never make more than the other cores spare.
  assert.equal(spareCores({ idle: 500, total: 4000, own: 0 }, { idle: 500, total: 4000, own: 5 }, 2), 0);
  assert.equal(spareCores({ idle: 500, total: 4000, own: 0 }, { idle: 1600, total: 6000, own: 1100 }, 2), 1);
});

test('refresh: a first build resolves links as it inserts them, exactly as a relink of every link does', () => {
  const { root, home } = tempVault({
    '.vaultgate/config.yaml': 'index:\n  exclude: [private]\n',
    'a.md': [
      '# A',
      'plain [[b]], heading [[b#Two]], missing heading [[b#Nope]], block [[b#^blk]], self [[#A]], self missing [[#Zed]]',
      'later [[z-last]] and [[z-last#Deep]], ambiguous [[dup]], relative [[./sub/c]], absolute [[/sub/c]], case [[B]]',
      'attachment ![[img.png]], excluded [[secret]], excluded heading [[secret#S]], nowhere [[nowhere]] [[nowhere#H]]',
      'external [x](https://example.com) and [md](b.md#two) and [[img.png#x]]',
    ].join('\n'),
    'b.md': '# One\ntext\n## Two\nmore ^blk\n',
    'sub/c.md': '# C\nback [[a#A]] [[../a]]',
    'x/dup.md': 'one',
    'y/dup.md': 'two',
    'private/secret.md': '# S\nhidden',
    'img.png': '',
    'z-last.md': '# Deep\n[[a]]',
  });
  const env = { VAULTGATE_HOME: home };
  const first = withFreshIndex(root, env, (h) => h.db.prepare('SELECT count(*) FROM links WHERE external = 0 AND resolution IS NULL').pluck().get()).result;
  assert.equal(first, 0, 'every internal link has a resolution after the first build');
  withFreshIndex(root, env, (h) => {
    const before = h.db.prepare('SELECT l.id, l.status, l.target, l.resolution FROM links l ORDER BY l.id').raw().all();
    const total = h.db.prepare('SELECT count(*) FROM links WHERE external = 0').pluck().get() as number;
    const changed = new Set<string>();
    let relinked = 0;
    h.db.transaction(() => {
      relinked = relinkIndex(h.db, { all: true, nameKeys: new Set(), targets: new Set() }, undefined, changed);
    })();
    assert.equal(relinked, total);
    assert.deepEqual([...changed], [], 'a relink of every link changes no resolution');
    assert.deepEqual(h.db.prepare('SELECT l.id, l.status, l.target, l.resolution FROM links l ORDER BY l.id').raw().all(), before);
  });
  // The subpath links that waited for the relink got their anchors checked.
  assert.equal(JSON.parse(linkOf(root, home, 'a.md', '[[b#Nope]]').resolution).subpath.exists, false);
  assert.equal(JSON.parse(linkOf(root, home, 'a.md', '[[b#Two]]').resolution).subpath.exists, true);
  assert.equal(JSON.parse(linkOf(root, home, 'a.md', '[[z-last#Deep]]').resolution).subpath.exists, true);
  assert.equal(JSON.parse(linkOf(root, home, 'a.md', '[[#Zed]]').resolution).subpath.exists, false);
  assert.equal(linkOf(root, home, 'a.md', '[[secret]]').status, 'unindexed');
  assert.equal(linkOf(root, home, 'a.md', '[[dup]]').status, 'ambiguous');
});

test('refresh: the relinked count of a first build counts the links resolved on insert and after', () => {
  const { root, home } = tempVault({ 'a.md': '[[b]] [[b#H]] [x](https://e.com)', 'b.md': '# H' });
  assert.equal(refresh(root, home).r.relinked, 2);
});
