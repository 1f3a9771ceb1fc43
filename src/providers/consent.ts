import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import canonicalizeModule from 'canonicalize';
import { VaultgateError } from '../errors.js';
import { openStore, storeFile, type StoreDb, type StoreSpec } from '../store/index.js';
import { isLoopbackUrl } from './loopback.js';

type Env = Record<string, string | undefined>;
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;

/**
 * Consent before sending (DESIGN principle 7). Everything a command would send
 * to a provider is first laid out as a {@link SendPlan}: the destination, the
 * model, the notes whose text goes out (paths and byte counts) and the exact
 * request bodies. Its SHA-256 (canonical JSON, request bodies by hash) is the
 * plan's key: a consent approves exactly those bytes to exactly that place.
 *
 * The consent is the person's, and an agent must not be able to give it
 * (issue 20.1). So no face ever shows the key, and no argument takes one; a
 * consent comes only from a face an agent does not drive:
 *
 * - loopback destination (loopback.ts): no consent; the command says what it sent;
 * - a request the person approved in the web inbox (`consent approve` there,
 *   behind its token and CSRF guard): the next identical run sends, once;
 * - the CLI's `--consent` with a terminal: the person reads the plan on
 *   /dev/tty and types `yes` (the face's {@link ConsentGate.ask});
 * - otherwise CONSENT_REQUIRED (exit 77): what would be sent where (destination,
 *   host, purpose, notes, sections, bytes), a pending request the web inbox
 *   shows, and a hint saying the person must consent; nothing is sent.
 *
 * Every consent used is recorded (who, when, what, where, through which face).
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
  /** Pieces of text in the requests: note sections (embed), queries (dense search), notes (relate). */
  texts: number;
}

/** What a plan is, said without its bodies: shown to a person, hashed into its key, kept in the record. */
export interface PlanSummary {
  purpose: SendPlan['purpose'];
  provider: string;
  kind: string;
  destination: string;
  loopback: boolean;
  model: string;
  files: { path: string; bytes: number }[];
  texts: number;
  requests: number;
  request_bytes: number;
  /** SHA-256 of each request body, in order. */
  request_sha256: string[];
}


/** A consent that was used: its record, and the face the person gave it through. */
export interface ConsentGrant {
  /** The record's id (`consent list`). */
  id: number;
  via: 'terminal' | 'web';
}

export interface ConsentOutcome {
  /** null for a loopback destination (no consent needed). */
  grant: ConsentGrant | null;
  summary: PlanSummary;
}

/**
 * How the face running a command can get the person's consent. `ask` is set
 * only when the person asked to be asked (the CLI's `--consent`): a function
 * that shows the text on the person's terminal and answers whether they typed
 * yes (null: there was no terminal after all), or null when the face has no
 * terminal to ask on.
 */
export interface ConsentGate {
  face: 'cli' | 'mcp' | 'web' | 'terminal';
  ask?: ((text: string) => boolean | null) | null;
  /** The agent asking (VAULTGATE_AGENT), shown with a pending request. */
  agent?: string;
}

export const CONSENT_SCHEMA = 'vaultgate.consent.v1';
/** How long a pending request (and an approval not yet used) stays valid. */
export const CONSENT_REQUEST_TTL_MS = 24 * 3600_000;
/** Pending requests kept at most per vault: an agent retrying new queries must not grow the store without bound. */
export const MAX_PENDING_REQUESTS = 100;
/** How much of the first request body a pending request keeps for the person to read. */
const SHOWN_BODY_CHARS = 16 * 1024;
/** How many file names a refusal lists (the counts are always complete). */
const SHOWN_FILES = 50;

export function summarizePlan(plan: SendPlan): PlanSummary {
  return {
    purpose: plan.purpose,
    provider: plan.provider,
    kind: plan.kind,
    destination: plan.destination,
    loopback: isLoopbackUrl(plan.destination),
    model: plan.model,
    files: plan.files,
    texts: plan.texts,
    requests: plan.requests.length,
    request_bytes: plan.requests.reduce((n, r) => n + r.byteLength, 0),
    request_sha256: plan.requests.map((r) => crypto.createHash('sha256').update(r).digest('hex')),
  };
}

/** The key of a plan: SHA-256 over the canonical JSON of its summary. Internal: never shown by any face. */
export function planKey(summary: PlanSummary): string {
  return crypto.createHash('sha256').update(canonicalize({ schema: CONSENT_SCHEMA, ...summary })!).digest('hex');
}

function hostOf(destination: string): string {
  try {
    return new URL(destination).host;
  } catch {
    return destination;
  }
}

const PURPOSE_TEXT: Record<SendPlan['purpose'], string> = {
  embed: 'embedding (the text is turned into vectors)',
  relate: 'relate (a chat model reads two notes)',
};

/** What the person is asked: every fact they need, in a few lines. */
export function consentQuestion(s: PlanSummary): string {
  const files = s.files.slice(0, 20).map((f) => `  ${f.path} (${f.bytes} bytes)`);
  if (s.files.length > 20) files.push(`  … and ${s.files.length - 20} more notes`);
  return [
    `vaultgate wants to send text of your vault to a provider that is NOT on this machine.`,
    `  destination: ${s.destination}`,
    `  host:        ${hostOf(s.destination)}`,
    `  purpose:     ${PURPOSE_TEXT[s.purpose]}`,
    `  provider:    ${s.provider} (model ${s.model})`,
    `  sends:       ${s.files.length} notes, ${s.texts} texts, ${s.requests} requests, ${s.request_bytes} bytes`,
    ...(files.length ? ['  notes:', ...files] : ['  notes:       none (only the query)']),
    `Send exactly this? Type yes to send, anything else to cancel: `,
  ].join('\n');
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

/**
 * The outcomes checkConsent handed out, in this process: postToProvider sends
 * only bytes one of them covers, so no code path can reach the network without
 * passing the consent rule first (a plain object with the same fields is not one).
 */
const ISSUED = new WeakSet<ConsentOutcome>();
function issue(outcome: ConsentOutcome): ConsentOutcome {
  ISSUED.add(outcome);
  return outcome;
}
export function isIssuedConsent(outcome: ConsentOutcome): boolean {
  return ISSUED.has(outcome);
}

/**
 * Decide whether a plan may be sent: returns the outcome (a consent used is
 * recorded first), or throws CONSENT_REQUIRED / CONSENT_DECLINED with nothing sent.
 */
export function checkConsent(root: string, env: Env, plan: SendPlan, gate: ConsentGate): ConsentOutcome {
  const summary = summarizePlan(plan);
  if (summary.loopback) return issue({ grant: null, summary });
  const key = planKey(summary);
  const store = openStore(root, env, CONSENT_STORE)!;
  try {
    const db = store.db;
    const now = new Date();
    const live = db
      .prepare(`SELECT * FROM requests WHERE plan = ? AND expires_at > ? AND state IN ('pending', 'approved', 'declined') ORDER BY created_at DESC, rowid DESC`)
      .all(key, now.toISOString()) as RequestRow[];
    const approved = live.find((r) => r.state === 'approved');
    if (approved) {
      // One approval, one run: the row is used in the same transaction that records the consent.
      const id = db.transaction(() => {
        db.prepare(`UPDATE requests SET state = 'used', used_at = ? WHERE id = ? AND state = 'approved'`).run(now.toISOString(), approved.id);
        return insertRecord(db, key, summary, 'web', approved.id, approved.decided_by ?? who());
      })();
      return issue({ grant: { id, via: 'web' }, summary });
    }
    const answer = gate.ask ? gate.ask(consentQuestion(summary)) : gate.ask;
    if (answer === true) return issue({ grant: { id: insertRecord(db, key, summary, 'terminal', null, who()), via: 'terminal' }, summary });
    if (answer === false) {
      throw new VaultgateError('CONSENT_DECLINED', `not sent: you did not consent to sending ${summary.request_bytes} bytes to ${hostOf(summary.destination)}`, {
        details: refusalDetails(summary, null),
        hint: 'Nothing was sent. Use the offline default or a provider on this machine (docs/similar.md); to send, run the same command again and answer yes.',
      });
    }
    const declined = live.find((r) => r.state === 'declined');
    if (declined) {
      throw new VaultgateError('CONSENT_DECLINED', `the person declined sending this to ${hostOf(summary.destination)} (consent request ${declined.id}); nothing was sent`, {
        details: refusalDetails(summary, declined.id),
        hint: 'Nothing was sent, and identical runs are refused until the request expires (24 h). Use the offline default or a provider on this machine (docs/similar.md).',
      });
    }
    const request = live.find((r) => r.state === 'pending')?.id ?? addRequest(db, key, summary, plan, gate, now);
    throw new VaultgateError(
      'CONSENT_REQUIRED',
      `sending to ${summary.destination} (not this machine) needs the person's consent: ${summary.purpose}, ${summary.files.length} notes, ${summary.texts} texts, ${summary.request_bytes} bytes; nothing was sent` +
        (answer === null ? ' (--consent asks on a terminal, and this run has none)' : ''),
      { details: refusalDetails(summary, request), hint: consentHint(gate, request) },
    );
  } finally {
    store.db.close();
  }
}

/** What a refusal says: what would be sent where, and the pending request — never the plan's key. */
function refusalDetails(s: PlanSummary, request: string | null): Record<string, unknown> {
  return {
    purpose: s.purpose,
    provider: s.provider,
    kind: s.kind,
    destination: s.destination,
    host: hostOf(s.destination),
    loopback: false,
    model: s.model,
    notes: s.files.length,
    files: s.files.slice(0, SHOWN_FILES),
    files_truncated: s.files.length > SHOWN_FILES,
    sections: s.texts,
    requests: s.requests,
    request_bytes: s.request_bytes,
    consent_request: request,
  };
}

function consentHint(gate: ConsentGate, request: string): string {
  const web = `approve consent request ${request} in the web inbox (\`vaultgate serve\`)`;
  if (gate.face === 'mcp') {
    return `Nothing was sent, and an agent cannot consent: ask the person to ${web}, or to run the same command with --consent in their terminal, which asks them there. After the person approved, call this tool again with the same arguments; it sends exactly this once.`;
  }
  return `Nothing was sent. The person consents in a terminal: run the same command with --consent there, which shows what would be sent and asks; or ${web}, then run the same command again.`;
}

interface RequestRow {
  id: string;
  plan: string;
  state: 'pending' | 'approved' | 'declined' | 'used';
  decided_by: string | null;
}

function addRequest(db: StoreDb, key: string, s: PlanSummary, plan: SendPlan, gate: ConsentGate, now: Date): string {
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

const CONSENT_STORE: StoreSpec = {
  name: 'consent',
  applicationId: 0x5647434e, // 'VGCN'
  migrations: [
    `CREATE TABLE consents (
       id          INTEGER PRIMARY KEY,
       token       TEXT NOT NULL,             -- the plan's key (planKey); never shown
       granted_at  TEXT NOT NULL,             -- ISO time the consent was given and the plan sent
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
    // Issue 20.1: consent only through a face an agent does not drive; requests wait for the person.
    `ALTER TABLE consents ADD COLUMN via TEXT NOT NULL DEFAULT 'token';   -- terminal | web ('token': before 20.1)
     ALTER TABLE consents ADD COLUMN request_id TEXT;                   -- the approved request, for via = web
     CREATE TABLE requests (
       id            TEXT PRIMARY KEY,        -- cr-…: what the person approves; not a capability
       plan          TEXT NOT NULL,           -- the plan's key; never shown
       created_at    TEXT NOT NULL,
       expires_at    TEXT NOT NULL,
       face          TEXT NOT NULL,           -- the face that asked (mcp, cli, …)
       agent         TEXT,                    -- VAULTGATE_AGENT of the asking process
       purpose       TEXT NOT NULL,
       provider      TEXT NOT NULL,
       kind          TEXT NOT NULL,
       destination   TEXT NOT NULL,
       model         TEXT NOT NULL,
       files         TEXT NOT NULL,           -- JSON [{path, bytes}]
       texts         INTEGER NOT NULL,
       requests      INTEGER NOT NULL,
       request_bytes INTEGER NOT NULL,
       first_request TEXT NOT NULL,           -- the start of the first request body, for the person to read
       state         TEXT NOT NULL CHECK (state IN ('pending', 'approved', 'declined', 'used')),
       decided_at    TEXT,
       decided_by    TEXT,
       used_at       TEXT
     ) STRICT;
     CREATE INDEX requests_by_plan ON requests(plan, state);`,
  ],
};

export interface ConsentRecord {
  id: number;
  granted_at: string;
  who: string;
  /** How the person consented: `terminal` (--consent on a TTY), `web` (the web inbox), `token` (before issue 20.1). */
  via: string;
  request_id: string | null;
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

function insertRecord(db: StoreDb, key: string, s: PlanSummary, via: ConsentGrant['via'], requestId: string | null, by: string): number {
  const r = db
    .prepare(
      `INSERT INTO consents(token, granted_at, who, purpose, provider, destination, model, files, requests, request_bytes, request_sha256, via, request_id)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
    )
    .run(key, new Date().toISOString(), by, s.purpose, s.provider, s.destination, s.model, JSON.stringify(s.files), s.requests, s.request_bytes, JSON.stringify(s.request_sha256), via, requestId);
  return Number(r.lastInsertRowid);
}

/**
 * The store for a read, or null when there is none yet (a read never creates
 * it). Opened for writing, not read-only: a store from before issue 20.1 (schema
 * 1) is upgraded on this first read instead of refusing `consent list`.
 */
function openExisting(root: string, env: Env) {
  return fs.existsSync(storeFile(root, env, CONSENT_STORE.name)) ? openStore(root, env, CONSENT_STORE) : null;
}

/** Every consent given for this vault, newest first (`vaultgate consent list`). */
export function listConsents(root: string, env: Env, limit = 100): ConsentRecord[] {
  const store = openExisting(root, env);
  if (!store) return [];
  try {
    const rows = store.db.prepare('SELECT * FROM consents ORDER BY granted_at DESC, id DESC LIMIT ?').all(limit) as Array<Record<string, unknown>>;
    return rows.map((r) => ({
      id: r.id as number,
      granted_at: r.granted_at as string,
      who: r.who as string,
      via: r.via as string,
      request_id: (r.request_id as string | null) ?? null,
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
