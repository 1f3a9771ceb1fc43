import assert from 'node:assert/strict';
import { test } from 'node:test';
import { visibleLines, visibleText } from '../../src/visible-text.js';

const code = (cp: number) => `<U+${cp.toString(16).toUpperCase().padStart(4, '0')}>`;
const HIDDEN = /^[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]$/u;

test('visibleText escapes every control (Cc) but tab, every format (Cf) and the line/paragraph separators, at every code point', () => {
  let escaped = 0;
  for (let cp = 0; cp <= 0x10ffff; cp++) {
    if (cp >= 0xd800 && cp <= 0xdfff) continue;
    const c = String.fromCodePoint(cp);
    const out = visibleText(`a${c}b`);
    if (cp !== 0x09 && HIDDEN.test(c)) {
      assert.equal(out, `a${code(cp)}b`, `U+${cp.toString(16)}`);
      escaped++;
    } else assert.equal(out, `a${c}b`, `U+${cp.toString(16)} was changed`);
  }
  // Cc 65 - tab; Cf ~170 (Unicode 15); Zl, Zp
  assert.ok(escaped > 200, `${escaped}`);
});

test('visibleText: the named ranges of issue 20 §4 each escaped, in the exact form <U+XXXX>', () => {
  const named = [
    ...Array.from({ length: 5 }, (_, i) => 0x202a + i),
    ...Array.from({ length: 4 }, (_, i) => 0x2066 + i),
    0x200e, 0x200f, 0x061c, 0x200b, 0x200c, 0x200d, 0x2060, 0xfeff, 0x00ad, 0x2028, 0x2029, 0x1b, 0x7f, 0x85, 0x9b, 0x0a, 0x0d, 0x00, 0xe0001, 0xe0041,
  ];
  for (const cp of named) assert.equal(visibleText(String.fromCodePoint(cp)), code(cp));
  assert.equal(visibleText('limit: \u202e0001'), 'limit: <U+202E>0001');
  assert.equal(visibleText('\u{e0041}'), '<U+E0041>');
});

test('visibleText keeps tabs, text, emoji with variation selectors, combining marks; escapes lone surrogates', () => {
  for (const s of ['a\tb', 'plain ASCII', 'Grüße, 東京, مرحبا', '❤️ 👍🏽', 'e\u0301', '\u00a0nbsp']) assert.equal(visibleText(s), s);
  assert.equal(visibleText('x\ud800y'), 'x<U+D800>y');
  assert.equal(visibleText('\udc00'), '<U+DC00>');
});

test('visibleLines keeps line feeds and escapes everything else; the escape is idempotent', () => {
  assert.equal(visibleLines('a\u202e\nb\r\n'), 'a<U+202E>\nb<U+000D>\n');
  assert.equal(visibleText('a\nb'), 'a<U+000A>b');
  const once = visibleText('x\u2067y\u200dz');
  assert.equal(visibleText(once), once);
});

test('visibleText is self-contained: its source text alone runs (the web page embeds it)', () => {
  const fn = new Function(`return (${visibleText.toString()});`)() as typeof visibleText;
  assert.equal(fn('limit: \u202e0001', { keepLineBreaks: true }), 'limit: <U+202E>0001');
  assert.equal(fn('a\nb'), 'a<U+000A>b');
});
