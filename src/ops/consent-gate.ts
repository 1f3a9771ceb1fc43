import type { ConsentGate } from '../wing/providers/index.js';
import type { OpContext } from './operation.js';

/**
 * The consent gate of one run (providers/consent.ts): the face, the agent, and
 * — only when the person asked to be asked (`--consent`, a CLI-only flag) —
 * how to ask them. A face without a terminal has no `confirm`; `--consent`
 * there is answered as "no terminal to ask on", never as a yes.
 */
export function consentGate(ctx: OpContext, asked: boolean | undefined): ConsentGate {
  const ask = asked ? (ctx.confirm ?? null) : undefined;
  return { face: ctx.face, ask, ...(ctx.env.VAULTGATE_AGENT ? { agent: ctx.env.VAULTGATE_AGENT } : {}) };
}
