import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseNote } from '../../../src/markdown/index.js';
import { crlf, marked } from './marks.js';

test('frontmatter: a leading --- block is parsed with the YAML 1.2 core schema', () => {
  const text = '---\ntitle: Hello\ncreated: 2024-01-05\nn: 3\nyes: yes\n---\n# Body\n';
  const fm = parseNote(text).frontmatter;
  assert.ok(fm);
  assert.deepEqual(fm.data, { title: 'Hello', created: '2024-01-05', n: 3, yes: 'yes' });
  assert.equal(fm.error, null);
  assert.equal(text.slice(fm.range.start, fm.range.end), '---\ntitle: Hello\ncreated: 2024-01-05\nn: 3\nyes: yes\n---');
  assert.equal(text.slice(fm.contentRange.start, fm.contentRange.end), 'title: Hello\ncreated: 2024-01-05\nn: 3\nyes: yes\n');
  assert.deepEqual([fm.startLine, fm.endLine], [1, 6]);
});

test('frontmatter: only a block starting on the first line and closed by --- counts', () => {
  assert.equal(parseNote('\n---\na: 1\n---\n').frontmatter, null);
  assert.equal(parseNote('---\na: 1\nno closing fence\n').frontmatter, null);
  assert.equal(parseNote('text\n---\n').frontmatter, null);
});

test('frontmatter: an empty block has null data and no error', () => {
  const m = parseNote('---\n---\nbody');
  assert.ok(m.frontmatter);
  assert.equal(m.frontmatter.data, null);
  assert.equal(m.frontmatter.error, null);
  assert.deepEqual(m.frontmatter.contentRange, { start: 4, end: 4 });
  assert.equal(m.sections.length, 1);
  assert.equal(m.sections[0]?.range.start, 8);
});

test('frontmatter: a note that is only frontmatter has no sections and no trailing body', () => {
  const m = parseNote('---\ntags: [a]\n---');
  assert.ok(m.frontmatter);
  assert.deepEqual(m.frontmatter.range, { start: 0, end: 17 });
  assert.deepEqual(m.sections, []);
  assert.deepEqual(m.tags.map((t) => t.name), ['a']);
});

test('frontmatter: broken YAML keeps the note, reports the error in note coordinates, and has null data', () => {
  const text = '---\ntitle: ok\n  bad: indent\n: x\n---\n# Still parsed [[Link]]\n';
  const m = parseNote(text);
  assert.ok(m.frontmatter?.error);
  assert.equal(m.frontmatter.data, null);
  assert.match(m.frontmatter.error.code, /^[A-Z_]+$/);
  assert.ok(m.frontmatter.error.line >= 2 && m.frontmatter.error.line <= 4, `line ${m.frontmatter.error.line}`);
  assert.ok(m.frontmatter.error.column >= 1);
  assert.deepEqual(m.headings.map((h) => h.text), ['Still parsed [[Link]]']);
  assert.deepEqual(m.links.map((l) => l.path), ['Link']);
});

test('frontmatter: an unapplied {{date}} template placeholder is reported as NON_SCALAR_KEY at its line', () => {
  const text = '---\ncategories:\n  - "[[Books]]"\ncreated: {{date}}\n---\n';
  const fm = parseNote(text).frontmatter;
  assert.equal(fm?.error?.code, 'NON_SCALAR_KEY');
  assert.equal(fm?.error?.line, 4);
  assert.equal(fm?.data, null);
  // The syntax is valid YAML, so the other properties' links still count.
  assert.deepEqual(parseNote(text).links.map((l) => [l.kind, l.path, l.property]), [['frontmatter', 'Books', 'categories']]);
});

test('frontmatter: duplicate keys are DUPLICATE_KEY at the second key', () => {
  const fm = parseNote('---\na: 1\nb: 2\na: 3\n---\n').frontmatter;
  assert.equal(fm?.error?.code, 'DUPLICATE_KEY');
  assert.deepEqual([fm?.error?.line, fm?.error?.column], [4, 1]);
});

test('frontmatter: an alias bomb is refused as an error, not expanded', () => {
  const lines = ['a: &a ["x","x","x","x","x","x","x","x","x"]'];
  for (let i = 1; i < 12; i++) lines.push(`${String.fromCharCode(97 + i)}: &${String.fromCharCode(97 + i)} [${Array(9).fill('*' + String.fromCharCode(96 + i)).join(',')}]`);
  const fm = parseNote(`---\n${lines.join('\n')}\n---\n`).frontmatter;
  assert.ok(fm?.error);
  assert.equal(fm.data, null);
});

test('frontmatter: quoted wikilinks in values and list items are frontmatter links pointing into the YAML', () => {
  const { text, ranges } = marked('---\nup: "«[[Parent]]»"\ncategories: ["«[[Books]]»", \'«[[Ideas#Top|t]]»\']\nrelated:\n  - "«[[A]]»"\n  - plain text\nunquoted: [[NotALink]]\n---\nbody');
  const links = parseNote(text).links;
  assert.deepEqual(links.map((l) => l.range), ranges);
  assert.deepEqual(
    links.map((l) => [l.kind, l.raw, l.path, l.subpath, l.display, l.property, l.startLine]),
    [
      ['frontmatter', '[[Parent]]', 'Parent', null, null, 'up', 2],
      ['frontmatter', '[[Books]]', 'Books', null, null, 'categories', 3],
      ['frontmatter', '[[Ideas#Top|t]]', 'Ideas', 'Top', 't', 'categories', 3],
      ['frontmatter', '[[A]]', 'A', null, null, 'related', 5],
    ],
  );
});

test('frontmatter: tags from tags/tag as a list or a string, # optional, YAML comments are not tags', () => {
  const { text, ranges } = marked('---\ntags:\n  - «project/alpha»\n  - "«#b»"\n  - #react\ntag: «one», «two»\n---\n');
  const m = parseNote(text);
  assert.deepEqual(m.tags.map((t) => [t.name, t.source]), [
    ['project/alpha', 'frontmatter'],
    ['b', 'frontmatter'],
    ['one', 'frontmatter'],
    ['two', 'frontmatter'],
  ]);
  assert.deepEqual(m.tags.map((t) => t.range), ranges);
  assert.deepEqual((m.frontmatter?.data as { tags: unknown[] }).tags, ['project/alpha', '#b', null]);
});

test('frontmatter: aliases from aliases or alias, as a string or a list of strings', () => {
  assert.deepEqual(parseNote('---\naliases: [AI, "Artificial intelligence", 3]\n---\n').aliases, ['AI', 'Artificial intelligence']);
  assert.deepEqual(parseNote('---\nalias: Solo name\n---\n').aliases, ['Solo name']);
  assert.deepEqual(parseNote('no frontmatter').aliases, []);
});

test('frontmatter: CRLF fences and content give exact ranges with no \\r in the data', () => {
  const text = crlf('---\nup: "[[Parent]]"\ntags: [x]\n---\n# H\n');
  const m = parseNote(text);
  assert.ok(m.frontmatter);
  assert.equal(text.slice(m.frontmatter.range.start, m.frontmatter.range.end), '---\r\nup: "[[Parent]]"\r\ntags: [x]\r\n---');
  assert.deepEqual(m.frontmatter.data, { up: '[[Parent]]', tags: ['x'] });
  assert.equal(m.links[0]?.raw, '[[Parent]]');
  assert.equal(m.headings[0]?.text, 'H');
  assert.equal(m.headings[0]?.startLine, 5);
});

test('frontmatter: a block over the size limit is reported, not parsed, and the body still parses', () => {
  const m = parseNote(`---\n${'k: "[[x]]"\n'.repeat(120_000)}---\n# After [[Body]]`);
  assert.equal(m.frontmatter?.error?.code, 'FRONTMATTER_TOO_LARGE');
  assert.equal(m.frontmatter?.error?.line, 2);
  assert.equal(m.frontmatter?.data, null);
  assert.deepEqual(m.links.map((l) => l.path), ['Body']);
  assert.deepEqual(m.headings.map((h) => h.text), ['After [[Body]]']);
});
