import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseScenarioYaml } from '../../../src/policy/index.js';

const FILE = '/cfg/scenarios/books/scenario.yaml';
const parse = (text: string) => parseScenarioYaml(text, FILE, 'books');

function refusal(text: string): { code: string; message: string; details: Record<string, unknown> } {
  try {
    parse(text);
  } catch (e) {
    return e as { code: string; message: string; details: Record<string, unknown> };
  }
  assert.fail(`accepted:\n${text}`);
}

const ISSUE_EXAMPLE = `name: books
version: 1
description: Book notes and quotes
areas: ["Books/**", "Quotes/**"]      # where context searches and where writes may go
context: {budget_chars: 12000, limit: 20, max_linked: 5}
write:
  required_frontmatter: [type, source]
  frontmatter:
    type: {one_of: [quote, note]}
    tags: {contains: [books]}
`;

test('scenario.yaml: the issue’s example parses to exactly what it says', () => {
  const s = parse(ISSUE_EXAMPLE);
  assert.deepEqual(
    { ...s, write: { ...s.write, frontmatter: { ...s.write.frontmatter } } },
    {
      name: 'books',
      version: 1,
      description: 'Book notes and quotes',
      areas: ['Books/**', 'Quotes/**'],
      context: { budget_chars: 12000, limit: 20, max_linked: 5 },
      write: { required_frontmatter: ['type', 'source'], frontmatter: { type: { one_of: ['quote', 'note'] }, tags: { contains: ['books'] } } },
    },
  );
});

test('scenario.yaml: an unknown key anywhere is SCENARIO_INVALID naming the key and the file (a typo never weakens a rule)', () => {
  const typos: [string, string][] = [
    [ISSUE_EXAMPLE + 'extra: 1\n', 'extra'],
    [ISSUE_EXAMPLE.replace('areas:', 'area:'), 'area'],
    [ISSUE_EXAMPLE.replace('max_linked', 'max_links'), 'context.max_links'],
    [ISSUE_EXAMPLE.replace('required_frontmatter', 'required_frontmater'), 'write.required_frontmater'],
    [ISSUE_EXAMPLE.replace('one_of', 'oneof'), 'write.frontmatter.type.oneof'],
    [ISSUE_EXAMPLE.replace('{contains: [books]}', '{contains: [books], optinal: true}'), 'write.frontmatter.tags.optinal'],
  ];
  for (const [text, key] of typos) {
    const e = refusal(text);
    assert.equal(e.code, 'SCENARIO_INVALID', key);
    assert.equal(e.message, `${FILE}: unknown key ${JSON.stringify(key)}`);
    assert.deepEqual(e.details, { file: FILE, key });
  }
});

test('scenario.yaml: wrong types, missing keys, bounds, versions, names and globs are refused', () => {
  const bad: [string, RegExp][] = [
    ['', /must be a map/],
    ['- a\n- b\n', /must be a map/],
    ['name: books\nversion: 1\n', /missing key "areas"/],
    ['name: books\nareas: ["**"]\n', /missing key "version"/],
    ['name: books\nversion: 2\nareas: ["**"]\n', /version/],
    ['name: other\nversion: 1\nareas: ["**"]\n', /name "other" differs from its folder "books"/],
    ['name: books\nversion: 1\nareas: []\n', /areas/],
    ['name: books\nversion: 1\nareas: "Books/**"\n', /areas/],
    ['name: books\nversion: 1\nareas: ["{Books,Quotes}/**"]\n', /areas\[0\]: glob .* braces/],
    ['name: books\nversion: 1\nareas: ["../x/**"]\n', /areas\[0\]/],
    ['name: books\nversion: 1\nareas: ["**"]\ncontext: {limit: 0}\n', /context\.limit/],
    ['name: books\nversion: 1\nareas: ["**"]\ncontext: {budget_chars: 1.5}\n', /context\.budget_chars/],
    ['name: books\nversion: 1\nareas: ["**"]\nwrite: {frontmatter: {type: {}}}\n', /at least one of one_of, contains, type/],
    ['name: books\nversion: 1\nareas: ["**"]\nwrite: {frontmatter: {type: {type: date, one_of: [x]}}}\n', /not of type date/],
    ['name: books\nversion: 1\nareas: ["**"]\nwrite: {frontmatter: {type: {type: datetime}}}\n', /write\.frontmatter\.type\.type/],
    ['name: books\nversion: 1\nversion: 1\nareas: ["**"]\n', /not valid YAML/], // a duplicate key is not "the last one wins"
    ['name: books\nversion: 1\nareas: ["**"\n', /not valid YAML/],
  ];
  for (const [text, re] of bad) {
    const e = refusal(text);
    assert.equal(e.code, 'SCENARIO_INVALID', text);
    assert.ok(e.message.startsWith(FILE + ': '), e.message);
    assert.match(e.message, re, text);
  }
});

test('scenario.yaml: a property may be called __proto__ without touching any prototype', () => {
  const s = parse('name: books\nversion: 1\nareas: ["**"]\nwrite:\n  frontmatter:\n    __proto__: {type: string}\n    constructor: {type: number, optional: true}\n');
  assert.deepEqual(Object.keys(s.write.frontmatter), ['__proto__', 'constructor']);
  assert.deepEqual(s.write.frontmatter['__proto__'], { type: 'string' });
  assert.equal(({} as Record<string, unknown>).type, undefined);
});
