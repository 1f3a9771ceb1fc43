import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseNote, type NoteModel } from '../../../src/markdown/index.js';
import { crlf } from './marks.js';

const SAMPLE = [
  '---',
  'up: "[[Parent]]"',
  'tags: [t1]',
  '---',
  'Intro with #tag and [[Link#Sec|shown]].',
  '',
  'Setext title',
  '============',
  '',
  '## Table',
  '',
  '| a | b |',
  '|---|---|',
  '| [[x\\|y]] | `c` |',
  '',
  '^tbl',
  '',
  '> [!note] Callout',
  '> body ^q',
  '',
  '%%',
  '[[Hidden]]',
  '%%',
  '',
  '```',
  '[[code]]',
  '```',
  '',
  '- item [t](a%20b.md) ^li',
].join('\n');

/** Everything but offsets, for comparing an LF note with its CRLF twin. */
function shape(m: NoteModel) {
  return {
    headings: m.headings.map((h) => [h.level, h.style, h.text, h.startLine, h.endLine]),
    sections: m.sections.map((s) => [s.headingPath, s.startLine, s.endLine]),
    links: m.links.map((l) => [l.kind, l.raw, l.path, l.subpath, l.display, l.inComment, l.startLine]),
    tags: m.tags.map((t) => [t.name, t.source, t.startLine]),
    blockIds: m.blockIds.map((b) => [b.id, b.startLine]),
    callouts: m.callouts.map((c) => [c.type, c.title, c.startLine, c.endLine]),
    protected: m.protected.map((p) => [p.kind, p.startLine, p.endLine]),
    data: m.frontmatter?.data,
  };
}

test('CRLF: a CRLF note has the same elements and lines as its LF twin, and no \\r in any text', () => {
  const lf = parseNote(SAMPLE);
  const text = crlf(SAMPLE);
  const m = parseNote(text);
  assert.deepEqual(shape(m), shape(lf));
  assert.equal(m.lineStarts.length, lf.lineStarts.length);
  const all = [...m.headings, ...m.links, ...m.tags, ...m.blockIds, ...m.callouts, ...m.protected];
  for (const el of all) {
    const s = text.slice(el.range.start, el.range.end);
    assert.ok(!s.endsWith('\r'), `range ends with \\r: ${JSON.stringify(s)}`);
  }
  for (const h of m.headings) assert.ok(!h.text.includes('\r'));
  for (const l of m.links) assert.ok(!`${l.path}${l.subpath}${l.display}`.includes('\r'));
  assert.equal(m.protected.filter((p) => p.kind === 'table').length, 1, 'a CRLF table is still a table');
  assert.deepEqual(m.links.map((l) => l.raw), lf.links.map((l) => l.raw));
});

test('CRLF: a lone \\r is not a line break', () => {
  const m = parseNote('a\rb\n# H');
  assert.deepEqual(m.lineStarts, [0, 4]);
  assert.equal(m.headings[0]?.startLine, 2);
});

test('edges: a note with no trailing newline, only blank lines, or only a heading parses', () => {
  assert.deepEqual(parseNote('\n\n\n').sections, []);
  assert.deepEqual(parseNote('# Only').sections.map((s) => s.range), [{ start: 0, end: 6 }]);
  assert.equal(parseNote('[[Last]]').links[0]?.range.end, 8);
});

test('edges: a 2 MB single-line base64 image parses without becoming a vault link', () => {
  const text = `# Pic\n\n![](data:image/png;base64,${'QUFB'.repeat(512 * 1024)}) after [[Real]]\n`;
  const m = parseNote(text);
  assert.deepEqual(m.links.map((l) => l.path), ['Real']);
  assert.equal(m.protected.filter((p) => p.kind === 'embed').length, 1);
});

test('edges: pathological long lines of openers parse (each scan is bounded)', () => {
  for (const text of ['[['.repeat(100_000), '$a '.repeat(100_000), '%% '.repeat(100_001), ' #'.repeat(100_000), '!['.repeat(100_000)]) {
    const m = parseNote(text);
    assert.equal(m.length, text.length);
  }
});

test('edges: a bracket-heavy paragraph (lezer would be quadratic) still yields its Markdown links with exact ranges', () => {
  const text = `${'[a](b%20c.md) ![i](p.png) ] '.repeat(1500)}[[W|w]] [x](https://e.org)`;
  const m = parseNote(text);
  assert.equal(m.links.filter((l) => l.kind === 'markdown').length, 1500);
  assert.equal(m.links.filter((l) => l.kind === 'embed').length, 1500);
  assert.deepEqual(m.links[0] && [m.links[0].raw, m.links[0].path, m.links[0].display], ['[a](b%20c.md)', 'b c.md', 'a']);
  assert.equal(m.links[m.links.length - 1]?.path, 'W');
  for (const l of m.links) assert.equal(text.slice(l.range.start, l.range.end), l.raw);
  assert.equal(m.protected.filter((p) => p.kind === 'link').length, 1502);
});

test('edges: unclosed inline HTML openers are text, closed ones still hide their content', () => {
  const open = parseNote(`x ${'<!-- '.repeat(2000)}[[Seen]] and <? and <![CDATA[ and <b end *a _b`);
  assert.deepEqual(open.links.map((l) => l.path), ['Seen']);
  const closed = parseNote('x <!-- [[Hidden]] --> and <span>[[Shown]]</span>');
  assert.deepEqual(closed.links.map((l) => l.path), ['Shown']);
  assert.deepEqual(closed.protected.map((p) => p.kind), ['html', 'link']);
});

test('edges: a backtick run with no equal run ahead is text; matched runs are still inline code', () => {
  let growing = '';
  for (let k = 3; k <= 300; k++) growing += `a${'`'.repeat(k)} `;
  const m = parseNote(`${growing}[[After]] \`[[inCode]]\` \`\`x \` y\`\` [[Last]]`);
  assert.deepEqual(m.links.map((l) => l.path), ['After', 'Last']);
  assert.deepEqual(m.protected.filter((p) => p.kind === 'inline-code').length, 2);
});
