import { after } from 'node:test';

/**
 * The pids of the daemons a test file starts, SIGKILLed when its tests end
 * whatever happened, so a failed test leaves no daemon behind. Call once at a
 * test file's top level and add each pid as it starts.
 */
export function killAtEnd(): Set<number> {
  const pids = new Set<number>();
  after(() => {
    for (const pid of pids) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
  });
  return pids;
}
