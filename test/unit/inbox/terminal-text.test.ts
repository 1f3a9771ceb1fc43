import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { cellWidth, truncate, wrapRows } from '../../../src/inbox/terminal/text.js';

test('wrapRows: rows end at word boundaries; a path or a word is never split between rows (issue 21 §4)', () => {
  const line = '+See Obsidian Sync/Plans and storage limits.md for the plans';
  const rows = wrapRows(line, 24);
  assert.deepEqual(rows, ['+See Obsidian Sync/Plans', ' and storage limits.md ', 'for the plans']);
  for (const word of line.split(' ')) assert.ok(rows.some((r) => r.includes(word)), `${word} is whole on one row`);
  // wide characters count two cells, and still break between words
  assert.deepEqual(wrapRows('学习 计划 笔记', 6), ['学习 ', '计划 ', '笔记']);
});

test('wrapRows: a word longer than a row breaks where the screen ends; a space past the end starts the next row', () => {
  assert.deepEqual(wrapRows('ab ' + 'x'.repeat(12), 5), ['ab ', 'xxxxx', 'xxxxx', 'xx']);
  assert.deepEqual(wrapRows('abcde fg', 5), ['abcde', ' fg']);
  assert.deepEqual(wrapRows('', 5), ['']);
});

test('wrapRows (property): the rows joined are the line, each fits the width, and no row ends inside a word that would fit the next', () => {
  const piece = fc.constantFrom('a', 'bb', 'path/to/note.md', ' ', '  ', '学', '😀', 'é', '-');
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 40 }), fc.integer({ min: 1, max: 30 }), (parts, width) => {
      const line = parts.join('');
      const rows = wrapRows(line, width);
      assert.equal(rows.join(''), line);
      for (const r of rows) assert.ok(cellWidth(r) <= width || [...r].length === 1, `${JSON.stringify(r)} fits ${width}`);
      for (let i = 0; i + 1 < rows.length; i++) {
        const a = rows[i]!;
        const b = rows[i + 1]!;
        if (/\s$/.test(a) || /^\s/.test(b)) continue;
        // a row ending mid-word is allowed only when that word could not fit on a row of its own
        const word = (/\S+$/.exec(a)?.[0] ?? '') + (/^\S+/.exec(b)?.[0] ?? '');
        assert.ok(cellWidth(word) > width || !/\s/.test(a), `${JSON.stringify(a)} | ${JSON.stringify(b)} split a word that fits ${width}`);
      }
    }),
  );
});

test('truncate still cuts hard, ending in …', () => {
  assert.equal(truncate('Obsidian Sync/Plans.md', 10), 'Obsidian …');
  assert.equal(truncate('short', 10), 'short');
});
