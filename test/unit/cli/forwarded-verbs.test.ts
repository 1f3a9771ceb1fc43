/**
 * The daemon answers only the verbs the CLI forwards to it, and those must be
 * read operations of the table: a write forwarded to a long-lived process
 * would run without the CLI's own terminal (consent, confirmation) and under
 * another process's lock. The list lives in the client for start-up speed
 * (main.ts must not load the table), so this test keeps the two in step.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FORWARDED_VERBS } from '../../../src/cli/daemon/client.js';
import { findOperation } from '../../../src/ops/index.js';

test('every verb the CLI forwards to the daemon is a read-only operation of the table', () => {
  assert.ok(FORWARDED_VERBS.size > 0);
  for (const verb of FORWARDED_VERBS) {
    const op = findOperation({ command: verb });
    assert.ok(op, `forwarded verb ${verb} is not an operation's command`);
    assert.equal(op.group, 'read', `${verb} is forwarded but its group is ${op.group}`);
    assert.equal(op.annotations.readOnly, true, `${verb} is forwarded but not read-only`);
  }
});
