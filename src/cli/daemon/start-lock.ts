import fs from 'node:fs';
import { VaultgateError } from '../../errors.js';

/** The start lock of a daemon: a folder beside its token (`<name>.starting`). */
export function startLockOf(tokenPath: string): string {
  return tokenPath.replace(/\.token$/, '.starting');
}

/** A start that crashed while holding the lock frees it after this long. */
const START_LOCK_STALE_MS = 15_000;

/**
 * Take the start lock (mkdir is atomic: one process makes the folder), waiting
 * for another start to finish; a lock older than {@link START_LOCK_STALE_MS} is
 * a crashed start's and is taken over. Returns the release.
 */
export async function takeStartLock(dir: string, opts: { staleMs?: number; waitMs?: number } = {}): Promise<() => void> {
  const staleMs = opts.staleMs ?? START_LOCK_STALE_MS;
  const deadline = Date.now() + (opts.waitMs ?? 2 * staleMs);
  for (;;) {
    try {
      fs.mkdirSync(dir, { mode: 0o700 });
      return () => fs.rmSync(dir, { recursive: true, force: true });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
    const st = fs.statSync(dir, { throwIfNoEntry: false });
    if (st && Date.now() - st.mtimeMs > staleMs) fs.rmSync(dir, { recursive: true, force: true });
    else if (Date.now() > deadline) {
      throw new VaultgateError('DAEMON_FAILED', `another daemon start holds ${dir}`, { hint: 'Wait for it, or remove that folder if no vaultgate is starting.' });
    }
    await new Promise((r) => setTimeout(r, 50));
  }
}
