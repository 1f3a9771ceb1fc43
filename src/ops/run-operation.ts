import type { Operation, OpContext, OpOutput } from './operation.js';
import { parseInput } from './params.js';

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
  return {
    output,
    text: op.text?.(output, input),
    document: op.document?.(output, input),
    exitCode: op.exitCode?.(output, input) ?? 0,
  };
}
