/**
 * The web API takes the change-request list as the MCP tool does (issue #21
 * §1): `POST /api/propose` with `{title, changes: [...]}` (token, Origin and
 * CSRF as every state change) stores one proposal holding every action; a
 * wrong request is refused naming `changes[i].field`, never a CLI flag.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { findOperation } from '../../src/ops/index.js';
import { EVERY_CHANGE_APPLIED, EVERY_CHANGE_VAULT, everyChange, vaultFiles } from '../helpers/every-change.js';
import { runCliProcess } from '../helpers/run-cli.js';
import { rawRequest, serve } from '../helpers/serve.js';
import { tempVault } from '../helpers/temp-vault.js';

test('web API: POST /api/propose takes the change list; the proposal applies every action', { skip: findOperation({ name: 'apply' }) ? undefined : 'no proposals core' }, async () => {
  const { root, home } = tempVault(EVERY_CHANGE_VAULT);
  const s = await serve(root, home);
  try {
    const origin = `http://127.0.0.1:${s.port}`;
    const auth = { Authorization: `Bearer ${s.token}` };
    const csrf = (await rawRequest(s.port, 'GET', '/api/session', auth)).json.csrf_token as string;
    const post = (body: unknown) => rawRequest(s.port, 'POST', '/api/propose', { ...auth, Origin: origin, 'X-CSRF-Token': csrf, 'Content-Type': 'application/json' }, JSON.stringify(body));
    assert.equal((await rawRequest(s.port, 'POST', '/api/propose', { ...auth, Origin: origin, 'Content-Type': 'application/json' }, '{}')).status, 403, 'CSRF as every change');

    const wrong = await post({ title: 't', changes: [everyChange(root)[0], { action: 'replace', path: 'Notes/A.md', base: everyChange(root)[5]!.base, replace: 'teh' }] });
    assert.equal(wrong.status, 400, wrong.body);
    assert.equal(wrong.json.error.code, 'CHANGES_INVALID');
    assert.equal(wrong.json.error.details.field, 'changes[1].with');
    assert.doesNotMatch(`${wrong.json.error.message} ${wrong.json.error.hint}`, /(^|\s)--[a-z]/);
    assert.equal((await post({ title: 't', path: 'Notes/A.md', changes: [] })).json.error.details.param, 'path', 'the CLI flags are not API fields');

    const r = await post({ title: 'Every kind', summary: 'from the web API', changes: everyChange(root) });
    assert.equal(r.status, 200, r.body);
    assert.equal(r.json.proposal.state, 'pending', JSON.stringify(r.json.review.checks));
    const id = r.json.proposal.id as string;
    // the person applies it as any other (here through the CLI)
    const review = await runCliProcess(['review', id, '--json'], { vault: root, home });
    const applied = await runCliProcess(['apply', id, '--review-hash', review.json.review_hash, '--json'], { vault: root, home });
    assert.equal(applied.exitCode, 0, applied.stdout);
    assert.deepEqual(vaultFiles(root), EVERY_CHANGE_APPLIED);
  } finally {
    await s.stop();
  }
});
