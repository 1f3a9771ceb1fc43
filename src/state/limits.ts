/**
 * Bounds of the working state (DESIGN §1.8), checked before anything is
 * written. The boundary value itself is allowed.
 */

/** Largest state document of one session: its JSON, UTF-8 bytes. */
export const MAX_STATE_BYTES = 1024 * 1024;
/** Largest merge patch: its JSON text, UTF-8 bytes. */
export const MAX_STATE_PATCH_BYTES = 1024 * 1024;
/** Most sessions one vault keeps state for; delete finished ones. */
export const MAX_STATE_SESSIONS = 10_000;
/**
 * A session id: an agent's name for its working session, 1–128 characters of
 * letters, digits and `. _ : @ -`, starting with a letter or digit (ids appear
 * in file-free places only, but stay printable and shell-safe).
 */
export const SESSION_ID = /^[A-Za-z0-9][A-Za-z0-9._:@-]{0,127}$/;
