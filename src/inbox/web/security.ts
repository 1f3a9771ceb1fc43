import crypto from 'node:crypto';
import net from 'node:net';

/**
 * The web inbox's security rules, as pure functions the server applies to
 * every request (and tests call directly). The threat: any web page the user
 * visits can make their browser send requests to 127.0.0.1, and a DNS name can
 * be re-pointed at 127.0.0.1 after the page loaded (DNS rebinding). So:
 *
 * - the server binds loopback only, unless `--host` names another address;
 * - the `Host` header must name the address the server listens on (a rebinding
 *   page's requests carry its own host name);
 * - every `/api/` call needs the secret token — `Authorization: Bearer`, or the
 *   session cookie the page gets by presenting the token once;
 * - a state-changing call also needs an `Origin` equal to the server's own
 *   origin and the CSRF token (`X-CSRF-Token`), and a JSON body (a cross-site
 *   form cannot send `application/json` without a preflight, which is refused);
 * - every response forbids framing and inline script (CSP), so note text that
 *   slipped into the page as markup still could not run.
 */

/** 32 random bytes, URL-safe: the token in the printed URL, session ids, the CSRF token. */
export function randomToken(): string {
  return crypto.randomBytes(32).toString('base64url');
}

/** Compare secrets in time independent of where they differ. */
export function sameSecret(given: string | undefined, expected: string): boolean {
  if (given === undefined) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && crypto.timingSafeEqual(a, b);
}

export function isLoopbackAddress(host: string): boolean {
  const h = host.replace(/^\[|\]$/g, '');
  if (h === 'localhost') return true;
  if (net.isIPv4(h)) return h.startsWith('127.');
  if (net.isIPv6(h)) return h === '::1';
  return false;
}

/** The `Host` header values this server answers to: its address (and `localhost` when loopback) with its port. */
export function allowedHosts(bindHost: string, port: number): Set<string> {
  const hosts = new Set<string>();
  const add = (h: string) => hosts.add(`${net.isIPv6(h) ? `[${h}]` : h}:${port}`.toLowerCase());
  add(bindHost);
  if (isLoopbackAddress(bindHost)) ['127.0.0.1', 'localhost', '::1'].forEach(add);
  return hosts;
}

export function hostAllowed(hostHeader: string | undefined, allowed: Set<string>): boolean {
  return hostHeader !== undefined && allowed.has(hostHeader.toLowerCase());
}

/** A state-changing request's `Origin` must be this server's own (`http://` + an allowed host). */
export function originAllowed(origin: string | undefined, allowed: Set<string>): boolean {
  if (!origin) return false;
  const m = /^http:\/\/([^/]+)$/i.exec(origin);
  return m !== null && allowed.has(m[1]!.toLowerCase());
}

/** The session cookie's name: per port, because cookies are shared across ports of one host. */
export function cookieName(port: number): string {
  return `vaultgate_${port}`;
}

export function readCookie(header: string | undefined, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

export function bearer(header: string | undefined): string | undefined {
  const m = /^Bearer ([A-Za-z0-9_-]+)$/.exec(header ?? '');
  return m?.[1];
}

/** Headers on every response. */
export const SECURITY_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy':
    "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; font-src 'none'; object-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'",
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
  'Cache-Control': 'no-store',
};
