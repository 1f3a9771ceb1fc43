/**
 * `\rindexing 1200/10000` on a terminal's stderr, at most ten times a second:
 * any command that builds or largely refreshes the index shows it (never on
 * stdout, never when stderr is not a terminal).
 */
const PHASES: Record<string, string> = { links: 'resolving links', similar: 'similar: vectors for notes', embedding: 'embedding sections' };

export function progressPrinter(write: (s: string) => void) {
  let last = 0;
  let shown = false;
  return {
    update(p: { phase: string; done: number; total: number }) {
      const now = Date.now();
      if (now - last < 100 && p.done !== p.total) return;
      last = now;
      shown = true;
      write(`\r${PHASES[p.phase] ?? 'indexing'} ${p.done}/${p.total}\x1b[K`);
    },
    done() {
      if (shown) write('\r\x1b[K');
      shown = false;
    },
  };
}
