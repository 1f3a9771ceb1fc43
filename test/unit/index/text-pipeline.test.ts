import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { normalizeText, textWords } from '../../../src/index/index.js';
import { cjkRuns, distinctTokens, hasCjk, indexText, indexWords, textTokens, tokenGeneration, tokenList } from '../../../src/index/text-pipeline.js';

test('normalizeText folds case, compatibility forms and ё to е', () => {
  assert.equal(normalizeText('Ёлка ＡＢＣ ﬁle'), 'елка abc file');
});

test('Russian word forms share one stem (заметки, заметка, заметкой)', () => {
  const [a, b, c] = textTokens('заметки заметка заметкой');
  assert.equal(a, b);
  assert.equal(b, c);
});

test('English plurals and -ing forms share a stem, and diacritics fold (café = cafe)', () => {
  assert.deepEqual(textTokens('engines engine'), ['engin', 'engin']);
  assert.equal(textTokens('café')[0], textTokens('cafe')[0]);
});

test('Chinese text is split into dictionary words, so a 2-character word is a token', () => {
  const words = textWords('我们今天学习全文搜索引擎和数据库索引');
  assert.ok(words.includes('搜索'), words.join('|'));
  assert.ok(words.includes('索引'), words.join('|'));
});

test('punctuation separates words like FTS5 unicode61 does', () => {
  assert.deepEqual(textWords('state-of-the-art, c++ "notes:" todo_AND'), ['state', 'of', 'the', 'art', 'c', 'notes', 'todo', 'and']);
});

test('a 2 MB single-line base64 image yields no tokens (data URI and overlong tokens dropped)', () => {
  const b64 = Buffer.alloc(1_500_000, 7).toString('base64');
  const text = `# Pic\n![img](data:image/png;base64,${b64})\nreal words here\n${b64}\n`;
  const tokens = indexText(text).split(' ');
  assert.deepEqual(tokens.slice(0, 1), ['pic']);
  assert.ok(tokens.includes('real'));
  assert.ok(tokens.length < 20, `got ${tokens.length} tokens`);
});

test('a long line of Chinese is segmented in bounded pieces and keeps every word', () => {
  const line = '全文搜索引擎'.repeat(5000);
  const words = textWords(line);
  assert.ok(words.length >= 5000);
  assert.ok(words.every((w) => w.length <= 48));
});

test('Korean: particles and the endings of 하다 verbs are stripped, the same way from a word and from its bare form', async () => {
  const { stemKorean, stemWord } = await import('../../../src/index/text-pipeline.js');
  assert.equal(stemKorean('반죽은'), '반죽');
  assert.equal(stemKorean('반죽에서'), '반죽');
  assert.equal(stemKorean('발효해야'), '발효');
  assert.equal(stemKorean('빵'), '빵');
  assert.equal(stemWord('고양이가'), stemWord('고양이'));
});

test('CJK bigrams: overlapping pairs of each run, and its last character (so every character starts a gram)', async () => {
  const { cjkBigrams } = await import('../../../src/index/index.js');
  assert.deepEqual(cjkBigrams('面包面团 ok 猫'), ['面包', '包面', '面团', '团', '猫']);
  assert.deepEqual(cjkBigrams('面包面团 猫', [], false), ['面包', '包面', '面团', '猫']);
});

/**
 * Text that mixes every script the pipeline treats differently: ASCII, Latin
 * with accents, Cyrillic, Han, kana, Hangul (syllables and jamo), the edges of
 * the CJK blocks, CJK compatibility forms NFKC changes, emoji (surrogate pairs).
 */
const mixedText = fc
  .array(
    fc.oneof(
      fc.string({ unit: 'grapheme-ascii', maxLength: 6 }),
      fc.constantFrom('café', 'Ёлка', 'заметка', '全文搜索', 'ひらがな', 'カタカナ', '한국어', 'ᄀᄁ', '豈', 'ｶﾀｶﾅ', '㈠', '〿', '぀', 'ヿ', '䶿', '鿿', '가', '힣', '😀', '👩‍💻', '\u3000', '\u303f'),
      fc.integer({ min: 0x1000, max: 0xffff }).map((c) => String.fromCharCode(c)),
    ),
    { maxLength: 12 },
  )
  .map((parts) => parts.join(''));

test('hasCjk (one regex over the CJK blocks) agrees with the character scanner of cjkRuns, on any mix of scripts', () => {
  fc.assert(
    fc.property(mixedText, (text) => {
      assert.equal(hasCjk(text), cjkRuns(text).length > 0, JSON.stringify(text));
      assert.equal(hasCjk(normalizeText(text)), cjkRuns(normalizeText(text)).length > 0);
    }),
    { numRuns: 2000 },
  );
});

test('indexWords (scan and stem in one pass, stems looked up by place) gives textTokens, on any mix of scripts and after its table starts over', () => {
  const pieces = ['Заметки', 'ёлке', 'engines', 'café', 'running', 'a', 'of', 'uses', '全文搜索', '반죽은', 'x'.repeat(49), 'y'.repeat(48), 'data:image/png;base64,AAAA', '·', '—', '\u{1F600}', 'ΑΒΓ', 'e\u0301', '12', '3.14'];
  fc.assert(
    fc.property(fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string()), { maxLength: 30 }), fc.constantFrom(' ', '\n', ', ', ''), (words, sep) => {
      const text = words.join(sep);
      assert.equal(indexWords(text).join(' '), textTokens(text).join(' '));
    }),
    { numRuns: 2000, seed: 26 },
  );
  // More distinct words than the table keeps: it starts over and still answers right.
  const many = Array.from({ length: 60_000 }, (_, i) => `w${i.toString(36)}ing`).join(' ');
  assert.equal(indexWords(many).join(' '), textTokens(many).join(' '));
  assert.equal(indexWords('runnings running').join(' '), textTokens('runnings running').join(' '));
});

test('distinctTokens gives what a Set of every token gives, in order: words sharing a stem count once, CJK words too, and lists from before the stem table started over', () => {
  const pieces = ['state', 'states', 'stated', 'Заметки', 'заметка', 'running', 'runs', 'a', '全文搜索', '搜索', '반죽은', '반죽', 'x'.repeat(49), 'café', 'cafe'];
  const setOf = (texts: string[]) => [...new Set(texts.flatMap((t) => textTokens(t)))];
  fc.assert(
    fc.property(fc.array(fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string()), { maxLength: 12 }), { maxLength: 6 }), (lists) => {
      const texts = lists.map((words) => words.join(' '));
      const generation = tokenGeneration();
      assert.deepEqual(distinctTokens(texts.map(tokenList), generation), setOf(texts));
    }),
    { numRuns: 1000, seed: 26 },
  );
  const generation = tokenGeneration();
  const before = tokenList('states state');
  // More distinct words than the table keeps: it starts over, and the older list's stem numbers are not trusted.
  const many = tokenList(Array.from({ length: 60_000 }, (_, i) => `v${i.toString(36)}ing`).join(' '));
  assert.notEqual(tokenGeneration(), generation);
  assert.deepEqual(distinctTokens([before, many], generation), [...new Set([...before.words, ...many.words])]);
});

test('a short CJK run answers the same from the run cache as from the segmenter', () => {
  const text = '项目 会议 项目会议 全文搜索 项目';
  assert.equal(indexWords(text).join(' '), textTokens(text).join(' '));
  assert.equal(indexWords(text).join(' '), textTokens(text).join(' '));
});
