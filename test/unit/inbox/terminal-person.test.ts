import assert from 'node:assert/strict';
import { test } from 'node:test';
import { detailBody } from '../../../src/inbox/terminal/model.js';
import { eventDetail } from '../../../src/inbox/terminal/format.js';
import { event, shown, T0 } from './terminal-fixtures.js';

test('terminal inbox: an applied proposal is "rolled back" only once its rollback is applied (issue 21 §4)', () => {
  const facts = (rollback_state: 'pending' | 'applied') => {
    const d = shown('p-1', { state: 'applied' });
    d.proposal.rolled_back_by = 'p-2';
    d.proposal.rollback_state = rollback_state;
    return detailBody(d, T0)[0]!.text;
  };
  assert.match(facts('pending'), /rollback proposed as p-2 \(pending\)/);
  assert.ok(!/rolled back by/.test(facts('pending')));
  assert.match(facts('applied'), /rolled back by p-2/);
});

test('terminal inbox history: rollback_proposed and rolled_back say which proposal; an old log’s early rolled_back reads as proposed', () => {
  assert.equal(eventDetail(event(1, { event: 'rollback_proposed', details: { rollback_proposal: 'p-2', state: 'pending' } })), 'as p-2 (pending)');
  assert.equal(eventDetail(event(2, { event: 'rolled_back', details: { rollback_proposal: 'p-2', changed_paths: ['a.md'] } })), 'by p-2');
  assert.equal(eventDetail(event(3, { event: 'rolled_back', details: { rollback_proposal: 'p-2', state: 'blocked' } })), 'as p-2 (blocked)');
});

test('terminal inbox: the changed words of a changed diff line are marked for reverse video', () => {
  const d = shown('p-1', { diff: 'diff --git a/P.md b/P.md\n--- a/P.md\n+++ b/P.md\n@@ -1,1 +1,1 @@\n-| Plus | 10 GB |\n+| Plus | 100 GB |\n' });
  const body = detailBody(d, T0);
  const plus = body.find((l) => l.text === '+| Plus | 100 GB |')!;
  const minus = body.find((l) => l.text === '-| Plus | 10 GB |')!;
  assert.deepEqual(plus.em, [[10, 13]]);
  assert.deepEqual(minus.em, [[10, 12]]);
  assert.equal(body.find((l) => l.text.startsWith('@@'))!.em, undefined);
});
