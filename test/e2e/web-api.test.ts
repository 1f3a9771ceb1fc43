/**
 * `vaultgate serve` through plain HTTP against the compiled binary: the
 * printed line, the token on every /api/ call, the Host check (DNS
 * rebinding), Origin and CSRF on state changes, the session cookie, the
 * security headers, refused listen addresses, and a clean stop.
 */
import assert from 'node:assert/strict';
import http from 'node:http';
import os from 'node:os';
import { test } from 'node:test';
import { runCliProcess } from '../helpers/run-cli.js';
import { rawRequest, serve } from '../helpers/serve.js';
import { tempVault } from '../helpers/temp-vault.js';

const NOTES = { 'Home.md': '# Home\nHello.\n' };

test('serve: prints {url, token, port} on one line; the page and every response carry the security headers', async () => {
  const { root, home } = tempVault(NOTES);
  const s = await serve(root, home);
  try {
    assert.equal(s.url, `http://127.0.0.1:${s.port}/#token=${s.token}`);
    assert.match(s.token, /^[A-Za-z0-9_-]{43}$/);
    const page = await rawRequest(s.port, 'GET', '/');
    assert.equal(page.status, 200);
    assert.match(String(page.headers['content-type']), /text\/html/);
    assert.match(String(page.headers['content-security-policy']), /default-src 'none'; script-src 'self'/);
    assert.equal(page.headers['x-frame-options'], 'DENY');
    assert.equal(page.headers['referrer-policy'], 'no-referrer');
    assert.ok(!page.body.includes(s.token), 'the page itself holds no secret');
    for (const p of ['/app.js', '/app.css', '/favicon.svg']) assert.equal((await rawRequest(s.port, 'GET', p)).status, 200, p);
    assert.equal((await rawRequest(s.port, 'GET', '/nothing')).status, 404);
    const denied = await rawRequest(s.port, 'GET', '/api/session');
    assert.ok(denied.headers['content-security-policy'], 'errors carry the headers too');
    assert.equal(denied.headers['access-control-allow-origin'], undefined, 'never CORS');
  } finally {
    assert.equal(await s.stop(), 0, 'SIGTERM stops it cleanly');
  }
});

test('serve: every /api/ call needs the token; a foreign Host is refused even with it', async () => {
  const { root, home } = tempVault(NOTES);
  const s = await serve(root, home);
  try {
    const auth = { Authorization: `Bearer ${s.token}` };
    const none = await rawRequest(s.port, 'GET', '/api/session');
    assert.equal(none.status, 401);
    assert.equal(none.json.error.code, 'FORBIDDEN');
    assert.equal((await rawRequest(s.port, 'GET', '/api/session', { Authorization: `Bearer ${s.token}x` })).status, 401);
    assert.equal((await rawRequest(s.port, 'GET', '/api/proposals')).status, 401);
    assert.equal((await rawRequest(s.port, 'GET', '/api/log')).status, 401);
    const ok = await rawRequest(s.port, 'GET', '/api/session', auth);
    assert.equal(ok.status, 200, ok.body);
    assert.equal(ok.json.vault.root, root);
    assert.match(ok.json.csrf_token, /^[A-Za-z0-9_-]{43}$/);
    for (const host of [`evil.example:${s.port}`, `127.0.0.1:${s.port + 1}`, 'localhost', `attacker.test`]) {
      const r = await rawRequest(s.port, 'GET', '/api/session', { ...auth, Host: host });
      assert.equal(r.status, 403, host);
      assert.equal(r.json.error.code, 'FORBIDDEN');
      assert.equal((await rawRequest(s.port, 'GET', '/', { Host: host })).status, 403, `${host}: the page too (DNS rebinding)`);
    }
    assert.equal((await rawRequest(s.port, 'GET', '/api/session', { ...auth, Host: `localhost:${s.port}` })).status, 200);
  } finally {
    await s.stop();
  }
});

test('serve: the page’s session cookie comes only from the token with the server’s Origin; changes need Origin and the CSRF token', async () => {
  const { root, home } = tempVault(NOTES);
  const s = await serve(root, home);
  try {
    const origin = `http://127.0.0.1:${s.port}`;
    const auth = { Authorization: `Bearer ${s.token}` };
    assert.equal((await rawRequest(s.port, 'POST', '/api/session', auth)).status, 403, 'no Origin');
    assert.equal((await rawRequest(s.port, 'POST', '/api/session', { ...auth, Origin: 'http://evil.example' })).status, 403, 'foreign Origin');
    assert.equal((await rawRequest(s.port, 'POST', '/api/session', { Origin: origin })).status, 401, 'no token');
    const login = await rawRequest(s.port, 'POST', '/api/session', { ...auth, Origin: origin });
    assert.equal(login.status, 200, login.body);
    const cookie = login.headers['set-cookie']![0]!;
    assert.match(cookie, new RegExp(`^vaultgate_${s.port}=[A-Za-z0-9_-]{43}; HttpOnly; SameSite=Strict; Path=/$`));
    assert.ok(!cookie.includes(s.token), 'the cookie is a session id, not the token');
    const jar = { Cookie: cookie.split(';')[0]! };
    const session = await rawRequest(s.port, 'GET', '/api/session', jar);
    assert.equal(session.status, 200);
    const csrf = session.json.csrf_token as string;
    assert.equal((await rawRequest(s.port, 'GET', '/api/session', { Cookie: `vaultgate_${s.port}=forged` })).status, 401);

    const body = JSON.stringify({ reason: 'no' });
    const json = { 'Content-Type': 'application/json' };
    const path = '/api/proposals/p-1/decline';
    assert.equal((await rawRequest(s.port, 'POST', path, { ...jar, ...json, 'X-CSRF-Token': csrf }, body)).status, 403, 'no Origin');
    assert.equal((await rawRequest(s.port, 'POST', path, { ...jar, ...json, 'X-CSRF-Token': csrf, Origin: 'http://evil.example' }, body)).status, 403, 'foreign Origin');
    const noCsrf = await rawRequest(s.port, 'POST', path, { ...jar, ...json, Origin: origin }, body);
    assert.equal(noCsrf.status, 403, 'no CSRF token');
    assert.match(noCsrf.json.error.message, /CSRF/);
    assert.equal((await rawRequest(s.port, 'POST', path, { ...jar, ...json, Origin: origin, 'X-CSRF-Token': (csrf[0] === 'x' ? 'y' : 'x') + csrf.slice(1) }, body)).status, 403, 'wrong CSRF token');
    const form = await rawRequest(s.port, 'POST', path, { ...jar, 'Content-Type': 'application/x-www-form-urlencoded', Origin: origin, 'X-CSRF-Token': csrf }, 'reason=no');
    assert.equal(form.status, 400, 'a form body is not JSON');
    const dup = await rawRequest(s.port, 'POST', path, { ...jar, ...json, Origin: origin, 'X-CSRF-Token': csrf }, '{"reason":"a","reason":"b"}');
    assert.equal(dup.status, 400, 'strict JSON');
    // Everything right: the request reaches the operation (which says the proposal does not exist).
    const through = await rawRequest(s.port, 'POST', path, { ...jar, ...json, Origin: origin, 'X-CSRF-Token': csrf }, body);
    assert.ok([404, 501].includes(through.status), through.body);
    assert.equal(through.json.ok, false);
    assert.equal((await rawRequest(s.port, 'DELETE', '/api/proposals', { ...jar, Origin: origin, 'X-CSRF-Token': csrf })).status, 405);
  } finally {
    await s.stop();
  }
});

test('serve: refuses to listen on every address; a bad port is a usage error', async () => {
  const { root, home } = tempVault(NOTES);
  const wildcard = await runCliProcess(['serve', '--host', '0.0.0.0', '--port', '0'], { vault: root, home, timeoutMs: 20_000 });
  assert.equal(wildcard.exitCode, 2);
  assert.match(wildcard.stdout, /every address/);
  const port = await runCliProcess(['serve', '--port', '70000'], { vault: root, home, timeoutMs: 20_000 });
  assert.equal(port.exitCode, 2);
  const novault = await runCliProcess(['serve', '--port', '0'], { home, env: { VAULTGATE_VAULT: '' }, timeoutMs: 20_000 });
  assert.equal(novault.exitCode, 2);
});

test('serve: a non-loopback --host is served only when named, with a warning, and answers only to that address', async (t) => {
  const lan = Object.values(os.networkInterfaces())
    .flat()
    .find((i) => i && !i.internal && i.family === 'IPv4')?.address;
  if (!lan) return t.skip('this machine has no non-loopback IPv4 address');
  const { root, home } = tempVault(NOTES);
  const s = await serve(root, home, ['--host', lan]);
  try {
    assert.equal(s.url, `http://${lan}:${s.port}/#token=${s.token}`);
    assert.match(s.stderr(), /WARNING: listening on .*not loopback/);
    const r = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: lan, port: s.port, path: '/api/session', headers: { Authorization: `Bearer ${s.token}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(r, 200);
    const viaLocalhost = await new Promise<number>((resolve, reject) => {
      const req = http.request({ host: lan, port: s.port, path: '/api/session', headers: { Host: `localhost:${s.port}`, Authorization: `Bearer ${s.token}` } }, (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(viaLocalhost, 403, 'a LAN server does not answer to another name');
  } finally {
    await s.stop();
  }
});
