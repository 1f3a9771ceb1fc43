import { isResourceLimit, isVaultgateError, resourceLimitError, VaultgateError } from './errors.js';

/**
 * Failures of the environment rather than of vaultgate, turned into typed errors
 * with the fix: a native addon built for another Node.js (switching Node after
 * `npm ci`) is the common one; running out of file descriptors (a module that
 * could not load, a file that could not open under a low `ulimit -n`) is another.
 * Anything else is returned unchanged.
 */
export function typedEnvironmentError(e: unknown): unknown {
  if (isVaultgateError(e)) return e;
  if (isResourceLimit(e)) return resourceLimitError(e, 'vaultgate could not open a file', false);
  const err = e as { code?: unknown; message?: unknown } | null;
  const message = typeof err?.message === 'string' ? err.message : '';
  if (err?.code === 'ERR_DLOPEN_FAILED' || /NODE_MODULE_VERSION|did not self-register|invalid ELF header|wrong ELF class/.test(message)) {
    return new VaultgateError('NATIVE_MODULE_MISMATCH', `a native module (better-sqlite3) cannot be loaded by Node.js ${process.version}: ${message.split('\n')[0]}`, {
      cause: e,
      hint: 'It was built for another Node.js version: run `npm rebuild` in the vaultgate folder (or reinstall with the Node.js you use now).',
    });
  }
  return e;
}
