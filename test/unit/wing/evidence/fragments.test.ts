import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { noteFragments } from '../../../../src/wing/evidence/index.js';
import { parseNote } from '../../../../src/markdown/index.js';

const NOTE = `---
tags: [cache]
related: "[[Other]]"
---
# Cache lifetime

Entries expire after one hour. See [[v1.2 notes]] for why. Is that enough?
A soft-wrapped sentence
goes on here. ^why

- first item
- [ ] a task item
  with a continuation line
  - nested item
- last item

| key | ttl |
|-----|-----|
| user | 3600 |

> [!warning] Cold start
> The first request misses. Then it hits.

\`\`\`js
const ttl = 3600; // no fragment. Not prose.
\`\`\`

%% a comment. Not prose either. %%

$$
e = mc^2.
$$

Text with \`inline. code\` and $a.b$ stays one sentence.

---

## Second
Entries expire after one hour.
`;

const frags = () => noteFragments(NOTE, parseNote(NOTE));

test('fragments: sentences, list items and table rows, each an exact substring of the note', () => {
  const got = frags().map((f) => [f.kind, f.text]);
  assert.deepEqual(got, [
    ['sentence', 'Entries expire after one hour.'],
    ['sentence', 'See [[v1.2 notes]] for why.'],
    ['sentence', 'Is that enough?'],
    ['sentence', 'A soft-wrapped sentence\ngoes on here.'],
    ['list_item', 'first item'],
    ['list_item', 'a task item\n  with a continuation line'],
    ['list_item', 'nested item'],
    ['list_item', 'last item'],
    ['table_row', '| key | ttl |'],
    ['table_row', '| user | 3600 |'],
    ['sentence', 'Cold start'],
    ['sentence', 'The first request misses.'],
    ['sentence', 'Then it hits.'],
    ['sentence', 'Text with `inline. code` and $a.b$ stays one sentence.'],
    ['sentence', 'Entries expire after one hour.'],
  ]);
  for (const f of frags()) assert.equal(NOTE.slice(f.range.start, f.range.end), f.text);
});

test('fragments: frontmatter, code, comments and math yield none; a trailing block id is left out', () => {
  const texts = frags().map((f) => f.text).join('\n');
  for (const absent of ['tags', 'const ttl', 'a comment', 'mc^2', '^why']) assert.ok(!texts.includes(absent), absent);
});

test('fragments: heading paths and lines; a text found twice in the note is marked ambiguous', () => {
  const f = frags();
  assert.deepEqual(f[0]!.heading_path, ['Cache lifetime']);
  assert.deepEqual(f[0]!.lines, [7, 7]);
  assert.deepEqual(f[3]!.lines, [8, 9]);
  assert.deepEqual(f.at(-1)!.heading_path, ['Cache lifetime', 'Second']);
  assert.equal(f[0]!.ambiguous, true);
  assert.equal(f.at(-1)!.ambiguous, true);
  assert.equal(f[1]!.ambiguous, false);
});

test('fragments: CRLF notes give the same texts without carriage returns at the ends', () => {
  const crlf = NOTE.replace(/\n/g, '\r\n');
  const got = noteFragments(crlf, parseNote(crlf));
  assert.equal(got.length, frags().length);
  for (const f of got) {
    assert.equal(crlf.slice(f.range.start, f.range.end), f.text);
    assert.ok(!f.text.endsWith('\r'));
  }
});

const piece = fc.constantFrom(
  'Plain words here.',
  'A [[Link.with. dots]] inside.',
  '`code. with. dots`',
  '![[img.png]]',
  '$x.y$',
  '%%hidden. note%%',
  '[md. link](a.md)',
  '- item. one',
  '1. numbered. item',
  '| a. | b. |',
  '|---|---|',
  '> quoted. text',
  '> [!note] Title. here',
  '```\ncode. block\n```',
  '# Heading. one',
  '',
  'Вторая фраза. Третья!',
  '中文句子。第二句。',
);

test('fragments (property): exact substrings, in order, never overlapping, never cutting a protected range', () => {
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 12 }), fc.constantFrom('\n', '\n\n', ' '), (parts, sep) => {
      const text = parts.join(sep);
      const model = parseNote(text);
      const got = noteFragments(text, model);
      let last = -1;
      for (const f of got) {
        assert.equal(text.slice(f.range.start, f.range.end), f.text);
        assert.ok(f.range.start >= last, 'in order, no overlap');
        last = f.range.end;
        for (const p of model.protected) {
          const cuts = (p.range.start < f.range.start && f.range.start < p.range.end) || (p.range.start < f.range.end && f.range.end < p.range.end);
          // Fragments inside a list or table sit within it by design; any other protected range is whole or outside.
          if (p.kind !== 'list' && p.kind !== 'table') assert.ok(!cuts, `${JSON.stringify(f.text)} cuts ${p.kind} ${JSON.stringify(text.slice(p.range.start, p.range.end))}`);
        }
      }
    }),
    { numRuns: 300 },
  );
});
