import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import type { Db } from '../../../src/index/db.js';
import { withFreshIndex } from '../../../src/index/fresh-index.js';
import { notesCanAnswer } from '../../../src/retrieval/rank.js';
import { parseQuery } from '../../../src/retrieval/query.js';
import { searchIndex, type SearchOptions } from '../../../src/retrieval/search.js';
import { tempVault } from '../../helpers/temp-vault.js';

// notes_fts (schema.ts) stands in for sections_fts when rank.ts counts `total`
// and checks which notes hold a word. These tests hold it to being the same
// thing: each note's words there are exactly its sections' words, after every
// kind of refresh, and every total equals the count over sections and anchors.

/** {term, note} pairs of notes_fts, and of sections_fts (a section's note: rowid >> 20). */
function wordPairs(db: Db): { notes: string[]; sections: string[] } {
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.notes_terms USING fts5vocab(main, notes_fts, instance)`);
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.section_terms USING fts5vocab(main, sections_fts, instance)`);
  const notes = db.prepare(`SELECT DISTINCT term || ' ' || doc FROM temp.notes_terms ORDER BY 1`).pluck().all() as string[];
  const sections = db.prepare(`SELECT DISTINCT term || ' ' || (doc >> 20) FROM temp.section_terms ORDER BY 1`).pluck().all() as string[];
  return { notes, sections };
}

/** Notes matching `match` in their sections or in the anchor text into them, counted the way rank.ts did before notes_fts. */
function countBySections(db: Db, match: string): number {
  return db
    .prepare(
      `SELECT count(DISTINCT n) FROM (SELECT rowid >> 20 AS n FROM sections_fts WHERE sections_fts MATCH ?
                                     UNION ALL SELECT rowid >> 20 FROM anchors_fts WHERE anchors_fts MATCH ?)`,
    )
    .pluck()
    .get(match, match) as number;
}

const HUB_LINKS = 30;

function vaultFiles(): Record<string, string> {
  const files: Record<string, string> = {
    'Catan rules.md': '# Catan rules\n## Setup\nPlace the board.\n## The robber\nMove the pawn and steal one card.\n',
    'Journal.md': 'Tonight: [rolling a seven](Catan%20rules.md#The%20robber) again, and [[Catan rules#Setup|board assembly]].\n',
    'Bread.md': '---\ndescription: levain loaf notes\naliases: [Sourdough loaf]\n---\n# Bread\nFlour, water, salt.\n## Bake\nHot oven, 40 minutes.\n',
    'Empty heading.md': '# Only a heading\n',
    'Blank.md': '',
    'Ops/Deploy.md': '---\ntags: [ops]\n---\n# Deploy\nRun the deploy script. The board approves it.\n',
  };
  // Many notes found only by the anchor text into them.
  const hub: string[] = [];
  for (let i = 0; i < HUB_LINKS; i++) {
    files[`Targets/T${i}.md`] = `# Target ${i}\nPlain words number ${i}.\n`;
    hub.push(`[[T${i}|zebra crossing ${i}]]`);
  }
  files['Hub.md'] = `# Hub\n${hub.join('\n')}\n`;
  return files;
}

const QUERIES: [string, SearchOptions][] = [
  ['board', {}],
  ['what happens when rolling a seven', {}],
  ['zebra', { limit: 5 }],
  ['zebra crossing board', {}],
  ['levain sourdough', {}],
  ['heading', {}],
  ['board', { tag: 'ops' }],
  ['zebra', { pathPrefix: 'Targets/' }],
  ['deplo*', {}],
  ['"steal one card"', {}],
];

test('notes_fts: a plain OR of one-word phrases goes to notes_fts, anything else to sections_fts', () => {
  assert.equal(notesCanAnswer('"board"'), true);
  assert.equal(notesCanAnswer('("board" OR "deplo"* OR "面包" OR "ёлка")'), true);
  assert.equal(notesCanAnswer('("steal one card" OR "board")'), false, 'a phrase needs positions');
  assert.equal(notesCanAnswer('("c""d" OR "board")'), false);
  assert.equal(notesCanAnswer('("a OR b")'), false);
  assert.equal(notesCanAnswer('("foo_bar" OR "board")'), false, 'FTS5 may split it into two tokens');
});

test('notes_fts: each note holds exactly its sections\' words, after a cold index and after edits, renames and deletes', () => {
  const { root, home } = tempVault(vaultFiles());
  const env = { VAULTGATE_HOME: home };
  const check = (when: string) =>
    withFreshIndex(root, env, (h) => {
      const { notes, sections } = wordPairs(h.db);
      assert.ok(notes.length > 100, when);
      assert.deepEqual(notes, sections, when);
    });
  check('cold index');
  fs.writeFileSync(path.join(root, 'Bread.md'), '# Bread\nRye and spelt now.\n');
  fs.writeFileSync(path.join(root, 'Blank.md'), 'Not blank any more: marmalade.\n');
  fs.writeFileSync(path.join(root, 'Targets/T3.md'), '');
  fs.rmSync(path.join(root, 'Targets/T4.md'));
  fs.renameSync(path.join(root, 'Journal.md'), path.join(root, 'Diary.md'));
  check('after a refresh');
});

test('notes_fts: every total equals the count of distinct notes over sections and anchors', () => {
  const { root, home } = tempVault(vaultFiles());
  withFreshIndex(root, { VAULTGATE_HOME: home }, (h) => {
    for (const [q, opts] of QUERIES) {
      if (Object.keys(opts).length > 0) continue;
      assert.equal(searchIndex(h.db, q).total, countBySections(h.db, parseQuery(q).match!), q);
    }
    // 30 targets found by the hub's link text alone, plus the hub.
    assert.equal(searchIndex(h.db, 'zebra').total, HUB_LINKS + 1);
    assert.equal(searchIndex(h.db, 'zebra', { pathPrefix: 'Targets/' }).total, HUB_LINKS);
    // A few: the journal says "assembly"; the rules only by the journal's link into them.
    const assembly = searchIndex(h.db, 'assembly');
    assert.equal(assembly.total, 2);
    assert.ok(assembly.hits.some((x) => x.path === 'Catan rules.md'));
    assert.equal(searchIndex(h.db, 'board', { tag: 'ops' }).total, 1);
  });
});
