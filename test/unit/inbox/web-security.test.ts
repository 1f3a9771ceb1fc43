import assert from 'node:assert/strict';
import vm from 'node:vm';
import { test } from 'node:test';
import { allowedHosts, ASSETS, bearer, hostAllowed, isLoopbackAddress, originAllowed, readCookie, sameSecret, SECURITY_HEADERS, httpStatus, matchRoute } from '../../../src/inbox/web/index.js';

test('web security: Host must name the server (DNS rebinding), Origin must be the server’s own', () => {
  const hosts = allowedHosts('127.0.0.1', 4321);
  for (const ok of ['127.0.0.1:4321', 'localhost:4321', 'LOCALHOST:4321', '[::1]:4321']) assert.ok(hostAllowed(ok, hosts), ok);
  for (const bad of [undefined, '', 'evil.example:4321', '127.0.0.1:4322', '127.0.0.1', 'attacker.test', '127.0.0.1.nip.io:4321']) assert.ok(!hostAllowed(bad, hosts), String(bad));
  assert.ok(originAllowed('http://127.0.0.1:4321', hosts));
  assert.ok(originAllowed('http://localhost:4321', hosts));
  for (const bad of [undefined, 'null', 'https://127.0.0.1:4321', 'http://evil.example:4321', 'http://127.0.0.1:4321/x', 'http://127.0.0.1:1']) assert.ok(!originAllowed(bad, hosts), String(bad));
  const lan = allowedHosts('192.168.1.5', 80);
  assert.ok(hostAllowed('192.168.1.5:80', lan));
  assert.ok(!hostAllowed('localhost:80', lan), 'a non-loopback server answers only to its own address');
});

test('web security: loopback addresses, tokens, cookies', () => {
  for (const h of ['127.0.0.1', '127.1.2.3', '::1', '[::1]', 'localhost']) assert.ok(isLoopbackAddress(h), h);
  for (const h of ['0.0.0.0', '192.168.0.1', '::', 'example.com']) assert.ok(!isLoopbackAddress(h), h);
  assert.equal(bearer('Bearer abc_-1'), 'abc_-1');
  assert.equal(bearer('bearer abc'), undefined);
  assert.equal(bearer('Bearer a b'), undefined);
  assert.equal(readCookie('a=1; vaultgate_80=xyz; b=2', 'vaultgate_80'), 'xyz');
  assert.equal(readCookie('vaultgate_8080=xyz', 'vaultgate_80'), undefined);
  assert.ok(sameSecret('abc', 'abc'));
  assert.ok(!sameSecret('abd', 'abc'));
  assert.ok(!sameSecret('ab', 'abc'));
  assert.ok(!sameSecret(undefined, 'abc'));
});

test('web security: a strict CSP on every response (no inline script, no framing, no other origins)', () => {
  const csp = SECURITY_HEADERS['Content-Security-Policy']!;
  assert.match(csp, /default-src 'none'/);
  assert.match(csp, /script-src 'self'(;|$)/);
  assert.doesNotMatch(csp, /unsafe-inline|unsafe-eval|\*|https?:/);
  assert.match(csp, /frame-ancestors 'none'/);
  assert.equal(SECURITY_HEADERS['X-Content-Type-Options'], 'nosniff');
});

test('web page: the script parses, never writes markup from strings, and loads nothing from elsewhere', () => {
  const js = ASSETS['/app.js']!.body;
  new vm.Script(js); // throws on a syntax error
  for (const sink of ['innerHTML', 'outerHTML', 'insertAdjacentHTML', 'document.write', 'eval(', 'new Function', 'setAttribute(\'on', 'javascript:']) {
    assert.ok(!js.includes(sink), `app.js must not use ${sink}`);
  }
  const html = ASSETS['/']!.body;
  assert.doesNotMatch(html, /<script(?![^>]*src="\/app\.js")/, 'no inline script');
  assert.doesNotMatch(html + ASSETS['/app.css']!.body, /https?:\/\/(?!www\.w3\.org\/2000\/svg)/, 'no CDN: the page works offline');
  assert.doesNotMatch(html, /\sstyle=|\son[a-z]+=/, 'no inline style or handler attributes (CSP)');
});

test('web API: routes name operations of the table; statuses follow the exit classes', () => {
  const m = matchRoute('POST', '/api/proposals/p-3/apply');
  if (m && 'op' in m) assert.equal(m.op.name, 'apply');
  else assert.equal(m && 'status' in m ? m.status : 0, 501, 'absent proposals core: 501, named');
  assert.equal(matchRoute('GET', '/api/nothing'), null);
  const wrong = matchRoute('DELETE', '/api/proposals');
  assert.ok(wrong && 'status' in wrong && wrong.status === 405);
  assert.equal(matchRoute('POST', '/api/proposals/p-3/explode'), null, 'only the proposal actions');
  assert.equal(matchRoute('GET', '/api/proposals/..%2f..'), null);
  assert.equal(httpStatus('NOT_FOUND'), 404);
  assert.equal(httpStatus('PROPOSAL_UNKNOWN'), 404);
  assert.equal(httpStatus('SCENARIO_NOT_FOUND'), 404);
  assert.equal(httpStatus('USAGE'), 400);
  assert.equal(httpStatus('STALE_HASH'), 409);
  assert.equal(httpStatus('FORBIDDEN'), 403);
  assert.equal(httpStatus('INTERNAL'), 500);
});
