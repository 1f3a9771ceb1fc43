import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseNote } from '../../../../src/markdown/index.js';
import { planInsertion, unsafeRanges, type Position } from '../../../../src/wing/plan/index.js';

const LINK = '[[Origin load]]';
const plan = (text: string, position: Position, link = LINK) => planInsertion({ text, model: parseNote(text) }, position, link);
const reason = (f: () => unknown) => {
  try {
    f();
  } catch (e) {
    return `${(e as { code: string }).code}:${(e as { details?: { reason?: string } }).details?.reason}`;
  }
  return 'no error';
};
const at = (text: string, needle: string, listItem = false): Position => {
  const start = text.indexOf(needle);
  return { kind: 'fragment', range: { start, end: start + needle.length }, listItem };
};

const NOTE = `---
tags: [a]
---
# Cache

Entries expire after one hour.
The limit protects the origin.

- purge on deploy
- purge on release

| ttl | why |
|-----|-----|
| 3600 | load |

> [!tip] Cold start
> The first request misses.
lazy line of the callout

\`\`\`
code
\`\`\`

%% sync-managed %%
generated text
%% /sync-managed %%

## Next
Last words.`;

test('plan insertion: after the paragraph, list, table or callout holding the anchor, with blank lines around, bytes kept', () => {
  const p = plan(NOTE, at(NOTE, 'The limit protects'));
  assert.equal(p.insertion.text, '\n\n[[Origin load]]');
  assert.equal(p.newText, NOTE.replace('origin.\n', 'origin.\n\n[[Origin load]]\n'));
  assert.deepEqual(p.insertion.lines, [7, 8]);
  assert.equal(plan(NOTE, at(NOTE, 'purge on deploy')).newText, NOTE.replace('release\n', 'release\n\n[[Origin load]]\n'));
  assert.equal(plan(NOTE, at(NOTE, '| 3600 | load |')).newText, NOTE.replace('| load |\n', '| load |\n\n[[Origin load]]\n'));
  assert.equal(plan(NOTE, at(NOTE, 'The first request')).newText, NOTE.replace('callout\n', 'callout\n\n[[Origin load]]\n'));
});

test('plan insertion: a list item is appended only when asked, with the list’s own marker', () => {
  assert.equal(plan(NOTE, at(NOTE, 'purge on deploy', true)).newText, NOTE.replace('release\n', 'release\n- [[Origin load]]\n'));
  const numbered = '1. one\n2. two\n\nafter\n';
  assert.equal(plan(numbered, at(numbered, 'one', true)).newText, '1. one\n2. two\n3. [[Origin load]]\n\nafter\n');
  assert.equal(reason(() => plan(NOTE, at(NOTE, 'Entries expire', true))), 'POSITION_REFUSED:not_in_list');
});

test('plan insertion: --after-heading appends to the section; --line must end a block outside every protected structure', () => {
  assert.equal(plan(NOTE, { kind: 'heading', path: ['Cache', 'Next'] }).newText, NOTE + '\n\n[[Origin load]]');
  assert.equal(plan(NOTE, { kind: 'heading', path: ['Cache'] }).newText, NOTE.replace('/sync-managed %%\n', '/sync-managed %%\n\n[[Origin load]]\n'));
  assert.equal(reason(() => plan('# A\n\nx\n# A\n\ny\n', { kind: 'heading', path: ['A'] })), 'POSITION_REFUSED:heading_ambiguous');
  assert.equal(reason(() => plan(NOTE, { kind: 'heading', path: ['Nope'] })), 'HEADING_NOT_FOUND:undefined');
  const line = (n: number) => reason(() => plan(NOTE, { kind: 'line', line: n }));
  assert.equal(line(2), 'POSITION_REFUSED:inside_frontmatter');
  assert.equal(line(6), 'POSITION_REFUSED:inside_paragraph');
  assert.equal(line(9), 'POSITION_REFUSED:inside_list');
  assert.equal(line(12), 'POSITION_REFUSED:inside_table');
  assert.equal(line(16), 'POSITION_REFUSED:inside_callout');
  assert.equal(line(17), 'POSITION_REFUSED:inside_callout', 'the lazy line after it still belongs to the callout');
  assert.equal(line(18), 'no error', 'after the lazy line the callout has ended');
  assert.equal(reason(() => plan('> a quote\n> goes on\n', { kind: 'line', line: 1 })), 'POSITION_REFUSED:inside_quote');
  assert.equal(reason(() => plan('A setext\nheading\n---\n', { kind: 'line', line: 1 })), 'POSITION_REFUSED:inside_heading');
  assert.equal(line(20), 'POSITION_REFUSED:inside_code');
  assert.equal(line(24), 'POSITION_REFUSED:inside_managed_block');
  assert.equal(line(99), 'POSITION_REFUSED:line_out_of_range');
  assert.equal(line(3), 'no error', 'right after the frontmatter');
  assert.equal(line(7), 'no error', 'the last line of a paragraph');
  assert.equal(line(5), 'no error', 'a blank line');
  assert.equal(plan(NOTE, { kind: 'line', line: 5 }).newText, NOTE.replace('# Cache\n\n', '# Cache\n\n[[Origin load]]\n\n'));
});

test('plan insertion: CRLF notes get CRLF line breaks; the end of a note without a final newline stays without one', () => {
  const crlf = 'a para\r\nsecond line\r\n\r\n# H\r\n';
  assert.equal(plan(crlf, { kind: 'line', line: 2 }).newText, 'a para\r\nsecond line\r\n\r\n[[Origin load]]\r\n\r\n# H\r\n');
  assert.equal(plan('only', { kind: 'line', line: 1 }).newText, 'only\n\n[[Origin load]]');
  assert.equal(plan('only\n', { kind: 'line', line: 2 }).newText, 'only\n\n[[Origin load]]\n');
});

const piece = fc.constantFrom(
  'Plain words here.',
  'Another line.',
  'A [[Link]] inside.',
  '`code`',
  '- item one',
  '- item two',
  '1. numbered',
  '| a | b |\n|---|---|\n| 1 | 2 |',
  '> quoted text',
  '> [!note] Title',
  '```\ncode block\n```',
  '```\nunclosed',
  '# Heading',
  '## Sub',
  '',
  '%% comment %%',
  '%%\nblock comment\n%%',
  '%% x-managed %%\nmanaged\n%% /x-managed %%',
  '$$\nmath\n$$',
  '<div>\nhtml\n</div>',
  '---\nk: v\n---',
  '    indented code',
);

function structure(text: string): string[] {
  const m = parseNote(text);
  return [...m.protected.map((p) => `${p.kind}:${text.slice(p.range.start, p.range.end)}`), ...m.headings.map((h) => `h:${h.text}`), ...m.callouts.map((c) => `c:${c.title}`)].sort();
}

test('plan insertion (property): at any line, refused — or the link is one new link outside every structure, and every other byte and structure is kept', () => {
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 10 }), fc.constantFrom('\n', '\n\n'), fc.nat(), (parts, sep, k) => {
      const text = parts.join(sep);
      const lines = text.split('\n').length;
      const line = (k % lines) + 1;
      let r: ReturnType<typeof plan>;
      try {
        r = plan(text, { kind: 'line', line });
      } catch (e) {
        assert.equal((e as { code: string }).code, 'POSITION_REFUSED', String(e));
        return;
      }
      const at = r.insertion.range.start;
      assert.equal(r.newText.slice(0, at), text.slice(0, at));
      assert.equal(r.newText.slice(at + r.insertion.text.length), text.slice(at));
      assert.deepEqual(structure(r.newText), [...structure(text), `link:${LINK}`].sort(), JSON.stringify({ text, line }));
      const model = parseNote(r.newText);
      const linkAt = at + r.insertion.text.indexOf(LINK);
      const holders = unsafeRanges(r.newText, model).filter((u) => u.range.start < linkAt + LINK.length && linkAt < u.range.end && u.kind !== 'link');
      assert.deepEqual(holders, []);
    }),
    { numRuns: 1000 },
  );
});
