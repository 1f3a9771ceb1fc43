import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { parseQuery } from '../../../src/index/index.js';

test('plain-language questions become an OR of content words, stop words dropped', () => {
  const q = parseQuery('How do I deploy the application?');
  assert.equal(q.match, '("deploi" OR "applic")');
});

test('Russian questions drop Russian stop words and stem the rest', () => {
  const q = parseQuery('Как мне вести заметки?');
  assert.equal(q.match, '("вест" OR "заметк")');
});

test('declined forms of Russian question words and pronouns are stop words too, prepositions are not', () => {
  assert.equal(parseQuery('какого размера эту кнопку').match, '("размер" OR "кнопк")');
  // "после" carries meaning in a question about before and after.
  assert.equal(parseQuery('которую встречу после').match, '("встреч" OR "посл")');
});

test('a query of stop words only still searches them rather than nothing', () => {
  assert.equal(parseQuery('the').match, '"the"');
});

test('"phrases", -exclusions and prefix* are understood', () => {
  const q = parseQuery('"search engines" -google -"bad idea"');
  assert.deepEqual([q.match, q.exclude], ['"search engin"', '("googl" OR "bad idea")']);
  assert.equal(parseQuery('"search engines" note*').match, '("search engin" OR "note"*)');
  assert.equal(parseQuery('notes*').match, '"note"*');
  assert.equal(parseQuery('a-b').match, '"a b"');
});

test('FTS5 syntax in user text is only ever words: no column filters, operators or NEAR', () => {
  for (const input of ['title:cafe', 'todo AND', 'NEAR(a b)', 'c++', 'state-of-the-art', '^start', 'a OR', '"unterminated', '*', '-', '--x', '(((']) {
    const q = parseQuery(input);
    for (const m of [q.match, q.exclude]) if (m !== null) assert.match(m, /^\(?"[^"]*"\*?( OR "[^"]*"\*?)*\)?$/, input);
  }
});

test('only exclusions, or only punctuation, leave nothing to search (match null)', () => {
  assert.equal(parseQuery('-foo').match, null);
  assert.equal(parseQuery('?!., ;').match, null);
});

test('property: any string parses, and its MATCH expression runs on a real FTS5 table without error', () => {
  const db = new Database(':memory:');
  db.exec(`CREATE VIRTUAL TABLE t USING fts5(a, b, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2')`);
  db.prepare('INSERT INTO t(rowid, a, b) VALUES (1, ?, ?)').run('note engin', 'заметк 搜索');
  const search = db.prepare('SELECT rowid FROM t WHERE t MATCH ? ORDER BY rank');
  const pieces = fc.constantFrom('"', '-', '*', ':', 'AND', 'OR', 'NOT', 'NEAR(', ')', '(', '^', '+', 'note', 'заметки', '搜索', ' ', '\\', "'", '{', '}', 'title:', '\u0000', '🙂');
  fc.assert(
    fc.property(fc.oneof(fc.string(), fc.string({ unit: 'binary' }), fc.array(pieces).map((a) => a.join(''))), (input) => {
      const q = parseQuery(input);
      if (q.match !== null) search.all(q.match);
      if (q.exclude !== null) search.all(q.exclude);
    }),
    { numRuns: 2000 },
  );
  db.close();
});
