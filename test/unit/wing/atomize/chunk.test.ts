import assert from 'node:assert/strict';
import { test } from 'node:test';
import { markNarrative, splitChapters } from '../../../../src/wing/atomize/chapters.js';
import { cutChunks } from '../../../../src/wing/atomize/chunk.js';

const SRC = [
  '---',
  'title: t',
  '---',
  'Before any heading.',
  '',
  '# Book',
  '',
  '## One',
  '',
  'First paragraph of one, long enough to matter here.',
  '',
  '| a | b |',
  '|---|---|',
  '| 1 | 2 |',
  '| 3 | 4 |',
  '',
  '- item one',
  '- item two',
  '  continued',
  '',
  '```',
  'code line 1',
  '',
  'code line 3',
  '```',
  '',
  '### Deeper',
  '',
  'Still chapter one.',
  '',
  '## Two',
  '',
  'Second chapter text.',
  '',
].join('\n');

test('chapters: cut at level-1 and level-2 headings, frontmatter left out, narrative marked by heading', () => {
  const ch = splitChapters(SRC);
  assert.deepEqual(ch.map((c) => [c.id, c.heading, c.start_line, c.end_line]), [
    ['ch001', '', 4, 5],
    ['ch002', 'Book', 6, 7],
    ['ch003', 'One', 8, 30],
    ['ch004', 'Two', 31, 34],
  ]);
  markNarrative(ch, ['two']);
  assert.deepEqual(ch.map((c) => c.narrative), [false, false, false, true]);
  assert.throws(() => markNarrative(ch, ['Nope']), /names no chapter heading/);
});

test('chunks: never across a chapter, never inside a table, list or code block, whatever the size', () => {
  const ch = splitChapters(SRC);
  const lines = SRC.split('\n');
  const blocks = [
    [12, 15], // table
    [17, 19], // list
    [21, 25], // code with a blank line inside
  ];
  for (const max of [10, 40, 80, 200, 5000]) {
    const chunks = cutChunks(SRC, ch, max);
    for (const c of chunks) {
      const chapter = ch.find((x) => x.id === c.chapter)!;
      assert.ok(c.start_line >= chapter.start_line && c.end_line <= chapter.end_line, `max ${max}: ${c.id} inside ${chapter.id}`);
    }
    for (const [a, b] of blocks) {
      const holding = chunks.filter((c) => c.end_line >= a! && c.start_line <= b!);
      assert.equal(holding.length, 1, `max ${max}: block ${a}-${b} (${lines[a! - 1]}) in exactly one chunk`);
      assert.ok(holding[0]!.start_line <= a! && holding[0]!.end_line >= b!);
    }
    // a chunk never ends on a heading
    for (const c of chunks) assert.ok(!/^#/.test(lines[c.end_line - 1]!), `max ${max}: ${c.id} ends on ${lines[c.end_line - 1]}`);
  }
  // small chunks: one unit each (a heading glued to what follows it), never more
  assert.deepEqual(
    cutChunks(SRC, ch, 10).filter((c) => c.chapter === 'ch003').map((c) => [c.start_line, c.end_line]),
    [[8, 10], [12, 15], [17, 19], [21, 25], [27, 29]],
  );
  for (const c of cutChunks(SRC, ch, 120)) assert.ok(c.chars <= 120 || c.start_line === c.end_line || /^(#|\||-|`)/.test(SRC.split('\n')[c.start_line - 1]!), `${c.id} (${c.chars} chars) is over 120 only when one unit is`);
  assert.deepEqual(cutChunks(SRC, ch, 5000).map((c) => c.chapter), ['ch001', 'ch003', 'ch004'], 'with room, one chunk per chapter; a chapter that is only a heading has none');
});
