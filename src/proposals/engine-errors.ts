import { isVaultgateError, VaultgateError } from '../errors.js';

/**
 * The transaction engine's refusals, told for the proposal verb that met them. A
 * proposal becomes a bundle inside vaultgate, so the engine's hints ("fix the
 * bundle, run `vaultgate tx inspect BUNDLE` again") name steps the agent or the
 * person cannot take for `propose`, `review` or `apply` (issue 20). A hint that
 * names a bundle or a `tx` step is replaced by one for the verb that failed; the
 * code, message, path and details stay the engine's.
 */
export type ProposalStep = { verb: 'propose' } | { verb: 'review' | 'apply'; id: string };

/** A hint that only makes sense to someone holding a bundle file. */
const BUNDLE_STEP = /bundle|tx inspect|tx apply|operation_id/i;

function hintFor(code: string, step: ProposalStep): string {
  const again = step.verb === 'propose' ? 'Nothing was stored.' : `\`vaultgate review ${step.id}\` shows the proposal against the vault as it is now.`;
  switch (code) {
    case 'BUNDLE_INVALID':
      return step.verb === 'propose'
        ? 'Nothing was stored. The vault cannot take these paths as they are (see the message): rename or remove one of the files by hand, or propose a change that leaves them out.'
        : `${again} The vault can no longer take this change as it is; the agent should propose a fixed change.`;
    case 'PATH_RESERVED':
      return 'Proposals may not write reserved folders (.vaultgate, .obsidian, .git, .trash): propose a path in the vault proper.';
    case 'BUNDLE_LIMIT':
      return 'Split the change into several proposals.';
    case 'STALE_HASH':
      return step.verb === 'propose' ? 'Re-read the note (`vaultgate note PATH`) and propose again with its current sha256.' : `${again} The vault changed; the agent should re-read the note and propose again.`;
    case 'APPROVAL_MISMATCH':
      return step.verb === 'propose' ? 'Propose again.' : `Run \`vaultgate review ${step.id}\`, read the diff again, and apply with the new review_hash.`;
    default:
      return step.verb === 'propose' ? 'Nothing was stored; see the message and `vaultgate propose --help`.' : again;
  }
}

/** `e` with a hint for `step` when its hint names a bundle step; anything else as it is. */
export function forProposal(e: unknown, step: ProposalStep): unknown {
  if (!isVaultgateError(e) || e.hint === undefined || !BUNDLE_STEP.test(e.hint)) return e;
  return new VaultgateError(e.code, e.message, {
    hint: hintFor(e.code, step),
    ...(e.path === undefined ? {} : { path: e.path }),
    ...(e.details === undefined ? {} : { details: e.details }),
    cause: e,
  });
}

/** Run `fn`, telling an engine refusal for `step`. */
export function asProposal<T>(step: ProposalStep, fn: () => T): T {
  try {
    return fn();
  } catch (e) {
    throw forProposal(e, step);
  }
}
