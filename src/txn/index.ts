/**
 * txn: the transaction engine, the only code that writes into a vault (DESIGN §5.1).
 *
 * A bundle (`vaultgate.transaction.v1`, docs/bundle.md) is parsed strictly
 * ({@link parseBundle}: one {@link BundleWrite} variant per mode), resolved against
 * the vault into a plan with old/new hashes and an approval hash
 * ({@link inspectBundle}, read-only), and applied under the vault lock
 * ({@link applyBundle}): journal the intent, back up originals, then per file write
 * a temp file, move the original aside and check it, publish without clobbering;
 * check every original once more; commit to history. Interrupted operations are
 * rolled forward or back by {@link recoverVault}; someone else's edit quarantines
 * only that operation, until {@link resolveOperation}. {@link undoOperation} applies
 * an inverse (in the engine's own id namespace, `_undo-OP`);
 * {@link checkpointOperation} commits an operation's bytes to git.
 *
 * Every fs call goes through {@link FsOps}, so tests can crash or fail any step.
 * Limits and the environment the engine reads: `settings.ts`. Guarantees and their
 * proofs: docs/guarantees.md. May import: vault, errors.
 */
export { parseBundle, bundleFromValue, pathsOf, checkWritePath, BUNDLE_SCHEMA, WRITE_MODES, type Bundle, type BundleWrite, type WriteMode, type ParseOptions } from './bundle-schema.js';
export { parseStrictJson } from './strict-json.js';
export { readInputFile, readBounded, type InputRead } from './read-input.js';
export {
  MAX_FILE_BYTES,
  MAX_OPERATION_BYTES,
  MAX_WRITES,
  MAX_PATH_BYTES,
  MAX_COMPONENT_BYTES,
  MAX_BUNDLE_BYTES,
  MAX_JSON_DEPTH,
  MAX_READ_PRECONDITIONS,
  MAX_STATE_FILE_BYTES,
  MAX_NAME_BYTES,
  OPERATION_ID,
  INTERNAL_OPERATION_ID,
  UNDO_PREFIX,
  DEFAULT_LOCK_TIMEOUT_MS,
  HEARTBEAT_TTL_MS,
  engineSettingsFromEnv,
  type EngineSettings,
} from './settings.js';
export { DEFAULT_SCOPES, checkScope, scopeTableFor, type ScopeRule, type ScopeTable, type ScopeContext } from './scopes.js';
export { approvalSha256, bundleSha256 } from './approval.js';
export { realFsOps, faultyFsOps, SimulatedCrash, type FsOps, type FaultKind, type FaultPlan, type FaultyFsOps } from './fs-ops.js';
export { initVault, type InitResult } from './init.js';
export { inspectBundle, type InspectResult } from './inspect.js';
export { applyBundle, type ApplyResult, type ApplyOptions } from './apply.js';
export { type EngineOptions } from './engine.js';
export { recoverVault } from './recover-vault.js';
export { type RecoverOutcome, type RecoverKind } from './recover.js';
export { acquireLock, readLockOwner, isHeld, type LockHandle, type LockState, type Liveness } from './lock.js';
export { txStatus, type StatusResult, type PendingInfo } from './status.js';
export { resolveOperation, type ResolveChoice, type ResolveResult } from './resolve.js';
export { undoOperation, type UndoResult } from './undo.js';
export { checkpointOperation, type CheckpointResult } from './checkpoint.js';
export { readDone, currentUndo, pruneBackups, type DoneRecord } from './history.js';
export { txnLayout, isOperationId, type TxnLayout } from './layout.js';
export { checkStateLayout } from './state-guard.js';
