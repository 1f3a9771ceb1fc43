import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import Database from 'better-sqlite3';
import { isVaultgateError, type VaultgateError } from '../../../../src/errors.js';
import {
  checkConsent,
  decideConsentRequest,
  listConsentRequests,
  listConsents,
  MAX_PENDING_REQUESTS,
  planKey,
  postToProvider,
  summarizePlan,
  type ConsentGate,
  type SendPlan,
} from '../../../../src/wing/providers/index.js';
import { storeFile } from '../../../../src/store/index.js';
import { offMachineUrl, startFakeProvider } from '../../../helpers/fake-provider.js';
import { tempVault } from '../../../helpers/temp-vault.js';

/**
 * The consent rule's core (providers/consent.ts, issue 20.1): only the person
 * consents — a yes through the face's terminal prompt, or a request they
 * approved (used once); every refusal says what and where and leaves one
 * pending request; nothing ever carries the plan's key.
 */

const plan = (text = 'secret note text', destination = 'https://api.example.com/v1/embeddings'): SendPlan => ({
  purpose: 'embed',
  provider: 'far',
  kind: 'openai',
  destination,
  model: 'toy',
  files: [{ path: 'a.md', bytes: Buffer.byteLength(text) }],
  requests: [Buffer.from(JSON.stringify({ model: 'toy', input: [text] }))],
  texts: 1,
});
const MCP: ConsentGate = { face: 'mcp', agent: 'mcp:test' };

function refusal(f: () => unknown): VaultgateError {
  try {
    f();
  } catch (e) {
    if (isVaultgateError(e)) return e;
    throw e;
  }
  assert.fail('expected a refusal');
}

test('consent: loopback needs nothing and stores nothing; elsewhere is refused with what/where and a pending request, never the key', () => {
  const { root, home } = tempVault();
  const env = { VAULTGATE_HOME: home };
  const local = checkConsent(root, env, plan('x', 'http://127.0.0.1:11434/api/embed'), MCP);
  assert.equal(local.grant, null);
  assert.deepEqual(listConsentRequests(root, env), []);

  const e = refusal(() => checkConsent(root, env, plan(), MCP));
  assert.equal(e.code, 'CONSENT_REQUIRED');
  const d = e.details!;
  assert.equal(d.host, 'api.example.com');
  assert.equal(d.purpose, 'embed');
  assert.equal(d.request_bytes, plan().requests[0]!.byteLength);
  assert.equal(d.notes, 1);
  assert.equal(d.sections, 1);
  const key = planKey(summarizePlan(plan()));
  assert.ok(!JSON.stringify({ m: e.message, h: e.hint, d }).includes(key), 'the key is never shown');
  assert.match(e.hint!, /an agent cannot consent/);
  // The same plan again: the same pending request, not a second one.
  const again = refusal(() => checkConsent(root, env, plan(), MCP));
  assert.equal(again.details!.consent_request, d.consent_request);
  const pending = listConsentRequests(root, env);
  assert.equal(pending.length, 1);
  assert.equal(pending[0]!.agent, 'mcp:test');
  assert.equal(pending[0]!.face, 'mcp');
  assert.ok(pending[0]!.first_request.includes('secret note text'), 'the person can read what would be sent');
});

test('consent: an approved request lets the identical plan through once, recorded via web; another plan is not approved by it', () => {
  const { root, home } = tempVault();
  const env = { VAULTGATE_HOME: home };
  const id = refusal(() => checkConsent(root, env, plan(), MCP)).details!.consent_request as string;
  decideConsentRequest(root, env, id, 'approved', 'web inbox');
  assert.equal(refusal(() => checkConsent(root, env, plan('other text'), MCP)).code, 'CONSENT_REQUIRED', 'another plan');
  const ok = checkConsent(root, env, plan(), MCP);
  assert.equal(ok.grant?.via, 'web');
  const [rec] = listConsents(root, env);
  assert.equal(rec!.via, 'web');
  assert.equal(rec!.request_id, id);
  assert.equal(rec!.who, 'web inbox');
  assert.equal(refusal(() => checkConsent(root, env, plan(), MCP)).code, 'CONSENT_REQUIRED', 'used once');
  assert.equal(refusal(() => decideConsentRequest(root, env, id, 'approved')).code, 'INVALID_INPUT', 'already used');
});

test('consent: a declined request refuses the identical plan; the terminal prompt answers yes, no, or "no terminal"', () => {
  const { root, home } = tempVault();
  const env = { VAULTGATE_HOME: home };
  const id = refusal(() => checkConsent(root, env, plan(), MCP)).details!.consent_request as string;
  decideConsentRequest(root, env, id, 'declined');
  assert.equal(refusal(() => checkConsent(root, env, plan(), MCP)).code, 'CONSENT_DECLINED');

  const asked: string[] = [];
  const noTty = refusal(() => checkConsent(root, env, plan('b'), { face: 'cli', ask: null }));
  assert.equal(noTty.code, 'CONSENT_REQUIRED');
  assert.match(noTty.message, /this run has none/);
  const gone = refusal(() => checkConsent(root, env, plan('b'), { face: 'cli', ask: () => null }));
  assert.match(gone.message, /this run has none/);
  assert.equal(refusal(() => checkConsent(root, env, plan('b'), { face: 'cli', ask: (q) => (asked.push(q), false) })).code, 'CONSENT_DECLINED');
  assert.match(asked[0]!, /destination: https:\/\/api\.example\.com\/v1\/embeddings/);
  assert.match(asked[0]!, /host: +api\.example\.com/);
  assert.match(asked[0]!, /sends: +1 notes, 1 texts, 1 requests, \d+ bytes/);
  assert.match(asked[0]!, /a\.md \(1 bytes\)/);
  const yes = checkConsent(root, env, plan('b'), { face: 'cli', ask: () => true });
  assert.equal(yes.grant?.via, 'terminal');
  assert.equal(listConsents(root, env)[0]!.via, 'terminal');
});

test('consent: pending requests are bounded, expired ones neither listed nor honoured', () => {
  const { root, home } = tempVault();
  const env = { VAULTGATE_HOME: home };
  for (let i = 0; i < MAX_PENDING_REQUESTS + 5; i++) refusal(() => checkConsent(root, env, plan(`query ${i}`), MCP));
  assert.equal(listConsentRequests(root, env, { limit: 1000 }).length, MAX_PENDING_REQUESTS);
  const id = refusal(() => checkConsent(root, env, plan(), MCP)).details!.consent_request as string;
  decideConsentRequest(root, env, id, 'approved');
  const db = new Database(storeFile(root, env, 'consent'));
  db.prepare("UPDATE requests SET expires_at = '2000-01-01T00:00:00.000Z' WHERE id = ?").run(id);
  db.close();
  const e = refusal(() => checkConsent(root, env, plan(), MCP));
  assert.equal(e.code, 'CONSENT_REQUIRED', 'an expired approval sends nothing');
  assert.notEqual(e.details!.consent_request, id);
  assert.equal(refusal(() => decideConsentRequest(root, env, id, 'approved')).code, 'NOT_FOUND');
});

test('consent: a store from before issue 20.1 (schema 1) is upgraded by a read; its records say via token', () => {
  const { root, home } = tempVault();
  const env = { VAULTGATE_HOME: home };
  const file = storeFile(root, env, 'consent');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const db = new Database(file);
  db.exec(`CREATE TABLE consents (id INTEGER PRIMARY KEY, token TEXT NOT NULL, granted_at TEXT NOT NULL, who TEXT NOT NULL, purpose TEXT NOT NULL, provider TEXT NOT NULL,
    destination TEXT NOT NULL, model TEXT NOT NULL, files TEXT NOT NULL, requests INTEGER NOT NULL, request_bytes INTEGER NOT NULL, request_sha256 TEXT NOT NULL) STRICT;
    CREATE INDEX consents_by_time ON consents(granted_at);`);
  db.prepare('INSERT INTO consents VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?, 1, 10, ?)').run('f'.repeat(64), '2026-01-01T00:00:00.000Z', 'me@host', 'embed', 'far', 'https://x/v1/embeddings', 'toy', '[]', '[]');
  db.pragma('application_id = 1447510862'); // 'VGCN'
  db.pragma('user_version = 1');
  db.close();
  const [rec] = listConsents(root, env);
  assert.equal(rec!.via, 'token');
  assert.equal((rec as unknown as Record<string, unknown>).token, undefined, 'the old token is not shown either');
  assert.deepEqual(listConsentRequests(root, env), []);
});

test('consent: postToProvider sends only bytes a consent outcome covers — a forged outcome, another body or another URL sends nothing', async () => {
  const { root, home } = tempVault();
  const env = { VAULTGATE_HOME: home };
  const p = await startFakeProvider();
  try {
    p.reply({ body: { ok: true } });
    const spec = { name: 'far', timeoutMs: 2000, attempts: 1, backoffMs: 0 };
    const far = offMachineUrl(p) + '/v1/embeddings';
    const body = plan('x', far).requests[0]!;
    const forged = { grant: { id: 1, via: 'web' as const }, summary: summarizePlan(plan('x', far)) };
    const internal = async (f: () => Promise<unknown>) => {
      await assert.rejects(f, (e: unknown) => isVaultgateError(e) && e.code === 'INTERNAL');
    };
    await internal(() => postToProvider(spec, far, body, {}, forged));
    const yes = checkConsent(root, env, plan('x', far), { face: 'cli', ask: () => true });
    await internal(() => postToProvider(spec, far, Buffer.from('{"input":["other text"]}'), {}, yes));
    await internal(() => postToProvider(spec, `${p.url}/v1/embeddings`, body, {}, yes));
    assert.equal(p.requests.length, 0);
    const r = await postToProvider(spec, far, body, {}, yes);
    assert.equal(r.status, 200);
    assert.equal(p.requests.length, 1);
  } finally {
    await p.close();
  }
});
