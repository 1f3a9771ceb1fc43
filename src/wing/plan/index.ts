/**
 * plan: an accepted recommendation becomes a bounded change plan (DESIGN §5.3).
 *
 * - {@link makePlan}: source and target notes (one exact file each), the exact
 *   insertion ({@link planInsertion}: after a block, never inside frontmatter,
 *   code, tables, lists, quotes, callouts, links, math, comments or managed
 *   blocks — see {@link unsafeRanges}), the link text (links/link-text.ts,
 *   honouring `.obsidian/app.json`), a unified diff; a no-op when the link exists.
 *
 * Pure parts (`planInsertion`, `unsafeRanges`) take text and a note model; only
 * `makePlan` reads (the catalog store, both notes, the index).
 */
export { unsafeRanges } from './unsafe-ranges.js';
export { planInsertion, type Position } from './insertion.js';
export { makePlan } from './make-plan.js';
export { proposePlan } from './propose-plan.js';
