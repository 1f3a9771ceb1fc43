import { typedEnvironmentError } from '../environment-error.js';
import { exitCodeOf, isVaultgateError } from '../errors.js';
import type { Operation, OpContext, OpOutput } from './operation.js';
import { parseInput } from './params.js';
import { visibleLines } from '../visible-text.js';

export interface OperationResult {
  /** The documented JSON body (without the `ok` envelope). */
  output: OpOutput;
  /** The terminal rendering. */
  text: string | undefined;
  /** A document the input asked for by format (push mode), printed as is. */
  document: string | undefined;
  /** 0, or the operation's own exit for a successful-but-not-clean outcome. */
  exitCode: number;
}

/**
 * Validate raw input against the operation's params and run it: the one path
 * every face takes, so validation, defaults and rendering cannot differ between
 * them. `from` says whether values arrive as command-line strings or JSON.
 */
export async function runOperation(op: Operation<any, any>, raw: Record<string, unknown>, from: 'cli' | 'api', ctx: OpContext): Promise<OperationResult> {
  const input = parseInput(op.params, raw, from);
  await ctx.settle?.();
  const output = await op.run(input, ctx);
  let text: { value: string | undefined } | undefined;
  return {
    output,
    // rendered when a face asks for it: JSON output never pays for the terminal rendering
    // (for a 12 MB proposal, another copy of its whole diff; issue 20 §8); what a person
    // reviews shows hidden characters escaped (issue 20 §4)
    get text() {
      return (text ??= { value: op.text === undefined ? undefined : op.reviewed ? visibleLines(op.text(output, input)) : op.text(output, input) }).value;
    },
    document: op.document?.(output, input),
    exitCode: op.exitCode?.(output, input) ?? 0,
  };
}

/** What every face reports for a failure: the `error` object of `{"ok": false, "error": …}` and the exit code. */
export interface ErrorReport {
  error: { code: string; message: string; hint?: string; [key: string]: unknown };
  exitCode: number;
  /** Not a typed error: a bug in vaultgate, whose stack the face should log (never to the agent). */
  internal: boolean;
}

/**
 * The `{code, message, hint}` document of any thrown value, the same in every
 * face: typed errors as they are, environment failures typed first, anything
 * else INTERNAL (exit 1: a bug).
 */
export function errorReport(raised: unknown): ErrorReport {
  const error = typedEnvironmentError(raised);
  if (isVaultgateError(error)) return { error: error.toJSON() as ErrorReport['error'], exitCode: exitCodeOf(error), internal: false };
  return {
    error: { code: 'INTERNAL', message: `internal error: ${(error as Error)?.message ?? String(error)}`, hint: 'This is a bug in vaultgate; please report it with the command you ran.' },
    exitCode: exitCodeOf(error),
    internal: true,
  };
}
