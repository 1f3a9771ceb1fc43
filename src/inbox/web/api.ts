import { EXIT_CODES, VaultgateError, type ErrorCode } from '../../errors.js';
import { findOperation, type Operation } from '../../ops/index.js';

/**
 * The JSON API under `/api/` as a table: each route names an operation of the
 * table and how the request becomes its input. No route decides anything: the
 * operation validates the input (unknown fields refused), runs the core, and
 * its JSON is the response body (`{"ok": true, …}` / `{"ok": false, "error"}`),
 * exactly what the CLI prints with `--json`.
 *
 * GET query values arrive as text and are read as the CLI reads its flags
 * (`limit=5` is a number); POST bodies are JSON, read as MCP arguments.
 */

export interface Route {
  method: 'GET' | 'POST';
  pattern: RegExp;
  /** The operation's name in the table (looked up per request: the table is the source). */
  op: string | ((m: RegExpExecArray) => string);
  /** The raw input: query or body, plus the path's id. */
  input(m: RegExpExecArray, data: Record<string, unknown>): Record<string, unknown>;
  from: 'cli' | 'api';
}

const ID = '([A-Za-z0-9][A-Za-z0-9_.-]{0,63})';

/** Proposal actions a POST may name: each is the operation of that name. */
export const PROPOSAL_ACTIONS = ['review', 'apply', 'decline', 'reopen', 'rollback'] as const;

/** Consent request actions a POST may name: `consent_approve`, `consent_deny`. */
export const CONSENT_ACTIONS = ['approve', 'deny'] as const;

export const ROUTES: readonly Route[] = [
  { method: 'GET', pattern: /^\/api\/proposals$/, op: 'proposals', input: (_m, q) => q, from: 'cli' },
  { method: 'GET', pattern: new RegExp(`^/api/proposals/${ID}$`), op: 'show', input: (m, q) => ({ ...q, id: m[1] }), from: 'cli' },
  {
    method: 'POST',
    pattern: new RegExp(`^/api/proposals/${ID}/(${PROPOSAL_ACTIONS.join('|')})$`),
    op: (m) => m[2]!,
    input: (m, body) => ({ ...body, id: m[1] }),
    from: 'api',
  },
  // The change-request list itself, as the MCP tool takes it (docs/json.md, "propose"); reviewed like any other proposal.
  { method: 'POST', pattern: /^\/api\/propose$/, op: 'propose', input: (_m, body) => body, from: 'api' },
  { method: 'GET', pattern: /^\/api\/log$/, op: 'log', input: (_m, q) => q, from: 'cli' },
  // Consent requests (providers/consent.ts): the person approves sending note text off this machine here, like a proposal.
  { method: 'GET', pattern: /^\/api\/consent$/, op: 'consent_pending', input: (_m, q) => q, from: 'cli' },
  {
    method: 'POST',
    pattern: new RegExp(`^/api/consent/${ID}/(${CONSENT_ACTIONS.join('|')})$`),
    op: (m) => `consent_${m[2]!}`,
    input: (m, body) => ({ ...body, id: m[1] }),
    from: 'api',
  },
];

export function matchRoute(method: string, pathname: string): { route: Route; match: RegExpExecArray; op: Operation } | { error: VaultgateError; status: number } | null {
  let methodMismatch = false;
  for (const route of ROUTES) {
    const match = route.pattern.exec(pathname);
    if (!match) continue;
    if (route.method !== method) {
      methodMismatch = true;
      continue;
    }
    const name = typeof route.op === 'string' ? route.op : route.op(match);
    const op = findOperation({ name });
    if (!op) {
      return {
        status: 501,
        error: new VaultgateError('NOT_FOUND', `this vaultgate has no \`${name}\` operation`, { hint: 'The proposals core is not part of this build.' }),
      };
    }
    return { route, match, op };
  }
  if (methodMismatch) return { status: 405, error: new VaultgateError('USAGE', `${method} is not allowed on ${pathname}`) };
  return null;
}

/** HTTP status of an error document: its exit class, with a not-found (`NOT_FOUND`, `…_UNKNOWN`) a 404. */
export function httpStatus(code: string): number {
  if (/(^|_)NOT_FOUND$|_UNKNOWN$/.test(code)) return 404;
  const exit = EXIT_CODES[code as ErrorCode] ?? 1;
  switch (exit) {
    case 2:
      return 400;
    case 3:
      return 500;
    case 69:
      return 503;
    case 75:
      return 409;
    case 77:
      return 403;
    default:
      return 500;
  }
}
