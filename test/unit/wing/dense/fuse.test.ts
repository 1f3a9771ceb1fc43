import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { AGREEMENT_DEPTH, RRF_K, agreement, fuseRanks, parseVectors, readDenseSetting, scriptGate, scriptsOf } from '../../../../src/wing/dense/index.js';
import { tempDir } from '../../../helpers/temp-vault.js';

const keys = (f: { key: string }[]) => f.map((x) => x.key);

test('fuseRanks: RRF over both rankings; a dense-only key enters; weight tips a disagreement', () => {
  const f = fuseRanks(['a', 'b', 'c'], ['c', 'x', 'b', 'a'], 2);
  assert.deepEqual(keys(f), ['c', 'b', 'a', 'x']);
  const c = f.find((x) => x.key === 'c')!;
  assert.equal(c.score, 1 / (RRF_K + 3) + 2 / (RRF_K + 1));
  assert.deepEqual([c.lexicalRank, c.denseRank], [3, 1]);
  const x = f.find((y) => y.key === 'x')!;
  assert.deepEqual([x.lexicalRank, x.denseRank, x.score], [null, 2, 2 / (RRF_K + 2)]);
  // Equal weight, mirrored rankings: the ends tie (and keep the lexical order); the middle loses (1/62 + 1/62 < 1/61 + 1/63).
  assert.deepEqual(keys(fuseRanks(['a', 'b', 'c'], ['c', 'b', 'a'], 1)), ['a', 'c', 'b']);
  // Weight 0: the lexical order, dense-only keys after it.
  assert.deepEqual(keys(fuseRanks(['a', 'b'], ['z', 'b', 'a'], 0)), ['a', 'b', 'z']);
});

test('fuseRanks: a lexical key without a vector is scored at its lexical rank on the dense side (neither lifted nor sunk)', () => {
  const f = fuseRanks(['a', 'b', 'c'], ['b', 'c'], 1);
  const a = f.find((x) => x.key === 'a')!;
  assert.equal(a.denseRank, null);
  assert.equal(a.score, 2 / (RRF_K + 1));
  assert.deepEqual(keys(f), ['a', 'b', 'c']);
});

test('fuseRanks (property): no dense ranking, or one that agrees, keeps the lexical order; every key once; scores descending', () => {
  const list = fc.uniqueArray(fc.integer({ min: 0, max: 60 }), { maxLength: 40 });
  fc.assert(
    fc.property(list, list, fc.double({ min: 0, max: 5, noNaN: true }), (lex, dense, w) => {
      assert.deepEqual(keys(fuseRanks(lex.map(String), [], w)), lex.map(String));
      assert.deepEqual(keys(fuseRanks(lex.map(String), lex.map(String), w)), lex.map(String));
      const f = fuseRanks(lex, dense, w);
      assert.equal(new Set(f.map((x) => x.key)).size, new Set([...lex, ...dense]).size);
      for (let i = 1; i < f.length; i++) assert.ok(f[i - 1]!.score >= f[i]!.score);
      // A key in both lists never ranks below a key that is behind it in both.
      for (const a of f) for (const b of f) {
        if (a.lexicalRank && b.lexicalRank && a.denseRank && b.denseRank && a.lexicalRank < b.lexicalRank && a.denseRank < b.denseRank) assert.ok(f.indexOf(a) < f.indexOf(b));
      }
    }),
  );
});

test('scriptGate: a query passes only when every script of its letters is trusted; digits-only passes; null trusts all', () => {
  assert.deepEqual(scriptGate('how long does dough rest?', ['Latin']), { pass: true, scripts: ['Latin'] });
  assert.deepEqual(scriptGate('тесто отдыхает', ['Latin']), { pass: false, scripts: ['Cyrillic'] });
  assert.deepEqual(scriptGate('Sourdough тесто', ['Latin']), { pass: false, scripts: ['Cyrillic', 'Latin'] });
  assert.deepEqual(scriptGate('Sourdough тесто', ['Latin', 'Cyrillic']).pass, true);
  assert.deepEqual(scriptGate('2026-12-03 #42', ['Latin']), { pass: true, scripts: [] });
  assert.equal(scriptGate('面包要发酵多久', null).pass, true);
  assert.deepEqual(scriptsOf('面包 パン ぱん 빵 ψωμί خبز'), ['Arabic', 'Greek', 'Han', 'Hangul', 'Hiragana', 'Katakana']);
  assert.deepEqual(scriptsOf('ᚠᚢᚦ'), ['Other']);
});

test('agreement: share of the dense top notes among the lexical candidates, over the first AGREEMENT_DEPTH distinct ones', () => {
  assert.equal(agreement(['a', 'b'], ['a', 'x']), 0.5);
  assert.equal(agreement(['a'], ['a', 'a', 'x', 'x']), 0.5, 'distinct notes');
  assert.equal(agreement(['a'], []), null);
  const dense = Array.from({ length: 30 }, (_, i) => `n${i}`);
  assert.equal(agreement(['n0', 'n20'], dense), 1 / AGREEMENT_DEPTH, 'only the top ones count');
});

test('parseVectors: both shapes; anything short of N finite vectors of one length is null', () => {
  assert.deepEqual(parseVectors('ollama', { embeddings: [[1, 2]] }, 1), [[1, 2]]);
  assert.deepEqual(parseVectors('openai', { data: [{ index: 1, embedding: [3] }, { index: 0, embedding: [1] }] }, 2), [[1], [3]]);
  for (const bad of [null, {}, { embeddings: [] }, { embeddings: [[1, 2], [1]] }, { embeddings: [[]] }, { embeddings: [[NaN]] }, { embeddings: [['1']] }, { embeddings: 'x' }]) {
    assert.equal(parseVectors('ollama', bad, bad && 'embeddings' in bad && Array.isArray(bad.embeddings) && bad.embeddings.length === 2 ? 2 : 1), null, JSON.stringify(bad));
  }
  assert.equal(parseVectors('openai', { data: [{ embedding: [1] }] }, 1), null, 'no index');
  assert.equal(parseVectors('openai', { data: 'x' }, 1), null);
});

test('readDenseSetting: off without search.embeddings; defaults; every mistake is "invalid" with the key named, never a throw', () => {
  const home = tempDir();
  const env = { VAULTGATE_HOME: home };
  const write = (c: unknown) => {
    fs.mkdirSync(path.join(home, 'config'), { recursive: true });
    fs.writeFileSync(path.join(home, 'config', 'config.yaml'), JSON.stringify(c));
  };
  assert.deepEqual(readDenseSetting(env), { kind: 'off' });
  write({ providers: { o: { kind: 'ollama', url: 'http://127.0.0.1:1', embed_model: 'm' } } });
  assert.deepEqual(readDenseSetting(env), { kind: 'off' });
  write({ providers: { o: { kind: 'ollama', url: 'http://127.0.0.1:1', embed_model: 'm', timeout_ms: 99999 } }, search: { embeddings: { provider: 'o' } } });
  const on = readDenseSetting(env);
  assert.equal(on.kind, 'on');
  if (on.kind === 'on') {
    assert.equal(on.config.model, 'm');
    assert.deepEqual(on.config.scripts, ['Latin']);
    assert.equal(on.config.spec.timeoutMs, 10_000, 'a search does not wait like a bulk embedding run');
    assert.equal(on.config.spec.attempts, 1);
  }
  write({ search: { embeddings: { provider: 'ollama', model: 'x', scripts: 'any' } } });
  const any = readDenseSetting(env);
  assert.ok(any.kind === 'on' && any.config.scripts === null && any.config.spec.url === 'http://127.0.0.1:11434');
  const invalid: [unknown, RegExp][] = [
    [{ embeddings: { provider: 'ollama', model: 'x', scripts: ['Latn'] } }, /search\.embeddings\.scripts: .*Latin, Cyrillic/],
    [{ embeddings: { provider: 'ollama', model: 'x', colour: 1 } }, /search\.embeddings/],
    [{ embeddings: { provider: 'ollama' } }, /no embed model/],
    [{ embeddings: { provider: 'nope' } }, /unknown provider/],
    [{ embeddings: { provider: 'ollama', model: 'x' }, fuzzy: true }, /search\.fuzzy/],
  ];
  for (const [search, re] of invalid) {
    write({ search });
    const s = readDenseSetting(env);
    assert.equal(s.kind, 'invalid', JSON.stringify(search));
    if (s.kind === 'invalid') assert.match(s.message, re);
  }
});
