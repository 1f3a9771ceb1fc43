import crypto from 'node:crypto';
import { VaultgateError } from '../../errors.js';
import { openStore, type StoreDb } from '../../store/index.js';
import type { ConsentGate, SendPlan } from './consent.js';
import { CONSENT_STORE, hostOf, openExisting, PURPOSE_TEXT, who, type KeyedPlan } from './consent-store.js';

type Env = Record<string, string | undefined>;

/**
 * Consent requests: what a refused run leaves for the person (issue 20.1). The
 * web inbox lists them and approves or declines one; `consent approve` does it
 * on a terminal. An approved request lets the next identical plan through once
 * (providers/consent.ts).
 */

/** How long a pending request (and an approval not yet used) stays valid. */
export const CONSENT_REQUEST_TTL_MS = 24 * 3600_000;
/** Pending requests kept at most per vault: an agent retrying new queries must not grow the store without bound. */
export const MAX_PENDING_REQUESTS = 100;
/** How much of the first request body a pending request keeps for the person to read. */
const SHOWN_BODY_CHARS = 16 * 1024;

export interface RequestRow {
  id: string;
  plan: string;
  state: 'pending' | 'approved' | 'declined' | 'used';
  decided_by: string | null;
}

/**
 * A new pending request for a refused plan (checkConsent reuses a live one of the
 * same plan): what the person will see, and the start of the first body so they
 * can read what would go out. Its id names it to the person; it grants nothing.
 */
export function addRequest(db: StoreDb, refused: KeyedPlan & { plan: SendPlan; gate: ConsentGate }, now: Date): string {
  const { key, summary: s, plan, gate } = refused;
  const id = `cr-${crypto.randomBytes(6).toString('hex')}`;
  const first = plan.requests[0] ? Buffer.from(plan.requests[0]).toString('utf8') : '';
  db.transaction(() => {
    db.prepare(
      `INSERT INTO requests(id, plan, created_at, expires_at, face, agent, purpose, provider, kind, destination, model, files, texts, requests, request_bytes, first_request, state)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'pending')`,
    ).run(
      id,
      key,
      now.toISOString(),
      new Date(now.getTime() + CONSENT_REQUEST_TTL_MS).toISOString(),
      gate.face,
      gate.agent ?? null,
      s.purpose,
      s.provider,
      s.kind,
      s.destination,
      s.model,
      JSON.stringify(s.files),
      s.texts,
      s.requests,
      s.request_bytes,
      first.length > SHOWN_BODY_CHARS ? first.slice(0, SHOWN_BODY_CHARS) : first,
    );
    // Bounded: the oldest pending requests beyond the cap go.
    db.prepare(`DELETE FROM requests WHERE state = 'pending' AND id NOT IN (SELECT id FROM requests WHERE state = 'pending' ORDER BY created_at DESC, rowid DESC LIMIT ?)`).run(MAX_PENDING_REQUESTS);
  })();
  return id;
}

/** A request waiting for (or decided by) the person, as the inboxes show it. */
export interface ConsentRequest {
  id: string;
  state: RequestRow['state'];
  created_at: string;
  expires_at: string;
  face: string;
  agent: string | null;
  purpose: string;
  provider: string;
  kind: string;
  destination: string;
  host: string;
  model: string;
  notes: number;
  files: { path: string; bytes: number }[];
  sections: number;
  requests: number;
  request_bytes: number;
  first_request: string;
  decided_at: string | null;
  decided_by: string | null;
}

function toRequest(r: Record<string, unknown>): ConsentRequest {
  const files = JSON.parse(r.files as string) as { path: string; bytes: number }[];
  return {
    id: r.id as string,
    state: r.state as RequestRow['state'],
    created_at: r.created_at as string,
    expires_at: r.expires_at as string,
    face: r.face as string,
    agent: (r.agent as string | null) ?? null,
    purpose: r.purpose as string,
    provider: r.provider as string,
    kind: r.kind as string,
    destination: r.destination as string,
    host: hostOf(r.destination as string),
    model: r.model as string,
    notes: files.length,
    files,
    sections: r.texts as number,
    requests: r.requests as number,
    request_bytes: r.request_bytes as number,
    first_request: r.first_request as string,
    decided_at: (r.decided_at as string | null) ?? null,
    decided_by: (r.decided_by as string | null) ?? null,
  };
}

/** Requests not yet expired, newest first: pending ones, or all (`all`). */
export function listConsentRequests(root: string, env: Env, opts: { all?: boolean; limit?: number } = {}): ConsentRequest[] {
  const store = openExisting(root, env);
  if (!store) return [];
  try {
    const rows = store.db
      .prepare(`SELECT * FROM requests WHERE expires_at > ? ${opts.all ? '' : "AND state = 'pending'"} ORDER BY created_at DESC, rowid DESC LIMIT ?`)
      .all(new Date().toISOString(), opts.limit ?? 100) as Array<Record<string, unknown>>;
    return rows.map(toRequest);
  } finally {
    store.db.close();
  }
}

/**
 * The person's decision on a pending request (the web inbox, or `consent
 * approve` confirmed on a terminal): approved, the next identical run sends
 * once; declined, identical runs are refused until it expires.
 */
export function decideConsentRequest(root: string, env: Env, id: string, decision: 'approved' | 'declined', by: string = who()): ConsentRequest {
  const store = openStore(root, env, CONSENT_STORE)!;
  try {
    const db = store.db;
    return db.transaction(() => {
      const row = db.prepare('SELECT * FROM requests WHERE id = ?').get(id) as Record<string, unknown> | undefined;
      if (!row || (row.expires_at as string) <= new Date().toISOString()) {
        throw new VaultgateError('NOT_FOUND', `no consent request ${id}${row ? ' (it expired)' : ''}`, {
          hint: 'Run the command again to make a new request, then look at the pending ones (`vaultgate consent pending`, or the web inbox).',
        });
      }
      if (row.state !== 'pending') {
        throw new VaultgateError('INVALID_INPUT', `consent request ${id} is already ${row.state as string}`, { hint: 'Run the command again to make a new request.' });
      }
      db.prepare('UPDATE requests SET state = ?, decided_at = ?, decided_by = ? WHERE id = ?').run(decision, new Date().toISOString(), by, id);
      return toRequest(db.prepare('SELECT * FROM requests WHERE id = ?').get(id) as Record<string, unknown>);
    })();
  } finally {
    store.db.close();
  }
}

/** A request by id (any state), for a face to show before asking the person. */
export function getConsentRequest(root: string, env: Env, id: string): ConsentRequest | null {
  const store = openExisting(root, env);
  if (!store) return null;
  try {
    const row = store.db.prepare('SELECT * FROM requests WHERE id = ?').get(id) as Record<string, unknown> | undefined;
    return row ? toRequest(row) : null;
  } finally {
    store.db.close();
  }
}

/** The question `consent approve ID` asks on a terminal: the stored request, as the web inbox shows it. */
export function requestQuestion(r: ConsentRequest): string {
  const files = r.files.slice(0, 20).map((f) => `  ${f.path} (${f.bytes} bytes)`);
  if (r.files.length > 20) files.push(`  … and ${r.files.length - 20} more notes`);
  return [
    `Consent request ${r.id}${r.agent ? `, asked by ${r.agent}` : ''} (through ${r.face}, ${r.created_at}):`,
    `send text of your vault to a provider that is NOT on this machine.`,
    `  destination: ${r.destination}`,
    `  host:        ${r.host}`,
    `  purpose:     ${PURPOSE_TEXT[r.purpose as SendPlan['purpose']] ?? r.purpose}`,
    `  provider:    ${r.provider} (model ${r.model})`,
    `  sends:       ${r.notes} notes, ${r.sections} texts, ${r.requests} requests, ${r.request_bytes} bytes`,
    ...(files.length ? ['  notes:', ...files] : ['  notes:       none (only the query)']),
    `Approve it (the next identical run sends exactly this, once)? Type yes to approve, anything else to cancel: `,
  ].join('\n');
}
