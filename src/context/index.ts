/**
 * context: cited context packets, the thing agents answer from (DESIGN §4).
 *
 * - {@link buildContext}: refresh the index, pick the best sections for the
 *   question and each extra query, add one hop of linked sections, keep to a
 *   character budget (whole sections only: a section that does not fit is listed
 *   as `truncated`), then re-read every selected file and check its hash (retry
 *   up to 3 times, then CONTEXT_UNSTABLE). Returns a {@link ContextPacket}.
 * - {@link renderContextMarkdown}: the same packet for push mode, note text in
 *   fenced JSON blocks so it stays a quotation.
 * - {@link fitBudget} / {@link interleave}: the budget rule, pure.
 * - {@link ScenarioSlot}: where the policy issue's scenario instruction and scope go.
 *
 * @example
 *   const packet = buildContext(root, process.env, { question: 'how do I deploy?', budgetChars: 8000 });
 */
export { CONTEXT_BOUNDS, CONTEXT_SCHEMA, DEFAULT_BUDGET_CHARS, DEFAULT_CONTEXT_LIMIT, DEFAULT_MAX_LINKED, MAX_CONTEXT_ATTEMPTS, type CandidateQuery, type ContextOptions, type ContextPacket, type DenseHook, type EvidenceItem, type ScenarioSlot, type TruncatedItem } from './types.js';
export { fitBudget, interleave, type Candidate, type Fitted } from './fit-budget.js';
export { linkedCandidates, queryCandidates } from './gather.js';
export { buildContext } from './build-context.js';
export { fenced, renderContextMarkdown } from './render-markdown.js';
