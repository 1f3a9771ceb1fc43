/**
 * The terminal inbox's view model without a terminal: windowing, paging,
 * filtering, the keys, and the apply/decline/rollback flows as effects. Each
 * action must become exactly the operation the CLI would run (apply with the
 * hash of the review the person was shown), and the model must never ask for
 * more of a long queue than the screen shows.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { DIFF_LINE_CHARS, DIFF_PAGE_LINES, initialState, update, type Effect, type InboxState, type Msg } from '../../../src/inbox/terminal/model.js';
import type { Key } from '../../../src/inbox/terminal/keys.js';
import { keysFromInk } from '../../../src/inbox/terminal/keys.js';
import { evictPages, followCursor, MAX_PAGES, PAGE_SIZE, pagesFor } from '../../../src/inbox/terminal/window.js';
import { appliedView, event, HASH, queuePage, reviewed, shown, summary, T0 } from './terminal-fixtures.js';

const SIZE = { rows: 24, cols: 80 };

/** Feed messages; collect every effect asked for. */
function run(s: InboxState, msgs: Msg[]): { state: InboxState; effects: Effect[] } {
  let state = s;
  const effects: Effect[] = [];
  for (const m of msgs) {
    const u = update(state, m);
    state = u.state;
    effects.push(...u.effects);
  }
  return { state, effects };
}

const char = (c: string): Msg => ({ type: 'key', key: { kind: 'char', char: c } });
const named = (name: Extract<Key, { kind: 'named' }>['name']): Msg => ({ type: 'key', key: { kind: 'named', name } });
const type = (text: string): Msg[] => [...text].map(char);

/** A queue of `total` open proposals, its first page loaded and the first one shown. */
function loaded(total: number): InboxState {
  const init = initialState(SIZE, T0);
  assert.deepEqual(init.effects, [{ kind: 'list', generation: 0, page: 0, view: 'open', filter: '' }]);
  const r = run(init.state, [{ type: 'listed', generation: 0, page: 0, total, rows: queuePage(total, 0) }]);
  if (total > 0) {
    assert.deepEqual(r.effects, [{ kind: 'show', id: `p-${total}` }], 'only the selected proposal is loaded');
    return run(r.state, [{ type: 'shown', id: `p-${total}`, data: shown(`p-${total}`) }]).state;
  }
  return r.state;
}

test('window: the cursor is always on screen, the window never runs past the end, and the pages asked for cover exactly the rows shown', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 1, max: 60 }), fc.integer({ min: 0, max: 5000 }), fc.integer({ min: 0, max: 5000 }), (total, height, top0, c) => {
      if (total === 0) return;
      const cursor = c % total;
      const top = followCursor(top0 % total, cursor, height, total);
      assert.ok(top <= cursor && cursor < top + height, `cursor ${cursor} in [${top}, ${top + height})`);
      assert.ok(top >= 0 && top <= Math.max(0, total - height));
      const pages = pagesFor(top, height, total);
      for (let i = top; i < Math.min(total, top + height); i++) assert.ok(pages.includes(Math.floor(i / PAGE_SIZE)));
      assert.ok(pages.length <= Math.ceil(height / PAGE_SIZE) + 1);
    }),
  );
});

test('window: evicting keeps the pages on screen and at most MAX_PAGES', () => {
  const pages: Record<number, number[]> = {};
  for (let p = 0; p < 20; p++) pages[p] = [p];
  const kept = evictPages(pages, [19, 18], 19);
  assert.equal(Object.keys(kept).length, MAX_PAGES);
  assert.ok(19 in kept && 18 in kept && !(0 in kept), 'the farthest go first');
});

test('model: a queue of 1,000 loads one page, G asks for the last page only, g goes back without asking again', () => {
  let s = loaded(1000);
  assert.equal(s.queue.total, 1000);
  assert.deepEqual(Object.keys(s.queue.pages), ['0']);
  let r = run(s, [char('G')]);
  assert.equal(r.state.queue.cursor, 999);
  assert.equal(r.state.queue.top, 993, 'the last 7 rows (an 80×24 list) are on screen');
  assert.deepEqual(r.effects, [{ kind: 'list', generation: 0, page: 19, view: 'open', filter: '' }], 'only the page with the last rows');
  r = run(r.state, [{ type: 'listed', generation: 0, page: 19, total: 1000, rows: queuePage(1000, 19) }]);
  assert.deepEqual(r.effects, [{ kind: 'show', id: 'p-1' }], 'the oldest is selected and only it is loaded');
  s = r.state;
  r = run(s, [char('g')]);
  assert.equal(r.state.queue.cursor, 0);
  assert.deepEqual(r.effects, [{ kind: 'show', id: 'p-1000' }], 'page 0 is still loaded');
});

test('model: holding j through 1,000 rows asks for each page once and keeps at most MAX_PAGES in memory', () => {
  let s = loaded(1000);
  const lists: number[] = [];
  for (let i = 0; i < 999; i++) {
    const u = update(s, char('j'));
    s = u.state;
    for (const e of u.effects) {
      if (e.kind === 'list') {
        lists.push(e.page);
        s = update(s, { type: 'listed', generation: e.generation, page: e.page, total: 1000, rows: queuePage(1000, e.page) }).state;
      }
    }
    assert.ok(Object.keys(s.queue.pages).length <= MAX_PAGES);
  }
  assert.deepEqual(lists, Array.from({ length: 19 }, (_, i) => i + 1));
  assert.equal(s.queue.cursor, 999);
});

test('model: an answer to an older query is dropped (the filter changed meanwhile)', () => {
  let s = loaded(100);
  const r = run(s, [char('/'), ...type('bread'), named('enter')]);
  assert.deepEqual(r.effects, [{ kind: 'list', generation: 1, page: 0, view: 'open', filter: 'bread' }]);
  assert.equal(r.state.queue.total, null);
  s = run(r.state, [{ type: 'listed', generation: 0, page: 1, total: 100, rows: queuePage(100, 1) }]).state;
  assert.equal(s.queue.total, null, 'generation 0 is gone');
  s = run(s, [{ type: 'listed', generation: 1, page: 0, total: 2, rows: [summary(7), summary(3)] }]).state;
  assert.equal(s.queue.total, 2);
  assert.equal(s.filter, 'bread');
});

test('model: / edits a filter (backspace, Ctrl-U), Esc cancels it, and Esc in the list clears an applied one', () => {
  const s = loaded(10);
  let r = run(s, [char('/'), ...type('abc'), named('backspace')]);
  assert.deepEqual(r.state.mode, { kind: 'filter', text: 'ab' });
  r = run(r.state, [{ type: 'key', key: { kind: 'ctrl', char: 'u' } }]);
  assert.deepEqual(r.state.mode, { kind: 'filter', text: '' });
  r = run(r.state, [...type('q'), named('escape')]);
  assert.deepEqual(r.state.mode, { kind: 'normal' });
  assert.equal(r.state.filter, '', 'q typed into the filter is text, not quit');
  assert.equal(r.state.quit, false);
  r = run(s, [char('/'), ...type('x'), named('enter')]);
  assert.equal(r.state.filter, 'x');
  r = run(r.state, [named('escape')]);
  assert.equal(r.state.filter, '');
  assert.deepEqual(r.effects.at(-1), { kind: 'list', generation: 2, page: 0, view: 'open', filter: '' });
});

test('model: s cycles open → applied → declined → all, each a new query', () => {
  let s = loaded(3);
  const views: string[] = [];
  for (let i = 0; i < 4; i++) {
    const r = run(s, [char('s')]);
    s = r.state;
    views.push((r.effects[0] as Extract<Effect, { kind: 'list' }>).view);
  }
  assert.deepEqual(views, ['applied', 'declined', 'all', 'open']);
});

test('model: a reviews first, asks y/n over that review, and y applies exactly its hash', () => {
  const s = loaded(3);
  let r = run(s, [char('a')]);
  assert.deepEqual(r.effects, [{ kind: 'review', id: 'p-3', purpose: 'apply' }], 'the shown proposal is reviewed again, nothing applied yet');
  assert.equal(r.state.mode.kind, 'busy');
  const fresh = 'b'.repeat(64);
  r = run(r.state, [{ type: 'reviewed', id: 'p-3', purpose: 'apply', data: reviewed('p-3', fresh) }]);
  assert.deepEqual(r.state.mode, { kind: 'confirm', id: 'p-3', review_hash: fresh });
  assert.equal(r.state.screen, 'detail', 'the review is on screen while the question is asked');
  assert.equal(r.state.detail?.data?.review_hash, fresh);
  assert.ok(r.state.detail!.body.some((l) => l.text === '+newer'), 'the diff shown is the fresh review’s');
  assert.deepEqual(r.effects, []);
  // keys other than y/n do not apply; j scrolls the review; a late answer to an earlier show does not replace it
  r = run(r.state, [char('a'), char('x'), char('j'), { type: 'shown', id: 'p-3', data: shown('p-3', { review_hash: 'c'.repeat(64), diff: '+stale\n' }) }]);
  assert.equal(r.state.detail?.data?.review_hash, fresh);
  assert.equal(r.state.mode.kind, 'confirm');
  r = run(r.state, [char('y')]);
  assert.deepEqual(r.effects, [{ kind: 'apply', id: 'p-3', review_hash: fresh }]);
  r = run(r.state, [{ type: 'applied', id: 'p-3', data: appliedView('p-3') }]);
  assert.match(r.state.message!.text, /^applied p-3 as proposal-p-3-00000000: a\.md$/);
  assert.ok(r.effects.some((e) => e.kind === 'list') && r.effects.some((e) => e.kind === 'show' && e.id === 'p-3'), 'the list and the proposal reload');
});

test('model: n cancels an apply; a review without a hash (blocked by base) asks nothing', () => {
  const s = loaded(3);
  let r = run(s, [char('a'), { type: 'reviewed', id: 'p-3', purpose: 'apply', data: reviewed('p-3', HASH) }, char('n')]);
  assert.deepEqual(r.state.mode, { kind: 'normal' });
  assert.ok(!r.effects.some((e) => e.kind === 'apply'));
  r = run(s, [char('a'), { type: 'reviewed', id: 'p-3', purpose: 'apply', data: reviewed('p-3', null, 'blocked', ['base']) }]);
  assert.deepEqual(r.state.mode, { kind: 'normal' });
  assert.match(r.state.message!.text, /p-3 cannot be applied: base/);
});

test('model: a stale apply (exit 75) shows the typed error and offers r, which reviews again', () => {
  const s = loaded(3);
  let r = run(s, [char('a'), { type: 'reviewed', id: 'p-3', purpose: 'apply', data: reviewed('p-3', HASH) }, char('y')]);
  r = run(r.state, [{ type: 'failed', action: 'apply', id: 'p-3', error: { code: 'APPROVAL_MISMATCH', message: 'the review of p-3 changed since it was approved', hint: 'Run review again.', exit: 75 } }]);
  assert.equal(r.state.message!.text, 'error [APPROVAL_MISMATCH]: the review of p-3 changed since it was approved');
  assert.match(r.state.message!.hint!, /^r: review it again · Run review again\.$/);
  r = run(r.state, [char('r')]);
  assert.deepEqual(r.effects, [{ kind: 'review', id: 'p-3', purpose: 'recheck' }]);
});

test('model: x asks a reason and declines with exactly that text; Esc declines nothing', () => {
  const s = loaded(3);
  let r = run(s, [char('x'), ...type('not now, q later'), named('enter')]);
  assert.deepEqual(r.effects, [{ kind: 'decline', id: 'p-3', reason: 'not now, q later' }]);
  r = run(r.state, [{ type: 'declined', id: 'p-3', reason: 'not now, q later' }]);
  assert.equal(r.state.message!.text, 'declined p-3: not now, q later');
  r = run(s, [char('x'), ...type('hm'), named('escape')]);
  assert.deepEqual(r.effects, []);
  assert.deepEqual(r.state.mode, { kind: 'normal' });
});

test('model: action keys follow the state: u rolls back an applied proposal, a on it only explains', () => {
  const init = initialState(SIZE, T0).state;
  let r = run(init, [char('s')]);
  const gen = r.state.queue.generation;
  r = run(r.state, [{ type: 'listed', generation: gen, page: 0, total: 1, rows: [summary(5, { state: 'applied' })] }, { type: 'shown', id: 'p-5', data: shown('p-5', { state: 'applied' }) }]);
  const s = r.state;
  r = run(s, [char('a')]);
  assert.deepEqual(r.effects, []);
  assert.match(r.state.message!.text, /p-5 is applied: nothing to apply/);
  r = run(s, [char('u')]);
  assert.deepEqual(r.effects, [{ kind: 'rollback', id: 'p-5' }]);
});

test('model: a reload keeps the selection on the same proposal when new ones arrive above it', () => {
  let s = loaded(10);
  s = run(s, [char('j'), char('j')]).state; // p-8
  assert.equal(s.queue.cursor, 2);
  // two new proposals p-11, p-12 arrive on top
  const r = run(s, [{ type: 'tick', now: T0 + 3000 }]);
  assert.deepEqual(r.effects, [{ kind: 'list', generation: 0, page: 0, view: 'open', filter: '' }]);
  s = run(r.state, [{ type: 'listed', generation: 0, page: 0, total: 12, rows: queuePage(12, 0) }]).state;
  assert.equal(s.queue.cursor, 4);
  assert.equal(s.queue.pages[0]![4]!.id, 'p-8');
});

test('model: the proposal view scrolls a long diff by rows, page and ends, and Esc goes back to the list', () => {
  const diff = ['diff --git a/a.md b/a.md', '--- a/a.md', '+++ b/a.md', '@@ -1,200 +1,200 @@', ...Array.from({ length: 200 }, (_, i) => `+line ${i} ${'x'.repeat(i % 3 === 0 ? 150 : 10)}`)].join('\n');
  let s = initialState(SIZE, T0).state;
  s = run(s, [{ type: 'listed', generation: 0, page: 0, total: 1, rows: [summary(1)] }, { type: 'shown', id: 'p-1', data: shown('p-1', { diff }) }, named('enter')]).state;
  assert.equal(s.screen, 'detail');
  s = run(s, [char('j'), char('j')]).state;
  assert.deepEqual(s.detail!.pos, { line: 2, row: 0 });
  s = run(s, [char('G')]).state;
  const end = s.detail!.pos;
  s = run(s, [char('j'), char(' ')]).state;
  assert.deepEqual(s.detail!.pos, end, 'not past the end');
  s = run(s, [named('pageup'), char('g')]).state;
  assert.deepEqual(s.detail!.pos, { line: 0, row: 0 });
  s = run(s, [named('escape')]).state;
  assert.equal(s.screen, 'list');
});

test('model: tab opens the history (the audit log, paged), enter opens the event’s proposal, q quits', () => {
  let r = run(loaded(3), [named('tab')]);
  assert.deepEqual(r.effects, [{ kind: 'log', generation: 0, page: 0 }]);
  r = run(r.state, [{ type: 'logged', generation: 0, page: 0, total: 2, rows: [event(2, { event: 'declined', details: { reason: 'no' } }), event(1)] }, named('enter')]);
  assert.equal(r.state.screen, 'detail');
  assert.deepEqual(r.effects.at(-1), { kind: 'show', id: 'p-2' });
  r = run(r.state, [char('q')]);
  assert.equal(r.state.quit, true);
  assert.deepEqual(r.effects.at(-1), { kind: 'quit' });
});

test('keys: a run of characters is one key each; DEL and Ctrl-H are backspace; Ctrl chords are named by their letter', () => {
  const none = { upArrow: false, downArrow: false, leftArrow: false, rightArrow: false, pageUp: false, pageDown: false, home: false, end: false, return: false, escape: false, tab: false, backspace: false, delete: false, ctrl: false, meta: false, shift: false };
  assert.deepEqual(keysFromInk('jjG', none), [
    { kind: 'char', char: 'j' },
    { kind: 'char', char: 'j' },
    { kind: 'char', char: 'G' },
  ]);
  assert.deepEqual(keysFromInk('\x7f', none), [{ kind: 'named', name: 'backspace' }]);
  assert.deepEqual(keysFromInk('', { ...none, pageDown: true }), [{ kind: 'named', name: 'pagedown' }]);
  assert.deepEqual(keysFromInk('c', { ...none, ctrl: true }), [{ kind: 'ctrl', char: 'c' }]);
  assert.deepEqual(keysFromInk('🎉', none), [{ kind: 'char', char: '🎉' }], 'one code point, not two halves');
});

test('model: a large diff is paged (first lines, long lines cut, m shows more), and apply still applies the whole change’s hash', () => {
  const long = 'x'.repeat(DIFF_LINE_CHARS * 10);
  const lines = ['diff --git a/a.md b/a.md', '--- a/a.md', '+++ b/a.md', '@@ -1,1 +1,1 @@', '-' + long, '+' + long, ...Array.from({ length: DIFF_PAGE_LINES * 2 }, (_, i) => `+line ${i}`)];
  const diff = lines.join('\n') + '\n';
  let r = run(loaded(3), [{ type: 'shown', id: 'p-3', data: shown('p-3', { diff }) }, named('enter')]);
  const body = () => r.state.detail!.body;
  const diffLines = () => body().filter((l) => /^[-+@ d]|^\+line/.test(l.text) && !l.text.startsWith('by '));
  assert.equal(r.state.screen, 'detail');
  assert.ok(body().some((l) => l.text === '+line 0'));
  assert.ok(!body().some((l) => l.text === `+line ${DIFF_PAGE_LINES}`), 'lines past the first page are not in the body');
  const cut = body().find((l) => l.text.startsWith('-xxx'))!;
  assert.ok(cut.text.length < DIFF_LINE_CHARS + 100 && cut.text.includes(`${long.length + 1 - DIFF_LINE_CHARS} more characters`), 'a long line is cut, saying how much is left');
  assert.match(body().at(-1)!.text, /more diff lines not shown.*m shows more.*whole change/);
  const before = diffLines().length;
  r = run(r.state, [char('m')]);
  assert.ok(diffLines().length > before, 'm shows more lines');
  assert.ok(body().some((l) => l.text === `+line ${DIFF_PAGE_LINES}`));
  r = run(r.state, [char('m'), char('m')]);
  assert.ok(body().some((l) => l.text === '-' + long), 'paging on shows long lines whole');
  assert.ok(body().some((l) => l.text === `+line ${DIFF_PAGE_LINES * 2 - 1}`) && !/not shown/.test(body().at(-1)!.text), 'and, at last, every line');
  // paging changes what is on screen only: apply reviews again and applies the review's hash
  const fresh = 'e'.repeat(64);
  r = run(run(loaded(3), [{ type: 'shown', id: 'p-3', data: shown('p-3', { diff }) }, named('enter'), char('a')]).state, [{ type: 'reviewed', id: 'p-3', purpose: 'apply', data: { ...reviewed('p-3', fresh), diff } }, char('y')]);
  assert.deepEqual(r.effects, [{ kind: 'apply', id: 'p-3', review_hash: fresh }]);
});
