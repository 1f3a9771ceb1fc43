import http from 'node:http';
import { VaultgateError } from '../../errors.js';
import { errorReport, findOperation, runOperation, type OpContext } from '../../ops/index.js';
import { BackgroundEmbedder } from '../../dense/index.js';
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

export async function startWebInbox(opts: WebInboxOptions): Promise<WebInbox> {
  const host = opts.host ?? DEFAULT_HOST;
  if (host === '0.0.0.0' || host === '::' || host === '') {
    throw new VaultgateError('USAGE', `--host ${JSON.stringify(host)} listens on every address`, {
      hint: 'Name one address (the page checks the Host header against it); the default is 127.0.0.1.',
    });
  }
  const session = VaultSession.open({ vault: opts.vault, env: opts.env, cwd: opts.cwd, keepIndexOpen: true, freshness: opts.env.VAULTGATE_FRESHNESS === 'walk' ? 'walk' : 'watch' });
  // New and changed sections get their vectors while the server is idle (search.embeddings, loopback providers only).
  const embedder = new BackgroundEmbedder(session, opts.env, { log: (l) => opts.log(`vaultgate serve: ${l}`) });
  const token = randomToken();
  const csrf = randomToken();
  const sessions = new Set<string>();
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
  let allowed = new Set<string>();
  let port = 0;
  const events = new Set<http.ServerResponse>();
  let poll: NodeJS.Timeout | undefined;
  let lastMark: string | undefined;

  const send = (res: http.ServerResponse, status: number, body: string, type: string, extra: Record<string, string> = {}) => {
    res.writeHead(status, { ...SECURITY_HEADERS, 'Content-Type': type, 'Content-Length': Buffer.byteLength(body), ...extra });
    res.end(body);
  };
  const sendJson = (res: http.ServerResponse, status: number, body: unknown, extra?: Record<string, string>) => send(res, status, JSON.stringify(body), 'application/json; charset=utf-8', extra);
  const sendError = (res: http.ServerResponse, status: number, e: unknown) => {
    const report = errorReport(e);
    if (report.internal) opts.log(`vaultgate serve: ${(e as Error)?.stack ?? String(e)}`);
    sendJson(res, status || httpStatus(report.error.code), { ok: false, error: report.error });
  };

  /** Who is calling: the token, or a session the token opened. Null when neither. */
  const authenticated = (req: http.IncomingMessage): 'bearer' | 'cookie' | null => {
    if (sameSecret(bearer(req.headers.authorization), token)) return 'bearer';
    const sid = readCookie(req.headers.cookie, cookieName(port));
    if (sid && [...sessions].some((s) => sameSecret(sid, s))) return 'cookie';
    return null;
  };

  const readBody = (req: http.IncomingMessage): Promise<Record<string, unknown>> =>
    new Promise((resolve, reject) => {
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

  /** The queue's change mark: the last audit event (or, without an audit log, the list itself). */
  const queueMark = async (): Promise<string> => {
    const log = findOperation({ name: 'log' });
    // Consent requests are no audit events: their ids and states are part of the mark.
    const consent = findOperation({ name: 'consent_pending' });
    const requests = consent ? JSON.stringify(((await runOperation(consent, { all: true }, 'api', ctx)).output.requests as { id: string; state: string }[]).map((r) => [r.id, r.state])) : '';
    if (log) return JSON.stringify((await runOperation(log, { limit: 1 }, 'api', ctx)).output) + requests;
    const list = findOperation({ name: 'proposals' });
    return list ? JSON.stringify((await runOperation(list, {}, 'api', ctx)).output) : '';
  };
  const startPolling = () => {
    if (poll) return;
    poll = setInterval(() => {
      queueMark()
        .then((mark) => {
          if (lastMark !== undefined && mark !== lastMark) for (const res of events) res.write(`event: queue\ndata: {}\n\n`);
          lastMark = mark;
        })
        .catch((e: unknown) => opts.log(`vaultgate serve: watching the queue: ${errorReport(e).error.message}`));
    }, opts.pollMs ?? 1000);
  };

  const handle = async (req: http.IncomingMessage, res: http.ServerResponse) => {
    // DNS rebinding: a request for another name is not for us, whatever it carries.
    if (!hostAllowed(req.headers.host, allowed)) throw refuse(403, `Host ${JSON.stringify(req.headers.host ?? '')} is not this server`, 'Open the URL vaultgate serve printed.');
    const url = new URL(req.url ?? '/', 'http://localhost');
    const method = req.method ?? 'GET';
    const asset = ASSETS[url.pathname];
    if (asset) {
      if (method !== 'GET' && method !== 'HEAD') throw refuse(405, `${method} is not allowed on ${url.pathname}`);
      return send(res, 200, asset.body, asset.type);
    }
    if (!url.pathname.startsWith('/api/')) throw new HttpError(404, new VaultgateError('NOT_FOUND', `no page ${url.pathname}`));

    const auth = authenticated(req);
    const changes = method !== 'GET' && method !== 'HEAD';
    if (changes && !originAllowed(req.headers.origin, allowed)) {
      throw refuse(403, `a state-changing request needs this server's Origin (got ${JSON.stringify(req.headers.origin ?? null)})`);
    }

    // The page trades the token from its URL for a session cookie (HttpOnly: scripts never see it).
    if (url.pathname === '/api/session' && method === 'POST') {
      if (auth !== 'bearer') throw refuse(401, 'the token is missing or wrong', 'Open the URL vaultgate serve printed (it carries the token).');
      const sid = randomToken();
      if (sessions.size >= MAX_SESSIONS) sessions.delete(sessions.values().next().value!);
      sessions.add(sid);
      return sendJson(res, 200, { ok: true, csrf_token: csrf }, { 'Set-Cookie': `${cookieName(port)}=${sid}; HttpOnly; SameSite=Strict; Path=/` });
    }
    if (!auth) throw refuse(401, 'the token is missing or wrong', 'Send Authorization: Bearer TOKEN, or open the URL vaultgate serve printed.');
    if (changes && !sameSecret(typeof req.headers['x-csrf-token'] === 'string' ? req.headers['x-csrf-token'] : undefined, csrf)) {
      throw refuse(403, 'the CSRF token is missing or wrong', 'Send X-CSRF-Token: the csrf_token of GET /api/session.');
    }

    if (url.pathname === '/api/session' && method === 'GET') {
      const id = session.identity();
      const has = (name: string) => findOperation({ name }) !== undefined;
      return sendJson(res, 200, {
        ok: true,
        csrf_token: csrf,
        vault: { root: session.root, vault_id: id.vault_id },
        operations: ['proposals', 'show', 'review', 'apply', 'decline', 'reopen', 'rollback', 'log', 'consent_pending', 'consent_approve', 'consent_deny'].filter(has),
      });
    }
    if (url.pathname === '/api/events' && method === 'GET') {
      // The mark is taken before the stream opens: a change made after the page saw `open` is always announced.
      if (!poll) lastMark = await queueMark();
      res.writeHead(200, { ...SECURITY_HEADERS, 'Content-Type': 'text/event-stream; charset=utf-8', Connection: 'keep-alive' });
      res.write(': vaultgate queue events\n\n');
      events.add(res);
      startPolling();
      req.on('close', () => {
        events.delete(res);
        if (events.size === 0 && poll) {
          clearInterval(poll);
          poll = undefined;
          lastMark = undefined;
        }
      });
      return;
    }

    const data = changes ? await readBody(req) : Object.fromEntries(url.searchParams);
    const found = matchRoute(method, url.pathname);
    if (!found) throw new HttpError(404, new VaultgateError('NOT_FOUND', `no API ${method} ${url.pathname}`));
    if ('error' in found) throw new HttpError(found.status, found.error);
    const raw = found.route.input(found.match, data);
    const r = await runOperation(found.op, raw, found.route.from, ctx);
    sendJson(res, 200, { ok: true, ...r.output });
  };

  const server = http.createServer((req, res) => {
    handle(req, res).catch((e: unknown) => {
      if (res.headersSent) return res.destroy();
      if (e instanceof HttpError) sendError(res, e.status, e.error);
      else sendError(res, 0, e);
    });
  });
  server.headersTimeout = 10_000;
  server.requestTimeout = 60_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', (e: NodeJS.ErrnoException) =>
      reject(
        e.code === 'EADDRINUSE'
          ? new VaultgateError('USAGE', `port ${opts.port} on ${host} is in use`, { hint: 'Pick another --port, or --port 0 for any free one.' })
          : new VaultgateError('USAGE', `cannot listen on ${host}:${opts.port}: ${e.message}`, { hint: 'Check --host and --port.' }),
      ),
    );
    server.listen(opts.port, host, () => resolve());
  });
  port = (server.address() as { port: number }).port;
  allowed = allowedHosts(host, port);
  const shownHost = host.includes(':') ? `[${host}]` : host;
  const url = `http://${shownHost}:${port}/#token=${token}`;
  if (!isLoopbackAddress(host)) opts.log(`vaultgate serve: WARNING: listening on ${host}, not loopback: anyone who can reach it and has the token can apply proposals`);

  return {
    url,
    token,
    port,
    host,
    vault: session.root,
    close: () =>
      new Promise<void>((resolve) => {
        if (poll) clearInterval(poll);
        for (const res of events) res.end();
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
