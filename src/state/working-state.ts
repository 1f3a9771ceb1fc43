import fs from 'node:fs';
import { VaultgateError } from '../errors.js';
import { storeFile, type StoreDb } from '../store/index.js';
import { parseStrictJson } from '../txn/index.js';
import { MAX_STATE_BYTES, MAX_STATE_PATCH_BYTES, MAX_STATE_SESSIONS, SESSION_ID } from './limits.js';
import { mergePatch } from './merge-patch.js';
import { STATE_STORE, openStateStore } from './state-store.js';

type Env = Record<string, string | undefined>;

/**
 * Agents' working state outside the vault (DESIGN §3, issue 8 §5): per session,
 * one JSON object and a revision. A change is an RFC 7396 merge patch sent with
 * the revision it was computed against; a different current revision is
 * STATE_STALE (exit 75) and nothing changes, so of two writers that read the
 * same revision exactly one wins. Each patch is one SQLite write transaction
 * (`BEGIN IMMEDIATE`, `synchronous = FULL`): atomic and durable.
 */

/**
 * The `meta` key that keeps a deleted session's last revision: its next life
 * starts above it. (Stores made before per-session revisions also hold
 * `last_revision`, the old store-wide counter; it is no longer read.)
 */
function tombstoneKey(session: string): string {
  return `deleted:${session}`;
}

/** A session's state as `state get` and `state patch` print it. */
export interface StateDocument {
  session: string;
  /** 0 for a session with no state yet; 1 after its first patch, +1 with each patch. */
  revision: number;
  state: Record<string, unknown>;
}

export interface StateListing {
  session: string;
  revision: number;
  /** Size of the state's JSON, UTF-8 bytes. */
  bytes: number;
  created_at: string;
  updated_at: string;
}

export function assertSessionId(session: string): void {
  if (!SESSION_ID.test(session)) {
    throw new VaultgateError('INVALID_INPUT', `${JSON.stringify(session.slice(0, 200))} is not a session id`, {
      hint: 'A session id is 1–128 letters, digits and . _ : @ -, starting with a letter or digit.',
      details: { session: session.slice(0, 200) },
    });
  }
}

function assertRevision(revision: number): void {
  if (!Number.isSafeInteger(revision) || revision < 0) {
    throw new VaultgateError('USAGE', `revision must be a whole number ≥ 0, not ${revision}`, { hint: 'Pass the revision `vaultgate state get` printed.' });
  }
}

interface Row {
  revision: number;
  state: string;
}

function withStore<T>(root: string, env: Env, readonly: boolean, use: (db: StoreDb | null) => T): T {
  const store = openStateStore(root, env, { readonly });
  try {
    return use(store?.db ?? null);
  } catch (e) {
    const code = (e as { code?: string }).code ?? '';
    if (code.startsWith('SQLITE_BUSY')) throw new VaultgateError('LOCK_BUSY', `${store?.file} is busy`, { cause: e, hint: 'Another vaultgate process is writing working state; retry.' });
    throw e;
  } finally {
    store?.db.close();
  }
}

function currentRow(db: StoreDb, session: string): Row | undefined {
  return db.prepare('SELECT revision, state FROM sessions WHERE session = ?').get(session) as Row | undefined;
}

function stale(session: string, expected: number, actual: number): VaultgateError {
  return new VaultgateError('STATE_STALE', `session ${session} is at revision ${actual}, not ${expected}`, {
    details: { session, expected, actual },
    hint: `Run \`vaultgate state get ${session}\`, redo your change on what is there now, and patch with its revision.`,
  });
}

/** A session's state; revision 0 and `{}` for a session with none (the store is never created by a read). */
export function getState(root: string, env: Env, session: string): StateDocument {
  assertSessionId(session);
  return withStore(root, env, true, (db) => {
    const row = db && currentRow(db, session);
    return { session, revision: row?.revision ?? 0, state: row ? (JSON.parse(row.state) as Record<string, unknown>) : {} };
  });
}

/** The patch text as a JSON object, strictly (duplicate keys, lone surrogates, non-finite numbers refused). */
export function parseStatePatch(patch: string | Uint8Array): Record<string, unknown> {
  const bytes = typeof patch === 'string' ? Buffer.byteLength(patch) : patch.length;
  if (bytes > MAX_STATE_PATCH_BYTES) {
    throw new VaultgateError('STATE_LIMIT', `the patch is over ${MAX_STATE_PATCH_BYTES} bytes`, {
      details: { limit: MAX_STATE_PATCH_BYTES },
      hint: 'Send smaller patches; working state is for notes-to-self, not for documents.',
    });
  }
  let text: string;
  try {
    text = typeof patch === 'string' ? patch : new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(patch);
  } catch {
    throw new VaultgateError('STATE_PATCH_INVALID', 'the patch is not UTF-8', { hint: 'Send the patch as UTF-8 JSON.' });
  }
  let value: unknown;
  try {
    value = parseStrictJson(text);
  } catch (e) {
    throw new VaultgateError('STATE_PATCH_INVALID', `the patch is not strict JSON: ${(e as Error).message.replace(/^bundle is not strict JSON: /, '')}`, {
      details: (e as VaultgateError).details,
      hint: 'Send one JSON object (RFC 7396 merge patch): keys to set, `null` to remove a key. Duplicate keys are refused.',
    });
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new VaultgateError('STATE_PATCH_INVALID', 'a state patch must be a JSON object', {
      hint: 'The state is an object; patch it with an object, e.g. {"step": 3, "draft": null}.',
    });
  }
  return value as Record<string, unknown>;
}

/**
 * Apply a merge patch to a session's state if it is still at `revision` (0: the
 * session has no state yet). Returns the new state and its revision.
 */
export function patchState(root: string, env: Env, session: string, revision: number, patch: string | Uint8Array): StateDocument {
  assertSessionId(session);
  assertRevision(revision);
  const changes = parseStatePatch(patch);
  return withStore(root, env, false, (db) =>
    db!
      .transaction((): StateDocument => {
        const row = currentRow(db!, session);
        const current = row?.revision ?? 0;
        if (current !== revision) throw stale(session, revision, current);
        if (!row) {
          const count = db!.prepare('SELECT count(*) FROM sessions').pluck().get() as number;
          if (count >= MAX_STATE_SESSIONS) {
            throw new VaultgateError('STATE_LIMIT', `this vault already keeps state for ${count} sessions (the limit)`, {
              details: { limit: MAX_STATE_SESSIONS },
              hint: 'Delete the state of finished sessions (`vaultgate state list`, `vaultgate state delete`).',
            });
          }
        }
        const next = mergePatch(row ? JSON.parse(row.state) : {}, changes) as Record<string, unknown>;
        const text = JSON.stringify(next);
        const bytes = Buffer.byteLength(text);
        if (bytes > MAX_STATE_BYTES) {
          throw new VaultgateError('STATE_LIMIT', `the state of session ${session} would be ${bytes} bytes, over ${MAX_STATE_BYTES}`, {
            details: { limit: MAX_STATE_BYTES, bytes },
            hint: 'Remove keys you no longer need (set them to null) in the same patch.',
          });
        }
        // Per session: 1, 2, 3, … A session deleted and created again continues above
        // its last revision (kept in `meta` when it was deleted), so an agent still
        // holding an old revision stays stale (no ABA).
        const floor = row ? row.revision : ((db!.prepare('SELECT value FROM meta WHERE key = ?').pluck().get(tombstoneKey(session)) as number | undefined) ?? 0);
        const rev = floor + 1;
        if (!row) db!.prepare('DELETE FROM meta WHERE key = ?').run(tombstoneKey(session));
        const now = new Date().toISOString();
        db!.prepare(
          `INSERT INTO sessions (session, revision, state, bytes, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?)
           ON CONFLICT (session) DO UPDATE SET revision = excluded.revision, state = excluded.state, bytes = excluded.bytes, updated_at = excluded.updated_at`,
        ).run(session, rev, text, bytes, now, now);
        // Read back from the stored text, so `patch` and `get` return the same plain objects.
        return { session, revision: rev, state: JSON.parse(text) as Record<string, unknown> };
      })
      .immediate(),
  );
}

/** Every session with state, by id. */
export function listStates(root: string, env: Env): StateListing[] {
  return withStore(root, env, true, (db) =>
    db ? (db.prepare('SELECT session, revision, bytes, created_at, updated_at FROM sessions ORDER BY session').all() as StateListing[]) : [],
  );
}

/** Delete a session's state if it is still at `revision`. A session with no state at revision 0: nothing to delete. */
export function deleteState(root: string, env: Env, session: string, revision: number): { session: string; deleted: boolean; revision: number } {
  assertSessionId(session);
  assertRevision(revision);
  const run = (db: StoreDb | null) => {
    const row = db && currentRow(db, session);
    const current = row?.revision ?? 0;
    if (current !== revision) throw stale(session, revision, current);
    if (!row) return { session, deleted: false, revision: 0 };
    db!.prepare('DELETE FROM sessions WHERE session = ?').run(session);
    db!.prepare('INSERT INTO meta (key, value) VALUES (?, ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value').run(tombstoneKey(session), row.revision);
    return { session, deleted: true, revision: 0 };
  };
  // No store yet: nothing to delete, and a delete never creates one.
  const exists = fs.existsSync(storeFile(root, env, STATE_STORE.name));
  return withStore(root, env, !exists, (db) => (db ? db.transaction(() => run(db)).immediate() : run(null)));
}
