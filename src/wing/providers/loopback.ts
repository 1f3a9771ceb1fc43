import { LOCAL_SCHEME } from './local-embed.js';

/**
 * Whether a provider URL stays on this machine (DESIGN principle 7: nothing
 * leaves the machine without consent). Decided on the URL as the WHATWG URL
 * parser reads it — the same parser `fetch` uses — never on the string as
 * typed, so `http://127.1`, `http://0x7f.0.0.1` and `http://[::1]` are loopback
 * and `http://127.0.0.1@example.com` or `http://127.0.0.1.example.com` are not.
 *
 * Loopback means: the name `localhost`, an IPv4 address in 127.0.0.0/8, the
 * IPv6 address ::1, or an IPv4-mapped IPv6 loopback address. Not a
 * `*.localhost` name: RFC 6761 §6.3 says resolvers answer it with loopback, but
 * glibc's resolver sends it to DNS, whose answer can be any address (issue 20.1).
 * Any other name counts as remote even when it happens to resolve to 127.0.0.1
 * (a hosts-file entry can change without vaultgate knowing), and so does
 * 0.0.0.0: consent is asked for whenever the rule cannot prove the request
 * stays local.
 */
export function isLoopbackUrl(url: string | URL): boolean {
  let u: URL;
  try {
    u = typeof url === 'string' ? new URL(url) : url;
  } catch {
    return false;
  }
  // A model run in this process (local-embed.ts): the request never leaves it.
  if (u.protocol === LOCAL_SCHEME) return true;
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return false;
  const host = u.hostname.toLowerCase();
  if (host === 'localhost') return true;
  const v4 = /^(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(host);
  // The URL parser canonicalises every IPv4 spelling (127.1, 0x7f000001) to dotted decimal.
  if (v4) return v4[1] === '127';
  if (host.startsWith('[') && host.endsWith(']')) return isLoopbackIpv6(host.slice(1, -1));
  return false;
}

/** `::1`, and `::ffff:127.x.y.z` (which the URL parser writes as `::ffff:7fxx:xxxx`). */
function isLoopbackIpv6(addr: string): boolean {
  const groups = expandIpv6(addr);
  if (!groups) return false;
  if (groups.slice(0, 7).every((g) => g === 0) && groups[7] === 1) return true;
  const mapped = groups.slice(0, 5).every((g) => g === 0) && groups[5] === 0xffff;
  return mapped && groups[6]! >> 8 === 127;
}

/** Eight 16-bit groups of a canonical IPv6 address (as the URL parser writes it), or null. */
function expandIpv6(addr: string): number[] | null {
  const halves = addr.split('::');
  if (halves.length > 2) return null;
  const parse = (s: string) => (s === '' ? [] : s.split(':').map((g) => (/^[0-9a-f]{1,4}$/i.test(g) ? parseInt(g, 16) : NaN)));
  const head = parse(halves[0]!);
  const tail = halves.length === 2 ? parse(halves[1]!) : [];
  if ([...head, ...tail].some(Number.isNaN)) return null;
  const fill = 8 - head.length - tail.length;
  if (halves.length === 1 ? fill !== 0 : fill < 0) return null;
  return [...head, ...new Array<number>(fill).fill(0), ...tail];
}
