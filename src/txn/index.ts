/**
 * txn: the transaction engine, the only code that writes into a vault (DESIGN §5.1).
 *
 * A bundle (`vaultgate.transaction.v1`, docs/bundle.md) is parsed strictly
 * ({@link parseBundle}), resolved against the vault into a plan with old/new
 * hashes and an approval hash ({@link inspectBundle}, read-only), and applied
 * under the vault lock ({@link applyBundle}): journal the intent, back up
 * originals, temp + fsync + rename each file, verify, commit to history.
 * Interrupted operations are rolled forward or back by {@link recoverAll};
 * someone else's edit quarantines only that operation, until
 * {@link resolveOperation}. {@link undoOperation} applies an inverse;
 * {@link checkpointOperation} commits an operation's bytes to git.
 *
 * Every fs call goes through {@link FsOps}, so tests can crash or fail any step.
 * Guarantees and their proofs: docs/guarantees.md. May import: vault, errors.
 */
export { parseBundle, BUNDLE_SCHEMA, type Bundle, type BundleWrite, type WriteMode } from './bundle-schema.js';
export { parseStrictJson } from './strict-json.js';
export * from './limits.js';
export { DEFAULT_SCOPES, checkScope, type ScopeRule, type ScopeTable } from './scopes.js';
export { approvalSha256, bundleSha256 } from './approval.js';
export { realFsOps, faultyFsOps, SimulatedCrash, type FsOps, type FaultKind, type FaultPlan, type FaultyFsOps } from './fs-ops.js';
export { initVault } from './init.js';
export { inspectBundle, type InspectResult } from './inspect.js';
export { applyBundle, type ApplyResult, type ApplyOptions } from './apply.js';
export { withEngine, type EngineOptions } from './engine.js';
export { recoverAll, type RecoverOutcome } from './recover.js';
export { acquireLock, readLockOwner, DEFAULT_LOCK_TIMEOUT_MS } from './lock.js';
export { txStatus, type StatusResult } from './status.js';
export { resolveOperation, type ResolveChoice } from './resolve.js';
export { undoOperation } from './undo.js';
export { checkpointOperation } from './checkpoint.js';
export { readDone, pruneBackups } from './history.js';
export { txnLayout } from './layout.js';

export { recoverVault } from './recover-vault.js';
