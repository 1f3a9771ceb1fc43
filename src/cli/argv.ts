/**
 * Where a command line's verb stands, read before commander parses it: by the
 * entry (which bundle and code cache to load), the daemon client and server
 * (what may be forwarded) and run-cli (which commands to register, and where a
 * query's words begin). No imports: the entry loads this before anything else.
 */

/** Global flags and whether each takes a value. */
export const GLOBAL_FLAGS: ReadonlyMap<string, boolean> = new Map([
  ['--vault', true],
  ['--json', false],
  ['--text', false],
  ['--help', false],
  ['-h', false],
]);

/** The index of the first word after the global flags (`argv.length` when none), or -1 when another flag comes first. */
export function verbIndex(argv: readonly string[]): number {
  let i = 0;
  while (i < argv.length && argv[i]!.startsWith('-')) {
    const name = argv[i]!.split('=')[0]!;
    if (!GLOBAL_FLAGS.has(name)) return -1;
    i += GLOBAL_FLAGS.get(name) && !argv[i]!.includes('=') ? 2 : 1;
  }
  return i;
}

/** The verb of a command line (the first word after the global flags), or null when it asks for help or a version. */
export function verbOf(argv: readonly string[]): string | null {
  if (argv.some((a) => a === '--help' || a === '-h' || a === '--version' || a === '-V')) return null;
  const i = verbIndex(argv);
  return i < 0 ? null : (argv[i] ?? null);
}
