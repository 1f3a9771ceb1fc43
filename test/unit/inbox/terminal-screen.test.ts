/**
 * What the terminal inbox draws, without a terminal: every frame is exactly the
 * screen's height minus one and every line exactly its width (an 80×24
 * terminal included), whatever agents put in titles and notes; hostile text is
 * inert; long lines wrap by cells (wide characters count two).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { endPos, scrollBy, TOP, visibleRows, type BodyLine } from '../../../src/inbox/terminal/body-view.js';
import { initialState, update, type InboxState, type Msg } from '../../../src/inbox/terminal/model.js';
import { frame, frameText } from '../../../src/inbox/terminal/screen.js';
import { cellWidth, fit, printable, truncate, wrapRows } from '../../../src/inbox/terminal/text.js';
import { event, queuePage, shown, summary, T0 } from './terminal-fixtures.js';

const HOSTILE = 'evil \x1b[2J\x1b]0;pwned\x07 title \u202eexe.txt\u202c 漢字テキスト 🎉 ' + 'long '.repeat(40);

function state(size: { rows: number; cols: number }, msgs: Msg[]): InboxState {
  let s = initialState(size, T0).state;
  for (const m of msgs) s = update(s, m).state;
  return s;
}

function assertGrid(s: InboxState, what: string): string {
  const lines = frame(s);
  const rows = Math.max(10, s.size.rows - 1);
  const cols = Math.max(20, s.size.cols);
  assert.equal(lines.length, rows, `${what}: ${lines.length} lines`);
  for (const [i, l] of lines.entries()) {
    const text = l.map((x) => x.text).join('');
    assert.equal(cellWidth(text), cols, `${what}: line ${i} is ${cellWidth(text)} cells: ${JSON.stringify(text)}`);
    assert.doesNotMatch(text, /[\x00-\x08\x0a-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]/, `${what}: line ${i} holds a control character`);
  }
  return frameText(lines);
}

const hostileQueue = (total: number): Msg[] => [
  { type: 'listed', generation: 0, page: 0, total, rows: queuePage(total, 0, (n) => (n % 2 ? { title: HOSTILE, agent: 'ag\x1bent', files: [{ path: `漢字/${n}\x1b.md`, action: 'write' }], blocking: ['base', 'links'] } : { warnings: 3 })) },
  { type: 'shown', id: `p-${total}`, data: shown(`p-${total}`, { title: HOSTILE, diff: `diff --git a/a.md b/a.md\n@@ -1 +1 @@\n-${HOSTILE}\n+\ttabbed ${HOSTILE}\n` }) },
];

test('screen: an 80×24 terminal gets 23 lines of exactly 80 cells on every screen, with hostile titles, paths and diffs made inert', () => {
  const size = { rows: 24, cols: 80 };
  const list = state(size, hostileQueue(1000));
  const text = assertGrid(list, 'queue');
  assert.match(text, / vaultgate inbox .*open: 1000/);
  assert.match(text, /^> p-1000 +pending/m);
  assert.match(text, /<U\+001B>\[2J/, 'the escape is shown, not sent');
  assert.match(text, /<U\+202E>exe\.txt/, 'the bidi override is shown, not obeyed');
  const detail = update(list, { type: 'key', key: { kind: 'named', name: 'enter' } }).state;
  assertGrid(detail, 'proposal view');
  assertGrid(update(detail, { type: 'key', key: { kind: 'char', char: 'G' } }).state, 'proposal view at its end');
  const history = state(size, [...hostileQueue(3), { type: 'key', key: { kind: 'named', name: 'tab' } }, { type: 'logged', generation: 0, page: 0, total: 2, rows: [event(2, { actor: HOSTILE, details: { reason: HOSTILE }, event: 'declined' }), event(1)] }]);
  assertGrid(history, 'history');
  assertGrid(update(list, { type: 'key', key: { kind: 'char', char: '?' } }).state, 'help');
  const prompt = state(size, [...hostileQueue(3), { type: 'key', key: { kind: 'char', char: 'x' } }, ...[...HOSTILE].map((c): Msg => ({ type: 'key', key: { kind: 'char', char: c } }))]);
  assertGrid(prompt, 'decline prompt');
});

test('screen: any terminal size from 20×10 up gives a full grid (small screens drop columns, not lines)', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 120 }), fc.integer({ min: 1, max: 260 }), fc.constantFrom('queue', 'detail', 'history'), (rows, cols, where) => {
      let s = state({ rows, cols }, hostileQueue(60));
      if (where === 'detail') s = update(s, { type: 'key', key: { kind: 'named', name: 'enter' } }).state;
      if (where === 'history') s = update(s, { type: 'key', key: { kind: 'named', name: 'tab' } }).state;
      assertGrid(s, `${cols}×${rows} ${where}`);
    }),
    { numRuns: 40 },
  );
});

test('screen: an empty queue says so and how to see the others', () => {
  const text = frameText(frame(state({ rows: 24, cols: 80 }, [{ type: 'listed', generation: 0, page: 0, total: 0, rows: [] }])));
  assert.match(text, /no open proposals/);
  assert.match(text, /s: show applied, declined, all/);
});

test('screen: the list row shows id, state, title, agent, files, age and what blocks', () => {
  const s = state({ rows: 24, cols: 80 }, [{ type: 'listed', generation: 0, page: 0, total: 1, rows: [summary(1, { state: 'blocked', title: 'Hotter oven', blocking: ['base'], files: [{ path: 'a.md', action: 'write' }, { path: 'b.md', action: 'delete' }] })] }]);
  const row = frameText(frame(s)).split('\n')[2]!;
  assert.match(row, /^> p-1 +blocked +Hotter oven +claude +2f +1m +x base/);
});

test('text: wrapRows cuts by cells and loses nothing; printable leaves no control character', () => {
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom('a', ' ', '漢', '🎉', 'é', 'x', '-') , maxLength: 300 }), fc.integer({ min: 2, max: 90 }), (s, width) => {
      const rows = wrapRows(s, width);
      assert.equal(rows.join(''), s);
      for (const r of rows) assert.ok(cellWidth(r) <= width, `${JSON.stringify(r)} in ${width}`);
    }),
  );
  assert.equal(printable('a\tb\x1b[31mc\u202ed\x9b'), 'a    b<U+001B>[31mc<U+202E>d<U+009B>');
});

test('body: scrolling down then up by the same rows comes back; the window never holds more rows than the screen', () => {
  const lines: BodyLine[] = Array.from({ length: 120 }, (_, i) => ({ text: `${i} ` + 'w'.repeat((i * 37) % 230), tone: 'plain' }));
  fc.assert(
    fc.property(fc.integer({ min: 10, max: 100 }), fc.integer({ min: 2, max: 40 }), fc.integer({ min: 0, max: 300 }), fc.integer({ min: 0, max: 50 }), (width, height, down, up) => {
      const end = endPos(lines, width, height);
      const a = scrollBy(lines, TOP, down, width, height);
      const b = scrollBy(lines, a, -up, width, height);
      const above = lines.slice(0, a.line).reduce((n, l) => n + wrapRows(l.text, width).length, 0) + a.row;
      if (up <= above) assert.deepEqual(scrollBy(lines, b, up, width, height), a);
      else assert.deepEqual(b, TOP);
      assert.ok(a.line < end.line || (a.line === end.line && a.row <= end.row));
      const rows = visibleRows(lines, a, width, height);
      assert.ok(rows.length <= height);
      assert.equal(visibleRows(lines, end, width, height).length, Math.min(height, lines.reduce((n, l) => n + wrapRows(l.text, width).length, 0)));
    }),
    { numRuns: 80 },
  );
});

test('text: truncate never returns more cells than asked, even 1 cell or a wide first character (a 26-column queue header once came out 27 wide)', () => {
  assert.equal(truncate('agent', 1), '…');
  assert.equal(truncate('漢字', 2), '…');
  assert.equal(truncate('漢字', 3), '漢…');
  assert.equal(truncate('agent', 5), 'agent');
  fc.assert(
    fc.property(fc.string({ unit: 'grapheme', maxLength: 20 }), fc.integer({ min: 0, max: 12 }), (text, width) => {
      const t = truncate(text, width);
      assert.ok(cellWidth(t) <= width, `${JSON.stringify(t)} is ${cellWidth(t)} cells, asked ${width}`);
      if (cellWidth(text) <= width) assert.equal(t, text);
      assert.equal(cellWidth(fit(text, width)), width);
    }),
    { numRuns: 500 },
  );
});
