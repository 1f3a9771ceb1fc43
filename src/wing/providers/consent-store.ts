import fs from 'node:fs';
import os from 'node:os';
import { openStore, storeFile, type StoreDb, type StoreSpec } from '../../store/index.js';
import type { ConsentGrant, PlanSummary, SendPlan } from './consent.js';

type Env = Record<string, string | undefined>;

/**
 * Where consent lives (`consent.sqlite` in the data store): the records of
 * every consent used, and the requests waiting for the person
 * (consent-requests.ts). Shared words for both questions a person is asked.
 */

export function hostOf(destination: string): string {
  try {
    return new URL(destination).host;
  } catch {
    return destination;
  }
}

export const PURPOSE_TEXT: Record<SendPlan['purpose'], string> = {
  embed: 'embedding (the text is turned into vectors)',
  relate: 'relate (a chat model reads two notes)',
  atomize: 'atomize (a chat model reads a book chunk by chunk to list its entities)',
};

export const CONSENT_STORE: StoreSpec = {
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

export function who(): string {
  let user = 'unknown';
  try {
    user = os.userInfo().username;
  } catch {
    // no passwd entry (containers): keep 'unknown'
  }
  return `${user}@${os.hostname()}`;
}

/** A plan as consent keeps it: its key (what identical runs share) and its summary. */
export interface KeyedPlan {
  key: string;
  summary: PlanSummary;
}

/** Record a consent given for `planned`: how (`via`), answering which request (web), and by whom. */
export function insertRecord(db: StoreDb, planned: KeyedPlan, grant: { via: ConsentGrant['via']; requestId: string | null; by: string }): number {
  const { key, summary: s } = planned;
  const { via, requestId, by } = grant;
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
export function openExisting(root: string, env: Env) {
  return fs.existsSync(storeFile(root, env, CONSENT_STORE.name)) ? openStore(root, env, CONSENT_STORE) : null;
}

/** Every consent given for this vault, newest first (`vaultgate consent list`). */
export function listConsents(root: string, env: Env, limit = 100): ConsentRecord[] {
  const store = openExisting(root, env);
  if (!store) return [];
  try {
    const rows = store.db.prepare('SELECT * FROM consents ORDER BY granted_at DESC, id DESC LIMIT ?').all(limit) as Array<Record<string, unknown>>;
    // Row to record field by field, like consent-requests' toRequest: another table, and the cast is the check
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
