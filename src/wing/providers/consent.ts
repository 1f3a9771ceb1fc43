import crypto from 'node:crypto';
import canonicalizeModule from 'canonicalize';
import { VaultgateError } from '../../errors.js';
import { openStore } from '../../store/index.js';
import { addRequest, type RequestRow } from './consent-requests.js';
import { CONSENT_STORE, hostOf, insertRecord, PURPOSE_TEXT, who } from './consent-store.js';
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
  /** Why: `relate` (a catalog to a chat model), `embed` (note sections to an embedding model) or `atomize` (a book's chunks to a chat model). */
  purpose: 'relate' | 'embed' | 'atomize';
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
    const planned = { key, summary };
    const approved = live.find((r) => r.state === 'approved');
    if (approved) {
      // One approval, one run: the row is used in the same transaction that records the consent,
      // and only by the run whose update took it (two identical runs at once: one sends).
      const id = db.transaction(() => {
        const took = db.prepare(`UPDATE requests SET state = 'used', used_at = ? WHERE id = ? AND state = 'approved'`).run(now.toISOString(), approved.id).changes === 1;
        return took ? insertRecord(db, planned, { via: 'web', requestId: approved.id, by: approved.decided_by ?? who() }) : null;
      }).immediate();
      if (id !== null) return issue({ grant: { id, via: 'web' }, summary });
    }
    const answer = gate.ask ? gate.ask(consentQuestion(summary)) : gate.ask;
    if (answer === true) return issue({ grant: { id: insertRecord(db, planned, { via: 'terminal', requestId: null, by: who() }), via: 'terminal' }, summary });
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
    const request = live.find((r) => r.state === 'pending')?.id ?? addRequest(db, { ...planned, plan, gate }, now);
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
    return `Nothing was sent, and an agent cannot consent: ask the person to ${web}, or on their own terminal (\`vaultgate consent approve ${request}\`, which asks them there). After the person approved, call this tool again with the same arguments; it sends exactly this once.`;
  }
  return `Nothing was sent. The person consents in a terminal: run the same command with --consent there, which shows what would be sent and asks; or ${web}, then run the same command again.`;
}

