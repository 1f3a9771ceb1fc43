import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { findFrontmatter, readFrontmatter } from '../../../src/markdown/frontmatter.js';
import { computeLineStarts } from '../../../src/markdown/lines.js';
import { readSimpleFrontmatter } from '../../../src/markdown/simple-frontmatter.js';

/** readFrontmatter with and without the fast path, on one note text. */
function both(yamlBody: string) {
  const text = `---\n${yamlBody}---\n# Body with [[a link]]\n`;
  const block = findFrontmatter(text);
  assert.ok(block);
  const lineStarts = computeLineStarts(text);
  return { fast: readFrontmatter(text, block, lineStarts), yaml: readFrontmatter(text, block, lineStarts, { yamlOnly: true }) };
}

test('simple frontmatter: the common forms are read without yaml, with the same facts', () => {
  const body = 'tags:\n  - inbox/zoumuvihu\n  - Проект\naliases: [Old name, older name_2]\ncreated: 2021-02-16\nstatus: active\ntag: [a,b , c]\n';
  assert.ok(readSimpleFrontmatter(body));
  const { fast, yaml } = both(body);
  assert.deepEqual(fast, yaml);
  assert.deepEqual(fast.frontmatter.data, {
    tags: ['inbox/zoumuvihu', 'Проект'],
    aliases: ['Old name', 'older name_2'],
    created: '2021-02-16',
    status: 'active',
    tag: ['a', 'b', 'c'],
  });
  assert.equal(fast.tags.length, 5);
  assert.deepEqual(fast.aliases, ['Old name', 'older name_2']);
});

test('simple frontmatter: anything not surely a plain string goes to yaml', () => {
  for (const body of [
    'n: 3\n', 'x: 1.5\n', 'x: 1e5\n', 'x: 0x1F\n', 'x: 0o17\n', 'x: true\n', 'x: Null\n', 'x:\n', 'x: ~\n',
    'x: "q"\n', "x: 'q'\n", 'x: a # comment\n', 'x: a: b\n', 'x: https://example.org\n', 'x: [[Link]]\n',
    'x: a\nx: b\n', 'x:\n  y: 1\n', 'x: a\n\ny: b\n', 'x: a\r\n', 'x:\ta\n', 'x: a \n', 'x: []\n', 'x: [a,]\n',
    '__proto__: a\n', 'x:\n  - a\n    b\n', 'x:\n  - a\n - b\n', 'x: a\n  b\n', '',
  ]) {
    assert.equal(readSimpleFrontmatter(body), null, JSON.stringify(body));
  }
});

const KEYS = ['tags', 'Tags', 'tag', 'aliases', 'alias', 'created', 'status', 'due date', 'true', 'null', '1', '1_0', '__proto__', 'a:b', 'é', ' k', 'k '];
const VALUES = [
  'active', '2021-02-16', '12:30', '1.0', '1.', '.5', '+1', '-1', '1e5', '1E-3', '0x1F', '0o17', '0b11', '1_000', '007', '1.2.3', 'yes', 'No', 'on',
  'null', 'Null', 'NULL', 'nULL', '~', 'true', 'True', 'TRUE', 'tRue', 'NaN', '.inf', '.nan', 'a b', 'a  b', 'foo ', ' foo', 'x#y', 'a # c', '#tag',
  '[[Link]]', '"[[Quoted]]"', '"q"', "'q'", 'ünï', 'cafe\u0301', 'Заметка о ёлке', '中文', '한국어', '-x', 'a-b', 'a/b', 'a,b', 'a: b', '', '&a', '*a',
  '!t', '|', '>', '%x', '@x', '`x`', 'a\u00a0b', '\u00a0', 'x]', '{a}',
];

const PLAIN = ['active', '2021-02-16', 'a b', 'ünï', 'Заметка о ёлке', '1_000', '1.2.3', 'yes', 'a-b', 'a/b', 'nULL', 'NaN', '0b11'];
// Mostly values the fast path takes, so that both paths are compared often.
const scalar = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...PLAIN) }, { weight: 1, arbitrary: fc.constantFrom(...VALUES) });
const layout = fc.oneof(
  scalar.map((v) => (v === '' ? ':' : `: ${v}`)),
  fc.tuple(fc.array(scalar, { minLength: 0, maxLength: 4 }), fc.constantFrom(', ', ',', ' , ', ',  '), fc.constantFrom('', ' ')).map(
    ([vs, sep, pad]) => `: [${pad}${vs.join(sep)}${pad}]`,
  ),
  fc.tuple(fc.array(scalar, { minLength: 0, maxLength: 4 }), fc.constantFrom('', ' ', '  ', '    '), fc.boolean()).map(
    ([vs, indent, ragged]) => `:${vs.map((v, i) => `\n${ragged && i === 1 ? ' ' : ''}${indent}- ${v}`).join('')}`,
  ),
);
const entry = fc.tuple(fc.oneof({ weight: 3, arbitrary: fc.constantFrom('tags', 'aliases', 'created', 'status') }, { weight: 1, arbitrary: fc.constantFrom(...KEYS) }), layout, fc.constantFrom('', '', '', '', '', '', '\n', ' # c', '\r')).map(([k, l, extra]) => `${k}${l}${extra}\n`);

test('simple frontmatter: the same facts as yaml on generated blocks', () => {
  let simple = 0;
  fc.assert(
    fc.property(fc.array(entry, { minLength: 1, maxLength: 5 }), (entries) => {
      const body = entries.join('');
      if (readSimpleFrontmatter(body)) simple++;
      const { fast, yaml } = both(body);
      assert.deepEqual(fast, yaml, JSON.stringify(body));
    }),
    { numRuns: 3000, seed: 26 },
  );
  // The generator must reach the fast path often enough for the comparison to mean something.
  assert.ok(simple > 200, `only ${simple} generated blocks took the fast path`);
});
