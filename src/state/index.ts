/**
 * state: agents' working state outside the vault (issue 8 §5), in
 * `state.sqlite` under the vault's data root (not a cache: STATE_CORRUPT when
 * damaged, never recreated).
 *
 * - {@link getState}`(root, env, session)` → `{session, revision, state}` (revision 0, `{}` when new).
 * - {@link patchState}`(root, env, session, revision, patchText)`: RFC 7396 merge
 *   patch ({@link mergePatch}) if the session is still at `revision`, else
 *   STATE_STALE (exit 75), nothing changed.
 * - {@link listStates}, {@link deleteState} (also revision-checked).
 *
 * Limits in limits.ts. May import: errors, store, txn (strict JSON).
 */
export { getState, patchState, listStates, deleteState, parseStatePatch, assertSessionId, type StateDocument, type StateListing } from './working-state.js';
export { mergePatch, type Json } from './merge-patch.js';
export { MAX_STATE_BYTES, MAX_STATE_PATCH_BYTES, MAX_STATE_SESSIONS, SESSION_ID } from './limits.js';
export { STATE_STORE, openStateStore } from './state-store.js';
