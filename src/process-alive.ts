/**
 * Whether a process with this pid exists: signal 0 checks without sending.
 * EPERM means it exists but belongs to another user — alive all the same (a
 * lock or daemon of another account must not be taken for dead).
 */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
