/**
 * proposals: the write loop (DESIGN §5.2) — an agent proposes, a person reviews
 * the exact diff, and only that reviewed plan lands, through the transaction
 * engine. Every face calls these functions and holds no logic of its own.
 *
 * - {@link propose}: every edit form ({@link ChangeRequest}) becomes exact
 *   full-text changes against the vault now; stored and reviewed at once. A
 *   move, rename or heading rename brings the rewrites that keep every link
 *   opening what it opened ({@link rewriteLinks}), in the same proposal.
 * - {@link review} / {@link show}: the named checks, per-file diffs and links,
 *   every existing link whose resolution the change moves (link_stability),
 *   and the review hash (the engine's approval hash of the exact bundle).
 * - {@link apply}: re-review under the vault lock; the transaction runs only if
 *   nothing blocks and the hash is the approved one.
 * - {@link decline}, {@link reopen}, {@link rollback} (a new, inverse proposal),
 *   {@link list}, {@link auditLog}.
 * - {@link parseChangeList}, {@link parseChangesDocument}: the change-request
 *   list (MCP, web API) and `propose --changes FILE.json`, strict.
 *
 * Stored in `proposals.sqlite` under the data root ({@link ProposalStore}):
 * proposals, their exact texts and reviews, and the append-only audit log.
 */
export { propose, review, show, apply, decline, reopen, rollback, list, auditLog, settleOperation, LIMITS } from './lifecycle.js';
export type { ProposeInput, ProposeResult, ReviewResult, ReviewView, ShowResult, ApplyResultView, ProposalFileView } from './lifecycle.js';
export { plainMove } from './changes.js';
export { ACTIONS, parseChangeList, changeListZod, actionsSummary, actionFields, type ChangeRequest, type ChangeAction, type CaptureRequest } from './requests.js';
export { rewriteLinks, type LinkRewriter, type HeadingRename } from './link-rewrite.js';
export { parseChangesDocument, parseChangeListText, type ChangesDocument } from './changes-json.js';
export { ProposalStore, PROPOSAL_STORE, type ProposalSummary, type ListFilter, type LogFilter } from './store.js';
export { PROPOSAL_STATES, OPEN_STATES, isRollbackProposed, type ProposalState, type ProposalRecord, type StoredChange, type StoredReview, type AuditEvent, type ReviewFile } from './types.js';
export { capturedPath, readRecordedSource, readSourceBytes, recordedSource, type CaptureOutcome } from './capture.js';
export { quotesOnly } from './source-check.js';
