import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { isStopWord, textWords, withFreshIndex } from '../../../src/index/index.js';
import { searchIndex } from '../../../src/retrieval/index.js';
import { tempVault } from '../../helpers/temp-vault.js';

/**
 * Issue 9: a question written the normal way in Chinese, Japanese or Korean must
 * find the note whose text holds its content words, and must never answer
 * total 0 when they occur in the vault (the bigram fallback, query.ts).
 */

function searcher(files: Record<string, string>) {
  const { root, home } = tempVault(files);
  return (q: string) => withFreshIndex(root, { VAULTGATE_HOME: home }, (h) => searchIndex(h.db, q)).result;
}

test('search: Chinese questions without spaces find the bread note (issue 9, example 1)', () => {
  const search = searcher({ '面包.md': '# 面包\n面包面团需要发酵两个小时。\n', '咖啡.md': '# 咖啡\n手冲咖啡的水温是九十度。\n' });
  for (const q of ['面包要发酵多久', '面包面团要发酵多长时间？', '面包 发酵']) {
    const r = search(q);
    assert.ok(r.total >= 1, q);
    assert.equal(r.hits[0]?.path, '面包.md', q);
  }
});

test('search: Japanese and Korean questions find their notes', () => {
  const search = searcher({
    '京都.md': '# 京都\n京都の紅葉は十一月の下旬が見頃です。\n',
    '빵.md': '# 빵\n빵 반죽은 따뜻한 곳에서 두 시간 발효해야 합니다.\n',
    'Other.md': '# Other\nNothing here.\n',
  });
  assert.equal(search('京都の紅葉はいつが見頃ですか').hits[0]?.path, '京都.md');
  assert.equal(search('반죽을 얼마나 발효하나요?').hits[0]?.path, '빵.md');
});

test('search: when the segmented words find nothing, the character bigrams still do', () => {
  // The segmenter keeps 小猫 whole in the note, so the word 猫 is not a token there.
  const search = searcher({ '猫.md': '# 宠物\n小猫很可爱。\n', 'Other.md': '# Other\n天气很好。\n' });
  const r = search('猫');
  assert.equal(r.total, 1);
  assert.equal(r.hits[0]?.path, '猫.md');
  assert.equal(search('狗').total, 0, 'and a character that is nowhere finds nothing');
});

const WORDS = ['面包', '面团', '发酵', '温度', '咖啡', '披萨', '冷藏', '小时', '西红柿', '鸡蛋', '围棋', '规则', '京都', '紅葉', '時間', '반죽', '발효'];
const GLUE = ['的', '要', '在', '，', '。', '是', ''];

test('property: a question made of any stretch of a note\'s CJK text never returns total 0', () => {
  const notes = fc.sample(fc.array(fc.tuple(fc.constantFrom(...WORDS), fc.constantFrom(...GLUE)), { minLength: 3, maxLength: 12 }), { numRuns: 12, seed: 7 });
  const texts = notes.map((parts) => parts.map(([w, g]) => w + g).join(''));
  const files = Object.fromEntries(texts.map((t, i) => [`n${i}.md`, `# 笔记 ${i}\n${t}\n`]));
  files['Other.md'] = '# Other\nPlain English only.\n';
  const search = searcher(files);
  fc.assert(
    fc.property(fc.nat(texts.length - 1), fc.nat(40), fc.integer({ min: 1, max: 8 }), (k, from, len) => {
      const text = texts[k]!;
      const start = from % text.length;
      const q = text.slice(start, start + len);
      // Only questions with a word of their own (not punctuation or stop words alone) must find something.
      if (!textWords(q).some((w) => !isStopWord(w))) return;
      assert.ok(search(q).total > 0, `${JSON.stringify(q)} from ${JSON.stringify(text)}`);
    }),
    { numRuns: 300, seed: 11 },
  );
});
