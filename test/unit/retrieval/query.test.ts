import assert from 'node:assert/strict';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import fc from 'fast-check';
import { parseQuery } from '../../../src/retrieval/index.js';

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

test('Russian question frames ("что делать", "объясните") are stop words like English do / explain', () => {
  assert.equal(parseQuery('что делать, если помидор прервали').match, '("помидор" OR "прерва")');
  assert.equal(parseQuery('объясните, как сделать бэкап').match, '"бэкап"');
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

test('a Chinese question written without spaces is cut into words, and each content word is a term (stop words dropped)', () => {
  assert.equal(parseQuery('面包要发酵多久').match, '("面包" OR "发酵")');
  const q = parseQuery('面包面团要发酵多长时间？');
  assert.ok(q.terms.length >= 3 && !q.terms.some((t) => t.phrase), q.match!);
  for (const w of ['面包', '发酵', '时间']) assert.ok(q.match!.includes(`"${w}"`), q.match!);
  for (const w of ['要', '多']) assert.ok(!q.match!.includes(`"${w}"`), q.match!);
});

test('Japanese particles and Korean particles are not what a question is searched for', () => {
  assert.equal(parseQuery('京都の紅葉はいつが見頃ですか').match, '("京都" OR "紅葉" OR "見頃")');
  // Korean: particles and 하다-endings are stripped from the words themselves (text pipeline).
  assert.equal(parseQuery('반죽은 얼마나 발효해야 하나요').match, '("반죽" OR "발효")');
});

test('the fallback bigrams come from the content words of CJK text only, never across a stop word', () => {
  assert.equal(parseQuery('面包要发酵多久').bigrams, '("面包" OR "发酵")');
  assert.equal(parseQuery('猫').bigrams, '"猫"*');
  assert.equal(parseQuery('deploy keys').bigrams, null);
  // Only stop words: searched for them rather than nothing.
  assert.notEqual(parseQuery('是在').bigrams, null);
});

test('punctuation other than word joiners separates words: `title:robber` is two words, `state-of-the-art` one phrase', () => {
  assert.equal(parseQuery('title:robber').match, '("titl" OR "robber")');
  assert.equal(parseQuery('robber,seven;dice').match, '("robber" OR "seven" OR "dice")');
  assert.equal(parseQuery('state-of-the-art').match, '"state of the art"');
  assert.equal(parseQuery('node.js').match, '"node js"');
  assert.equal(parseQuery("don't").match, '"don t"');
});
