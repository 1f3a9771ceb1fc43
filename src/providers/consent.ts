import crypto from 'node:crypto';
import os from 'node:os';
import canonicalizeModule from 'canonicalize';
import { VaultgateError } from '../errors.js';
import { openStore, type StoreSpec } from '../store/index.js';
import { isLoopbackUrl } from './loopback.js';

type Env = Record<string, string | undefined>;
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/**
 * Consent before sending (DESIGN principle 7). Everything a command would send
 * to a provider is first laid out as a {@link SendPlan}: the destination, the
 * model, the notes whose text goes out (paths and byte counts) and the exact
 * request bodies. The consent token is the SHA-256 of that plan (canonical
 * JSON, request bodies by hash), so a token approves exactly those bytes to
 * exactly that place: another note, an edited note, another model or URL
 * gives another token.
 *
 * - loopback destination (loopback.ts): no token; the command says what it sent;
 * - otherwise, no `--consent`: CONSENT_REQUIRED (exit 77) carrying the plan,
 *   the first request body and the token; nothing is sent;
 * - `--consent TOKEN` of another plan: CONSENT_MISMATCH (exit 77), the new plan
 *   and token; nothing is sent;
 * - the right token: a consent record (who, when, what, where) is stored in
 *   the data store, then the requests are sent.
 */
export interface SendPlan {
  /** Why: `relate` (a catalog to a chat model) or `embed` (note sections to an embedding model). */
  purpose: 'relate' | 'embed';
  provider: string;
  kind: string;
  /** The endpoint the requests are POSTed to. */
  destination: string;
  model: string;
  /** Notes whose text is in the requests, with the bytes of their text sent. */
  files: { path: string; bytes: number }[];
  /** The exact request bodies, in sending order. */
  requests: Uint8Array[];
}

/** What a plan is, said without its bodies: shown to a person, hashed into the token, kept in the record. */
export interface PlanSummary {
  purpose: SendPlan['purpose'];
  provider: string;
  kind: string;
  destination: string;
  loopback: boolean;
  model: string;
  files: { path: string; bytes: number }[];
  requests: number;
  request_bytes: number;
  /** SHA-256 of each request body, in order. */
  request_sha256: string[];
}

export interface ConsentOutcome {
  /** null for a loopback destination (no consent needed). */
  token: string | null;
  summary: PlanSummary;
}

export const CONSENT_SCHEMA = 'vaultgate.consent.v1';

export function summarizePlan(plan: SendPlan): PlanSummary {
  return {
    purpose: plan.purpose,
    provider: plan.provider,
    kind: plan.kind,
    destination: plan.destination,
    loopback: isLoopbackUrl(plan.destination),
    model: plan.model,
    files: plan.files,
    requests: plan.requests.length,
    request_bytes: plan.requests.reduce((n, r) => n + r.byteLength, 0),
    request_sha256: plan.requests.map((r) => crypto.createHash('sha256').update(r).digest('hex')),
  };
}

/** The consent token of a plan: SHA-256 over the canonical JSON of its summary. */
export function consentToken(summary: PlanSummary): string {
  return crypto.createHash('sha256').update(canonicalize({ schema: CONSENT_SCHEMA, ...summary })!).digest('hex');
}

/** How much of the first request body an error shows: enough to read, bounded for a 10k-note embedding plan. */
const SHOWN_BODY_CHARS = 64 * 1024;

/**
 * Decide whether a plan may be sent: throws CONSENT_REQUIRED / CONSENT_MISMATCH
 * (nothing sent), or returns the outcome, having recorded a given consent.
 */
export function checkConsent(root: string, env: Env, plan: SendPlan, consent: string | undefined): ConsentOutcome {
  const summary = summarizePlan(plan);
  if (summary.loopback) return { token: null, summary };
  const token = consentToken(summary);
  if (consent === token) {
    recordConsent(root, env, token, summary);
    return { token, summary };
  }
  const first = plan.requests[0] ? Buffer.from(plan.requests[0]).toString('utf8') : '';
  const details = {
    token,
    ...summary,
    first_request_body: first.length > SHOWN_BODY_CHARS ? first.slice(0, SHOWN_BODY_CHARS) : first,
    first_request_body_truncated: first.length > SHOWN_BODY_CHARS,
  };
  if (consent === undefined) {
    throw new VaultgateError('CONSENT_REQUIRED', `sending to ${summary.destination} (not this machine) needs your consent: ${summary.files.length} notes, ${summary.requests} requests, ${summary.request_bytes} bytes`, {
      details,
      hint: 'Read details (destination, files, first_request_body); to send exactly this, run the same command again with --consent ' + token + '.',
    });
  }
  throw new VaultgateError('CONSENT_MISMATCH', 'the consent token does not match what would be sent now (a note, the model or the destination changed)', {
    details,
    hint: 'Nothing was sent. Read the new plan in details; to send it, run again with --consent ' + token + '.',
  });
}

const CONSENT_STORE: StoreSpec = {
  name: 'consent',
  applicationId: 0x5647434e, // 'VGCN'
  migrations: [
    `CREATE TABLE consents (
       id          INTEGER PRIMARY KEY,
       token       TEXT NOT NULL,             -- SHA-256 of the plan (consentToken)
       granted_at  TEXT NOT NULL,             -- ISO time the token was given and the plan sent
       who         TEXT NOT NULL,             -- user@host of the process
       purpose     TEXT NOT NULL,
       provider    TEXT NOT NULL,
       destination TEXT NOT NULL,
       model       TEXT NOT NULL,
       files       TEXT NOT NULL,             -- JSON [{path, bytes}]
       requests    INTEGER NOT NULL,
       request_bytes INTEGER NOT NULL,
       request_sha256 TEXT NOT NULL           -- JSON [sha256…]
     ) STRICT;
     CREATE INDEX consents_by_time ON consents(granted_at);`,
  ],
};

export interface ConsentRecord {
  id: number;
  token: string;
  granted_at: string;
  who: string;
  purpose: string;
  provider: string;
  destination: string;
  model: string;
  files: { path: string; bytes: number }[];
  requests: number;
  request_bytes: number;
}

function who(): string {
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    // no passwd entry (containers): keep 'unknown'
  }
  return `${user}@${os.hostname()}`;
}

function recordConsent(root: string, env: Env, token: string, s: PlanSummary): void {
  const store = openStore(root, env, CONSENT_STORE)!;
  try {
    store.db
      .prepare(
        `INSERT INTO consents(token, granted_at, who, purpose, provider, destination, model, files, requests, request_bytes, request_sha256)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(token, new Date().toISOString(), who(), s.purpose, s.provider, s.destination, s.model, JSON.stringify(s.files), s.requests, s.request_bytes, JSON.stringify(s.request_sha256));
  } finally {
    store.db.close();
  }
}

/** Every consent given for this vault, newest first (`vaultgate consent list`). */
export function listConsents(root: string, env: Env, limit = 100): ConsentRecord[] {
  const store = openStore(root, env, CONSENT_STORE, { readonly: true });
  if (!store) return [];
  try {
    const rows = store.db.prepare('SELECT * FROM consents ORDER BY granted_at DESC, id DESC LIMIT ?').all(limit) as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      id: r.id as number,
      token: r.token as string,
      granted_at: r.granted_at as string,
      who: r.who as string,
      purpose: r.purpose as string,
      provider: r.provider as string,
      destination: r.destination as string,
      model: r.model as string,
      files: JSON.parse(r.files as string) as { path: string; bytes: number }[],
      requests: r.requests as number,
      request_bytes: r.request_bytes as number,
    }));
  } finally {
    store.db.close();
  }
}
