import http from 'node:http';
import { VaultgateError } from '../../errors.js';
import { errorReport, findOperation, runOperation, type OpContext } from '../../ops/index.js';
import { BackgroundEmbedder } from '../../wing/dense/index.js';
import { VaultSession } from '../../session/index.js';
import { parseStrictJson } from '../../txn/index.js';
import { httpStatus, matchRoute } from './api.js';
import { ASSETS } from './assets.js';
import {
  allowedHosts,
  bearer,
  cookieName,
  hostAllowed,
  isLoopbackAddress,
  originAllowed,
  randomToken,
  readCookie,
  sameSecret,
  SECURITY_HEADERS,
} from './security.js';

/**
 * `vaultgate serve`: the local web inbox. `node:http`, no framework and no
 * front-end build: the page is three static files (assets.ts) that call the
 * JSON API (api.ts), which calls the operation table — the same review, the
 * same apply as the CLI and the terminal inbox. Security rules: security.ts.
 *
 * Live refresh: `/api/events` is a Server-Sent Events stream; while a page is
 * connected, the server looks at the audit log's last event once a second and
 * sends `queue` when it moved (every proposal change is an audit event).
 */

export interface WebInboxOptions {
  vault: string | undefined;
  env: Record<string, string | undefined>;
  cwd: string;
  /** Address to listen on (default 127.0.0.1); another one only when the user named it. */
  host?: string;
  /** 0: any free port. */
  port: number;
  log: (line: string) => void;
  /** How often a connected page's queue is checked for changes (ms). */
  pollMs?: number;
}

export interface WebInbox {
  url: string;
  token: string;
  port: number;
  host: string;
  vault: string;
  close(): Promise<void>;
}

const MAX_BODY = 1 << 20;
const MAX_SESSIONS = 64;

export const DEFAULT_HOST = '127.0.0.1';

class HttpError extends Error {
  constructor(
    readonly status: number,
    readonly error: VaultgateError,
  ) {
    super(error.message);
  }
}

/** A refused request: 401/403 are FORBIDDEN (token, Host, Origin, CSRF), the rest USAGE. */
function refuse(status: number, message: string, hint?: string): HttpError {
  return new HttpError(status, new VaultgateError(status === 401 || status === 403 ? 'FORBIDDEN' : 'USAGE', message, hint ? { hint } : {}));
}

/** What the request handlers share: the server's secrets, its session and the open event streams. */
interface InboxState {
  readonly log: (line: string) => void;
  readonly pollMs: number;
  readonly session: VaultSession;
  readonly ctx: OpContext;
  readonly token: string;
  readonly csrf: string;
  /** Cookie session ids the token opened (at most MAX_SESSIONS; the oldest goes first). */
  readonly sessions: Set<string>;
  /** Host header values this server answers (set once it listens). */
  allowed: Set<string>;
  port: number;
  /** Open `/api/events` streams, and the poll that feeds them while any is open. */
  readonly events: Set<http.ServerResponse>;
  poll: NodeJS.Timeout | undefined;
  lastMark: string | undefined;
}

/** One request and its response, with the request's URL parsed once. */
interface Exchange {
  req: http.IncomingMessage;
  res: http.ServerResponse;
  url: URL;
}

type Handler = (s: InboxState, x: Exchange) => Promise<void> | void;

/**
 * The routes the server answers itself; every other `/api/` path is a route of
 * the operation table (api.ts `ROUTES`, run by {@link runApiRoute}). `token`:
 * only the bearer token opens it (it hands out the cookie); `session`: the
 * token or a cookie, and for a state-changing method the CSRF token too.
 */
const SERVER_ROUTES: readonly { method: string; path: string; auth: 'token' | 'session'; handler: Handler }[] = [
  { method: 'POST', path: '/api/session', auth: 'token', handler: openPageSession },
  { method: 'GET', path: '/api/session', auth: 'session', handler: describeSession },
  { method: 'GET', path: '/api/events', auth: 'session', handler: streamQueueEvents },
];

interface Reply {
  status: number;
  body: string;
  type: string;
  headers?: Record<string, string>;
}

function send(res: http.ServerResponse, r: Reply): void {
  res.writeHead(r.status, { ...SECURITY_HEADERS, 'Content-Type': r.type, 'Content-Length': Buffer.byteLength(r.body), ...r.headers });
  res.end(r.body);
}

function sendJson(res: http.ServerResponse, body: unknown, opts: { status?: number; headers?: Record<string, string> } = {}): void {
  send(res, { status: opts.status ?? 200, body: JSON.stringify(body), type: 'application/json; charset=utf-8', ...(opts.headers ? { headers: opts.headers } : {}) });
}

/** A failure as `{ok: false, error}`: a refusal with its own status, anything else by its code (a bug logged with its stack). */
function sendError(s: InboxState, res: http.ServerResponse, e: unknown): void {
  const raised = e instanceof HttpError ? e.error : e;
  const report = errorReport(raised);
  if (report.internal) s.log(`vaultgate serve: ${(raised as Error)?.stack ?? String(raised)}`);
  sendJson(res, { ok: false, error: report.error }, { status: e instanceof HttpError ? e.status : httpStatus(report.error.code) });
}

/** Who is calling: the token, or a session the token opened. Null when neither. */
function authenticated(s: InboxState, req: http.IncomingMessage): 'bearer' | 'cookie' | null {
  if (sameSecret(bearer(req.headers.authorization), s.token)) return 'bearer';
  const sid = readCookie(req.headers.cookie, cookieName(s.port));
  if (sid && [...s.sessions].some((x) => sameSecret(sid, x))) return 'cookie';
  return null;
}

/** A request's body: a strict JSON object (at most MAX_BODY bytes), or {} when empty. */
function readJsonBody(req: http.IncomingMessage): Promise<Record<string, unknown>> {
  return new Promise((resolve, reject) => {
    const type = (req.headers['content-type'] ?? '').split(';')[0]!.trim().toLowerCase();
    const chunks: Buffer[] = [];
    let size = 0;
    req.on('data', (c: Buffer) => {
      size += c.length;
      if (size > MAX_BODY) {
        reject(refuse(400, `request body over ${MAX_BODY} bytes`));
        req.destroy();
      } else chunks.push(c);
    });
    req.on('error', reject);
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      if (text.trim() === '') return resolve({});
      if (type !== 'application/json') return reject(refuse(400, 'a request body must be JSON (Content-Type: application/json)'));
      try {
        const v = parseStrictJson(text);
        if (!v || typeof v !== 'object' || Array.isArray(v)) throw new Error('not an object');
        resolve(v as Record<string, unknown>);
      } catch (e) {
        reject(refuse(400, `request body is not a strict JSON object: ${(e as Error).message}`));
      }
    });
  });
}

/** The queue's change mark: the last audit event (or, without an audit log, the list itself). */
async function queueMark(s: InboxState): Promise<string> {
  const log = findOperation({ name: 'log' });
  // Consent requests are no audit events: their ids and states are part of the mark.
  const consent = findOperation({ name: 'consent_pending' });
  const requests = consent ? JSON.stringify(((await runOperation(consent, { all: true }, 'api', s.ctx)).output.requests as { id: string; state: string }[]).map((r) => [r.id, r.state])) : '';
  if (log) return JSON.stringify((await runOperation(log, { limit: 1 }, 'api', s.ctx)).output) + requests;
  const list = findOperation({ name: 'proposals' });
  return list ? JSON.stringify((await runOperation(list, {}, 'api', s.ctx)).output) : '';
}

function startPolling(s: InboxState): void {
  if (s.poll) return;
  s.poll = setInterval(() => {
    queueMark(s)
      .then((mark) => {
        if (s.lastMark !== undefined && mark !== s.lastMark) for (const res of s.events) res.write(`event: queue\ndata: {}\n\n`);
        s.lastMark = mark;
      })
      .catch((e: unknown) => s.log(`vaultgate serve: watching the queue: ${errorReport(e).error.message}`));
  }, s.pollMs);
}

/** POST /api/session: the page trades the token from its URL for a session cookie (HttpOnly: scripts never see it). */
function openPageSession(s: InboxState, { res }: Exchange): void {
  const sid = randomToken();
  if (s.sessions.size >= MAX_SESSIONS) s.sessions.delete(s.sessions.values().next().value!);
  s.sessions.add(sid);
  sendJson(res, { ok: true, csrf_token: s.csrf }, { headers: { 'Set-Cookie': `${cookieName(s.port)}=${sid}; HttpOnly; SameSite=Strict; Path=/` } });
}

/** GET /api/session: the CSRF token, the vault, and the operations this build has. */
function describeSession(s: InboxState, { res }: Exchange): void {
  const id = s.session.identity();
  const has = (name: string) => findOperation({ name }) !== undefined;
  sendJson(res, {
    ok: true,
    csrf_token: s.csrf,
    vault: { root: s.session.root, vault_id: id.vault_id },
    operations: ['proposals', 'show', 'review', 'apply', 'decline', 'reopen', 'rollback', 'log', 'consent_pending', 'consent_approve', 'consent_deny'].filter(has),
  });
}

/** GET /api/events: a Server-Sent Events stream that says `queue` when the queue changed. */
async function streamQueueEvents(s: InboxState, { req, res }: Exchange): Promise<void> {
  // The mark is taken before the stream opens: a change made after the page saw `open` is always announced.
  if (!s.poll) s.lastMark = await queueMark(s);
  res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
  res.write(': vaultgate queue events\n\n');
  s.events.add(res);
  startPolling(s);
  req.on('close', () => {
    s.events.delete(res);
    if (s.events.size === 0 && s.poll) {
      clearInterval(s.poll);
      s.poll = undefined;
      s.lastMark = undefined;
    }
  });
}

/** Every other `/api/` path: the operation table's route (api.ts), its JSON the response. */
async function runApiRoute(s: InboxState, { req, res, url }: Exchange): Promise<void> {
  const method = req.method ?? 'GET';
  const changes = method !== 'GET' && method !== 'HEAD';
  const data = changes ? await readJsonBody(req) : Object.fromEntries(url.searchParams);
  const found = matchRoute(method, url.pathname);
  if (!found) throw new HttpError(404, new VaultgateError('NOT_FOUND', `no API ${method} ${url.pathname}`));
  if ('error' in found) throw new HttpError(found.status, found.error);
  const raw = found.route.input(found.match, data);
  const r = await runOperation(found.op, raw, found.route.from, s.ctx);
  sendJson(res, { ok: true, ...r.output });
}

/** One request: Host, then a static asset, then Origin, token or cookie, CSRF, and the route. */
async function handleRequest(s: InboxState, req: http.IncomingMessage, res: http.ServerResponse): Promise<void> {
  // DNS rebinding: a request for another name is not for us, whatever it carries.
  if (!hostAllowed(req.headers.host, s.allowed)) throw refuse(403, `Host ${JSON.stringify(req.headers.host ?? '')} is not this server`, 'Open the URL vaultgate serve printed.');
  const url = new URL(req.url ?? '/', 'http://localhost');
  const method = req.method ?? 'GET';
  const asset = ASSETS[url.pathname];
  if (asset) {
    if (method !== 'GET' && method !== 'HEAD') throw refuse(405, `${method} is not allowed on ${url.pathname}`);
    return send(res, { status: 200, body: asset.body, type: asset.type });
  }
  if (!url.pathname.startsWith('/api/')) throw new HttpError(404, new VaultgateError('NOT_FOUND', `no page ${url.pathname}`));

  const auth = authenticated(s, req);
  const changes = method !== 'GET' && method !== 'HEAD';
  if (changes && !originAllowed(req.headers.origin, s.allowed)) {
    throw refuse(403, `a state-changing request needs this server's Origin (got ${JSON.stringify(req.headers.origin ?? null)})`);
  }
  const own = SERVER_ROUTES.find((r) => r.method === method && r.path === url.pathname);
  if (own?.auth === 'token') {
    if (auth !== 'bearer') throw refuse(401, 'the token is missing or wrong', 'Open the URL vaultgate serve printed (it carries the token).');
    return own.handler(s, { req, res, url });
  }
  if (!auth) throw refuse(401, 'the token is missing or wrong', 'Send Authorization: Bearer TOKEN, or open the URL vaultgate serve printed.');
  if (changes && !sameSecret(typeof req.headers['x-csrf-token'] === 'string' ? req.headers['x-csrf-token'] : undefined, s.csrf)) {
    throw refuse(403, 'the CSRF token is missing or wrong', 'Send X-CSRF-Token: the csrf_token of GET /api/session.');
  }
  return (own?.handler ?? runApiRoute)(s, { req, res, url });
}

/** One address to listen on: every address at once (0.0.0.0, ::) is refused, the page checks Host against it. */
function checkedHost(host: string): string {
  if (host === '0.0.0.0' || host === '::' || host === '') {
    throw new VaultgateError('USAGE', `--host ${JSON.stringify(host)} listens on every address`, {
      hint: 'Name one address (the page checks the Host header against it); the default is 127.0.0.1.',
    });
  }
  return host;
}

/** Listens, a port in use or an address that cannot be had being USAGE. */
function listenOn(server: http.Server, { host, port }: { host: string; port: number }): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'EADDRINUSE'
          ? new VaultgateError('USAGE', `port ${port} on ${host} is in use`, { hint: 'Pick another --port, or --port 0 for any free one.' })
          : new VaultgateError('USAGE', `cannot listen on ${host}:${port}: ${e.message}`, { hint: 'Check --host and --port.' }),
      ),
    );
    server.listen(port, host, () => resolve());
  });
}

export async function startWebInbox(opts: WebInboxOptions): Promise<WebInbox> {
  const host = checkedHost(opts.host ?? DEFAULT_HOST);
  const session = VaultSession.open({ vault: opts.vault, env: opts.env, cwd: opts.cwd, keepIndexOpen: true, freshness: opts.env.VAULTGATE_FRESHNESS === 'walk' ? 'walk' : 'watch' });
  // New and changed sections get their vectors while the server is idle (search.embeddings, loopback providers only).
  const embedder = new BackgroundEmbedder(session, opts.env, { log: (l) => opts.log(`vaultgate serve: ${l}`) });
  // The person at the page is the operator: the audit log must not name an agent whose
  // VAULTGATE_AGENT happened to be set in the shell that started the server.
  const { VAULTGATE_AGENT: _agent, ...env } = opts.env;
  const ctx: OpContext = {
    face: 'web',
    // A file watcher keeps the open index fresh; each call first waits for the events in flight.
    settle: () => session.settle(),
    env,
    cwd: opts.cwd,
    session: () => session,
    readStdin() {
      throw new VaultgateError('USAGE', 'the web inbox has no standard input', { hint: 'Send values in the JSON body.' });
    },
  };
  const s: InboxState = {
    log: opts.log,
    pollMs: opts.pollMs ?? 1000,
    session,
    ctx,
    token: randomToken(),
    csrf: randomToken(),
    sessions: new Set(),
    allowed: new Set(),
    port: 0,
    events: new Set(),
    poll: undefined,
    lastMark: undefined,
  };

  const server = http.createServer((req, res) => {
    handleRequest(s, req, res).catch((e: unknown) => {
      if (res.headersSent) return res.destroy();
      sendError(s, res, e);
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;

  await listenOn(server, { host, port: opts.port });
  const port = (s.port = (server.address() as { port: number }).port);
  s.allowed = allowedHosts(host, port);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shownHost}:${port}/#token=${s.token}`;
  if (!isLoopbackAddress(host)) opts.log(`vaultgate serve: WARNING: listening on ${host}, not loopback: anyone who can reach it and has the token can apply proposals`);

  return {
    url,
    token: s.token,
    port,
    host,
    vault: session.root,
    close: () =>
      new Promise<void>((resolve) => {
        if (s.poll) clearInterval(s.poll);
        for (const res of s.events) res.end();
        server.close(() => {
          void embedder.close().finally(() => {
            session.close();
            resolve();
          });
        });
        server.closeAllConnections();
      }),
  };
}
