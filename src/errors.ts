/**
 * One error class and one table: every failure vaultgate reports has a stable
 * UPPER_SNAKE code, and the exit code follows from the code (DESIGN §6).
 * Codes are permanent: deprecate and add, never rename. docs/errors.md explains
 * each one (a test keeps the two in step).
 */
export const EXIT_CODES = {
  // 2: usage or invalid input
  USAGE: 2,
  INVALID_INPUT: 2,
  VAULT_NOT_FOUND: 2,
  VAULT_NOT_DIRECTORY: 2,
  CONFIG_INVALID: 2,
  PATH_INVALID: 2,
  PATH_OUTSIDE_VAULT: 2,
  PATH_SYMLINK: 2,
  PATH_RESERVED: 2,
  NOT_FOUND: 2,
  NOT_A_FILE: 2,
  NOTE_AMBIGUOUS: 2,
  NOT_UTF8: 2,
  FILE_TOO_LARGE: 2,
  LINK_EMPTY: 2,
  LINK_INVALID: 2,
  HEADING_NOT_FOUND: 2,
  BUNDLE_INVALID: 2,
  BUNDLE_LIMIT: 2,
  OPERATION_ID_REUSED: 2,
  OPERATION_UNKNOWN: 2,
  PROPOSAL_UNKNOWN: 2,
  PROPOSAL_NOOP: 2,
  PROPOSAL_DECLINED: 2,
  PROPOSAL_STATE: 2,
  PROPOSAL_BLOCKED: 2,
  CHANGES_INVALID: 2,
  EDIT_NO_MATCH: 2,
  EDIT_AMBIGUOUS: 2,
  PATH_CASE_ALIAS: 2,
  UNDO_UNAVAILABLE: 2,
  GIT_FAILED: 2,
  CATALOG_NOT_FOUND: 2,
  ANSWER_REFUSED: 2,
  ANSWER_NOT_ACCEPTED: 2,
  PLAN_NOT_APPLICABLE: 2,
  POSITION_REFUSED: 2,
  LINK_AMBIGUOUS: 2,
  LINK_REWRITE_FAILED: 2,
  SCENARIO_INVALID: 2,
  SCENARIO_NOT_FOUND: 2,
  STATE_PATCH_INVALID: 2,
  STATE_LIMIT: 2,
  ATOMIZE_WORK_MISSING: 2,
  ATOMIZE_REGISTRY_INVALID: 2,
  ATOMIZE_NOT_READY: 2,
  // 3: integrity
  INTEGRITY: 3,
  RECOVERY_NEEDED: 3,
  RECOVERY_FAILED: 3,
  STATE_CORRUPT: 3,
  WRITE_FAILED: 3,
  RESOURCE_LIMIT: 3,
  // 69: something vaultgate needs is unavailable (a provider, a native module)
  PROVIDER_UNAVAILABLE: 69,
  PROVIDER_FAILED: 69,
  NATIVE_MODULE_MISMATCH: 69,
  DAEMON_FAILED: 69,
  // 75: conflict, retry after re-reading
  STALE_HASH: 75,
  // the vault no longer holds the operation's change: reopen / re-inspect, approve anew
  OPERATION_UNDONE: 75,
  APPROVAL_MISMATCH: 75,
  LOCK_BUSY: 75,
  QUARANTINED: 75,
  UNDO_CONFLICT: 75,
  CONTEXT_UNSTABLE: 75,
  GIT_INDEX_DIRTY: 75,
  CATALOG_STALE: 75,
  FOREIGN_FILE: 75,
  STATE_STALE: 75,
  LINK_TARGET_CHANGED: 75,
  EVIDENCE_CHANGED: 75,
  LINK_CHANGES_STALE: 75,
  ATOMIZE_SOURCE_CHANGED: 75,
  // 77: not permitted
  OUT_OF_SCOPE: 77,
  AREA_PROTECTED: 77,
  FORBIDDEN: 77,
  CONSENT_REQUIRED: 77,
  /** Deprecated (issue 20.1): no consent token is taken any more, so nothing raises it. */
  CONSENT_MISMATCH: 77,
  CONSENT_DECLINED: 77,
  // 1: a bug
  INTERNAL: 1,
} as const;

export type ErrorCode = keyof typeof EXIT_CODES;

export interface ErrorInfo {
  /** The next step a person or agent should take. */
  hint?: string;
  /** The vault-relative path the error is about, if any. */
  path?: string;
  /** Machine-readable specifics: expected/actual values, offending items. */
  details?: Record<string, unknown>;
  cause?: unknown;
}

export class VaultgateError extends Error {
  override readonly name = 'VaultgateError';
  readonly hint: string | undefined;
  readonly path: string | undefined;
  readonly details: Record<string, unknown> | undefined;

  constructor(
    readonly code: ErrorCode,
    message: string,
    info: ErrorInfo = {},
  ) {
    super(message, info.cause === undefined ? undefined : { cause: info.cause });
    this.hint = info.hint;
    this.path = info.path;
    this.details = info.details;
  }

  get exitCode(): number {
    return EXIT_CODES[this.code];
  }

  toJSON(): Record<string, unknown> {
    const out: Record<string, unknown> = { code: this.code, message: this.message };
    if (this.hint !== undefined) out.hint = this.hint;
    if (this.path !== undefined) out.path = this.path;
    if (this.details !== undefined) Object.assign(out, { details: this.details });
    return out;
  }
}

export function isVaultgateError(e: unknown): e is VaultgateError {
  return e instanceof VaultgateError;
}

/**
 * For exhaustive switches over tagged unions: the type checker proves this line
 * unreachable, so a new variant (a new write mode) fails the build until every
 * switch handles it. At run time it can only be reached by a bug.
 */
export function unreachable(value: never, what: string): never {
  throw new Error(`unhandled ${what}: ${JSON.stringify(value)}`);
}

/** The errno of a system error (`EMFILE`, `ENOSPC`, …), looking through `cause`s; null when there is none. */
export function errnoOf(e: unknown): string | null {
  for (let cur = e, depth = 0; cur && depth < 8; cur = (cur as { cause?: unknown }).cause, depth++) {
    const code = (cur as NodeJS.ErrnoException).code;
    if (typeof code === 'string' && /^E[A-Z0-9]+$/.test(code)) return code;
  }
  return null;
}

/** Out of file descriptors (per process or system-wide): the environment, not a bug. */
export function isResourceLimit(e: unknown): boolean {
  const code = errnoOf(e);
  return code === 'EMFILE' || code === 'ENFILE';
}

/** The typed error for running out of file descriptors; `what` says what could not be done. */
export function resourceLimitError(e: unknown, what: string, nothingChanged = true): VaultgateError {
  return new VaultgateError('RESOURCE_LIMIT', `${what}: too many open files (${errnoOf(e) ?? 'EMFILE'})`, {
    details: { errno: errnoOf(e) },
    hint: `${nothingChanged ? 'Nothing was changed. ' : ''}Raise the open-file limit (\`ulimit -n 1024\` in the shell that runs vaultgate) and run the same command again.`,
    cause: e,
  });
}

/** Exit code for any thrown value: typed errors map by code, anything else is a bug. */
export function exitCodeOf(e: unknown): number {
  return isVaultgateError(e) ? e.exitCode : EXIT_CODES.INTERNAL;
}
