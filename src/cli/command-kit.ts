import type { VaultSession } from '../session/index.js';

/** What a command's action returns: the JSON body (without `ok`), and optionally a text rendering for terminals. */
export interface CommandResult {
  json: Record<string, unknown>;
  text?: string;
  /**
   * A document the user asked for by format (e.g. `context --format markdown`):
   * printed as is even when stdout is a pipe, because piping it into a file is
   * the point. Only an explicit `--json` wraps it in the JSON envelope instead.
   */
  document?: string;
  /** Exit code for a successful-but-not-clean outcome (e.g. `check` finding problems stays 0 by default). */
  exitCode?: number;
  /** The text holds unified diffs, coloured on a terminal (diff-colour.ts). */
  diffs?: boolean;
}

/** The I/O a command run sees; the in-process test seam replaces it. */
export interface CliIO {
  stdout: (s: string) => void;
  stderr: (s: string) => void;
  env: Record<string, string | undefined>;
  /** Whether stdout is a terminal: decides JSON vs text output. */
  isTTY: boolean;
  /** Whether stderr is a terminal: decides progress output. */
  stderrIsTTY: boolean;
  cwd: string;
  /**
   * Ask the person at this terminal (tty-confirm.ts): only the CLI in its own
   * process has it; the daemon and the in-process test seam do not, so there
   * `--consent` is refused as having no terminal.
   */
  confirm?: (question: string) => boolean | null;
  /**
   * A long-lived session to run commands on instead of opening one per command
   * (the daemon); called with the command's `--vault`. Commands never close it.
   */
  session?: (vault: string | undefined) => VaultSession;
  /** With `session`: awaited before each operation (VaultSession.settle: the watcher has seen every earlier change). */
  settle?: () => Promise<void>;
}

/** Set by runCli for the duration of one run; each command's action reports through it. */
export interface Reporter {
  io: CliIO;
  report(result: CommandResult): void;
  fail(error: unknown): void;
  /**
   * A long-running face (`mcp`, `serve`) that owns stdout ends with this code
   * instead of a report: nothing more is printed.
   */
  exit(code: number): void;
}
