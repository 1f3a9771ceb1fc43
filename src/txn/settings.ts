import { VaultgateError } from '../errors.js';
import { MAX_COMPONENT_BYTES, MAX_PATH_BYTES } from '../vault/index.js';

/**
 * Every bound and every setting of the transaction engine in one place (DESIGN §5.1,
 * §1.8). Each limit says which side of its boundary is allowed; each is checked
 * before any side effect. The engine reads no environment variable itself: a face
 * passes its environment to {@link engineSettingsFromEnv} and hands the result in.
 */

// ---- what a bundle may ask for -------------------------------------------------

/** Largest new content for one file: 64 MiB (67,108,864 bytes) is fine, one byte more is not. */
export const MAX_FILE_BYTES = 64 * 1024 * 1024;
/** Largest total new content of one operation: 128 MiB is fine, one byte more is not. */
export const MAX_OPERATION_BYTES = 128 * 1024 * 1024;
/** Most writes in one bundle: 1024 is fine, 1025 is not. */
export const MAX_WRITES = 1024;
/**
 * Longest vault-relative path: 1024 UTF-8 bytes is fine, 1025 is not; longest path
 * component: 255 bytes. Both belong to the vault's path rules (`PATH_INVALID`), not
 * to the bundle limits; re-exported here so every bound the engine meets is listed.
 */
export { MAX_PATH_BYTES, MAX_COMPONENT_BYTES };
/** Largest bundle document: 300 MiB is fine, one byte more is not (inline content is JSON-escaped, so it may grow). */
export const MAX_BUNDLE_BYTES = 300 * 1024 * 1024;
/** Deepest JSON nesting: 16 is fine, 17 is not. A bundle needs 3; anything deeper is an attack, not a bundle. */
export const MAX_JSON_DEPTH = 16;
/** `read_preconditions` entries: 1024 is fine, 1025 is not. */
export const MAX_READ_PRECONDITIONS = 1024;

// ---- what the engine reads back of its own state --------------------------------

/**
 * Largest state file the engine reads back (an intent record, a result record, a
 * quarantine record, a lock owner): 16 MiB is fine, one byte more is STATE_CORRUPT.
 * The engine never writes one near it — an intent of 1,024 writes with the longest
 * paths is about 2.5 MB — so a bigger one was planted or damaged, and reading it
 * whole could exhaust memory instead of answering.
 */
export const MAX_STATE_FILE_BYTES = 16 * 1024 * 1024;

// ---- names the engine gives things ----------------------------------------------

/**
 * A user's operation id: it becomes a folder name under `.vaultgate/txn/`, so it is kept
 * to a portable alphabet: starts with a letter or digit, then letters, digits, `.`,
 * `_`, `-`; 1 to 128 characters.
 */
export const OPERATION_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;
/**
 * The engine's own operations (undo) live in another namespace: their ids start with
 * `_`, which a user's id never does. `undo X` is `_undo-X`; undoing that undo is
 * `_undo-_undo-X` (at most 200 characters in all).
 */
export const INTERNAL_OPERATION_ID = /^_undo-[A-Za-z0-9_][A-Za-z0-9._-]{0,193}$/;
/** Prefix of the undo of an operation: `_undo-<op>`. */
export const UNDO_PREFIX = '_undo-';
/** Undo ids written before the namespaces were separated (`undo-<op>`, with `undo_of` in the record). */
export const LEGACY_UNDO_PREFIX = 'undo-';

/**
 * Files the engine keeps beside a note while it works on it, both dot-files (Obsidian
 * ignores them): the new bytes before they are published, `.<name>.vg-<op8>-<nnnn>.tmp`,
 * and the original moved aside right before it is replaced, deleted or moved,
 * `.<name>.vg-<op8>-<nnnn>.old`. Both decorations are 22 bytes, so a target name may
 * use at most 255 − 22 = 233 bytes: 233 is fine, 234 is `BUNDLE_LIMIT`.
 */
export const TEMP_DECORATION_BYTES = '.'.length + '.vg-'.length + 8 + '-'.length + 4 + '.tmp'.length;
export const MAX_NAME_BYTES = MAX_COMPONENT_BYTES - TEMP_DECORATION_BYTES;
/** A name that looks like one of our temp or aside files; bundles may not write such names. */
export const TEMP_NAME = /\.vg-[0-9a-f]{8}-\d{4}\.(?:tmp|old)$/;
/** `tx resolve` publishes originals through temp names numbered from here (apart from the writes' own). */
export const RESOLVE_TEMP_BASE = 5000;

// ---- the vault lock ----------------------------------------------------------------

/** How long a writer waits for the vault lock before LOCK_BUSY (exit 75): 10 s. */
export const DEFAULT_LOCK_TIMEOUT_MS = 10_000;
/**
 * An owner on another host, or an owner record that cannot be read or is not a valid
 * record, is stale once the lock has gone this long without a heartbeat or change:
 * 60 s. An owner on this host is judged by its pid and start time instead.
 */
export const HEARTBEAT_TTL_MS = 60_000;
/** How often a holder refreshes its heartbeat (well inside the TTL): 5 s. */
export const HEARTBEAT_EVERY_MS = 5_000;
/** A heartbeat stamped more than this far in the future (clock skew between hosts) makes a record invalid. */
export const MAX_CLOCK_SKEW_MS = HEARTBEAT_TTL_MS;

// ---- bookkeeping -------------------------------------------------------------------

// `txn.keep_backups` (how many finished operations keep their originals for undo,
// default 200) is a per-vault setting: `.vaultgate/config.yaml`, read by the vault module.
/** history.jsonl is append-only and grows without bound: only its last 64 KiB are read (to avoid a duplicate line). */
export const HISTORY_TAIL_BYTES = 64 * 1024;
/** Largest output accepted from one git command in `checkpoint` (a blob id, a commit id, an error). */
export const GIT_MAX_OUTPUT_BYTES = 1024 * 1024;

// ---- the environment -----------------------------------------------------------------

/** What a face reads from its environment for the engine. */
export interface EngineSettings {
  /** `VAULTGATE_LOCK_TIMEOUT_MS`: whole milliseconds ≥ 0 (0 = do not wait). */
  lockTimeoutMs?: number;
}

/** The one place the engine's environment variables are read; a malformed value is refused, never ignored. */
export function engineSettingsFromEnv(env: Record<string, string | undefined>): EngineSettings {
  const raw = env.VAULTGATE_LOCK_TIMEOUT_MS;
  if (raw === undefined || raw === '') return {};
  if (!/^\d{1,9}$/.test(raw)) {
    throw new VaultgateError('USAGE', `VAULTGATE_LOCK_TIMEOUT_MS must be whole milliseconds (0 to 999999999), not ${JSON.stringify(raw)}`, {
      hint: 'Unset it for the default of 10000, or set e.g. VAULTGATE_LOCK_TIMEOUT_MS=30000.',
    });
  }
  return { lockTimeoutMs: Number(raw) };
}
