import { Command, InvalidArgumentError } from 'commander';
import { VaultgateError } from '../errors.js';

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
}

export interface GlobalOptions {
  vault?: string;
  json?: boolean;
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
}

export interface ActionContext {
  io: CliIO;
  globals: GlobalOptions;
  /** The vault root chosen by --vault / VAULTGATE_VAULT / config; throws a typed error if none. */
  vaultRoot(): Promise<string>;
}

export type Handler = (ctx: ActionContext, args: string[], opts: Record<string, unknown>) => Promise<CommandResult>;

/** Set by runCli for the duration of one run; each command's action reports through it. */
export interface Reporter {
  io: CliIO;
  report(result: CommandResult): void;
  fail(error: unknown): void;
}

/**
 * Wrap a handler as a commander action: collects positional args and options,
 * builds the context, and reports the result or error through the run's reporter.
 * Commands stay thin: parse, call the core, render.
 */
export function action(reporter: Reporter, handler: Handler) {
  return async (...params: unknown[]) => {
    const cmd = params[params.length - 1] as Command;
    const opts = cmd.opts() as Record<string, unknown>;
    const globals = cmd.optsWithGlobals() as GlobalOptions;
    const args = params.slice(0, -2).flatMap((p) => (Array.isArray(p) ? (p as string[]) : p === undefined ? [] : [p as string]));
    const ctx: ActionContext = {
      io: reporter.io,
      globals,
      async vaultRoot() {
        const { selectVault } = await import('../vault/select-vault.js');
        return selectVault(globals.vault, reporter.io.env, reporter.io.cwd).root;
      },
    };
    try {
      reporter.report(await handler(ctx, args, opts));
    } catch (e) {
      reporter.fail(e);
    }
  };
}

/** commander argParser for positive integers, with a typed usage error. */
export function parsePositiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1 || !Number.isSafeInteger(Number(value))) {
    throw new InvalidArgumentError('expected a positive whole number');
  }
  return Number(value);
}

/** commander argParser for non-negative integers. */
export function parseNonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value) || !Number.isSafeInteger(Number(value))) {
    throw new InvalidArgumentError('expected a whole number ≥ 0');
  }
  return Number(value);
}

/** Collect a repeatable option into an array. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value];
}

export function usageError(message: string, hint?: string): VaultgateError {
  return new VaultgateError('USAGE', message, hint === undefined ? {} : { hint });
}
