/**
 * The inbox's runtime with a stand-in backend: the effects become backend calls
 * in order, answers come back as messages, apply receives the hash of the very
 * review the prompt showed, a run of `j` loads only the proposal it stops on,
 * and Ink draws the frame as computed (no line wraps on an 80-column screen).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { createElement } from 'react';
import { renderToString } from 'ink';
import type { InboxBackend } from '../../../src/inbox/terminal/backend.js';
import { InboxController } from '../../../src/inbox/terminal/controller.js';
import { Frame } from '../../../src/inbox/terminal/app.js';
import type { Key } from '../../../src/inbox/terminal/keys.js';
import { VaultgateError } from '../../../src/errors.js';
import { appliedView, queuePage, reviewed, shown, T0 } from './terminal-fixtures.js';

function fakeBackend(total: number, calls: string[]): InboxBackend {
  let reviews = 0;
  return {
    list: async ({ view, filter, offset }) => {
      calls.push(`list ${view} ${JSON.stringify(filter)} ${offset}`);
      return { total, proposals: queuePage(total, offset / 50) };
    },
    log: async ({ offset }) => (calls.push(`log ${offset}`), { total: 0, events: [] }),
    show: async (id) => (calls.push(`show ${id}`), shown(id)),
    review: async (id) => {
      calls.push(`review ${id}`);
      reviews++;
      return reviewed(id, String(reviews).repeat(64));
    },
    apply: async (id, hash) => {
      calls.push(`apply ${id} ${hash.slice(0, 3)}`);
      if (hash !== '2'.repeat(64)) throw new VaultgateError('APPROVAL_MISMATCH', `the review of ${id} changed since it was approved`, { hint: 'review again' });
      return appliedView(id);
    },
    decline: async (id, reason) => (calls.push(`decline ${id} ${reason}`), { proposal: { id, state: 'declined' as const, reason } }),
    reopen: async (id) => (calls.push(`reopen ${id}`), reviewed(id, null)),
    rollback: async (id) => {
      calls.push(`rollback ${id}`);
      throw new Error('boom');
    },
  };
}

const key = (c: string): { type: 'key'; key: Key } => ({ type: 'key', key: c === 'enter' ? { kind: 'named', name: 'enter' } : { kind: 'char', char: c } });

test('controller: apply sends the hash of the review on screen; a stale one is the typed error, r reviews again, y then applies', async () => {
  const calls: string[] = [];
  const c = new InboxController(fakeBackend(3, calls), { rows: 24, cols: 80 }, T0);
  await c.idle();
  assert.deepEqual(calls, ['list open "" 0', 'show p-3']);
  c.dispatch(key('a'));
  await c.idle();
  assert.deepEqual(c.state.mode, { kind: 'confirm', id: 'p-3', review_hash: '1'.repeat(64) });
  c.dispatch(key('y'));
  await c.idle();
  assert.equal(calls.filter((x) => x.startsWith('apply')).join(), 'apply p-3 111');
  assert.equal(c.state.message?.text, 'error [APPROVAL_MISMATCH]: the review of p-3 changed since it was approved');
  c.dispatch(key('a'));
  await c.idle();
  c.dispatch(key('y'));
  await c.idle();
  assert.deepEqual(calls.filter((x) => x.startsWith('apply')), ['apply p-3 111', 'apply p-3 222']);
  assert.match(c.state.message!.text, /^applied p-3/);
});

test('controller: a bug in an operation is shown as INTERNAL and kept for stderr, and the inbox goes on', async () => {
  const calls: string[] = [];
  const backend = fakeBackend(3, calls);
  backend.show = async (id) => (calls.push(`show ${id}`), { ...shown(id, { state: 'applied' }) });
  const c = new InboxController(backend, { rows: 24, cols: 80 }, T0);
  await c.idle();
  c.dispatch(key('u'));
  await c.idle();
  assert.equal(c.state.message?.text, 'error [INTERNAL]: internal error: boom');
  assert.equal(c.internalErrors.length, 1);
  assert.equal(c.state.mode.kind, 'normal');
});

test('controller: 40 quick j presses load the one proposal they stop on, not 40', async () => {
  const calls: string[] = [];
  const c = new InboxController(fakeBackend(1000, calls), { rows: 24, cols: 80 }, T0);
  await c.idle();
  calls.length = 0;
  for (let i = 0; i < 40; i++) c.dispatch(key('j'));
  await c.idle();
  assert.deepEqual(calls, ['show p-960']);
  c.dispatch(key('q'));
  await c.closed;
});

test('Ink draws the frame line for line: 23 lines of at most 80 columns for an 80×24 terminal', async () => {
  const calls: string[] = [];
  const c = new InboxController(fakeBackend(1000, calls), { rows: 24, cols: 80 }, T0);
  await c.idle();
  for (const s of [c.state, { ...c.state, screen: 'detail' as const }]) {
    const out = renderToString(createElement(Frame, { state: s }), { columns: 80 });
    const lines = out.split('\n');
    assert.equal(lines.length, 23);
    for (const l of lines) assert.ok(l.replace(/\x1b\[[0-9;]*m/g, '').length <= 80, l);
  }
});

test('controller: Ctrl-C while an apply runs quits once the apply has finished, not midway', { timeout: 10_000 }, async () => {
  const calls: string[] = [];
  const backend = fakeBackend(3, calls);
  let release!: () => void;
  const gate = new Promise<void>((r) => (release = r));
  backend.apply = async (id) => {
    calls.push(`apply ${id} started`);
    await gate;
    calls.push(`apply ${id} finished`);
    return appliedView(id);
  };
  const c = new InboxController(backend, { rows: 24, cols: 80 }, T0);
  await c.idle();
  c.dispatch(key('a'));
  await c.idle();
  c.dispatch(key('y'));
  while (!calls.includes('apply p-3 started')) await new Promise((r) => setTimeout(r, 1));
  c.dispatch({ type: 'key', key: { kind: 'ctrl', char: 'c' } });
  let closed = false;
  void c.closed.then(() => (closed = true));
  await new Promise((r) => setTimeout(r, 20));
  assert.equal(closed, false, 'still applying');
  release();
  await c.closed;
  assert.deepEqual(calls.slice(-2), ['apply p-3 started', 'apply p-3 finished']);
});
