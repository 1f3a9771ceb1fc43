import { errorReport, findOperation, runOperation, type OpContext } from '../../ops/index.js';
import type { ApplyResultView, AuditEvent, ProposalSummary, ProposeResult, ReviewResult, ShowResult } from '../../proposals/index.js';
import type { ErrorView, View } from './model.js';
import { PAGE_SIZE } from './window.js';

/**
 * What the inbox asks of vaultgate: one method per operation of the table, each
 * a `runOperation` with the operation's own params — the same validation, core
 * call and JSON the CLI's `proposals`, `show`, `review`, `apply`, `decline`,
 * `reopen`, `rollback` and `log` give. The inbox adds nothing on the way.
 */
export interface InboxBackend {
  list(q: { view: View; filter: string; offset: number }): Promise<{ total: number; proposals: ProposalSummary[] }>;
  log(q: { offset: number }): Promise<{ total: number; events: AuditEvent[] }>;
  show(id: string): Promise<ShowResult>;
  review(id: string): Promise<ReviewResult>;
  apply(id: string, reviewHash: string): Promise<ApplyResultView>;
  decline(id: string, reason: string): Promise<{ proposal: { id: string; state: 'declined'; reason: string } }>;
  reopen(id: string): Promise<ReviewResult>;
  rollback(id: string): Promise<ProposeResult>;
}

/** The operations the terminal inbox runs (a fast-lane test checks each is in the table). */
export const TERMINAL_INBOX_OPERATIONS = ['proposals', 'log', 'show', 'review', 'apply', 'decline', 'reopen', 'rollback'] as const;

async function run<T>(name: (typeof TERMINAL_INBOX_OPERATIONS)[number], input: Record<string, unknown>, ctx: OpContext): Promise<T> {
  const op = findOperation({ name });
  if (!op) throw new Error(`the operation table has no ${name}`);
  return (await runOperation(op, input, 'api', ctx)).output as T;
}

export function opsBackend(ctx: OpContext): InboxBackend {
  return {
    list: ({ view, filter, offset }) => run('proposals', { ...(view === 'all' ? {} : { state: view }), ...(filter ? { match: filter } : {}), limit: PAGE_SIZE, offset }, ctx),
    log: ({ offset }) => run('log', { limit: PAGE_SIZE, offset }, ctx),
    show: (id) => run('show', { id }, ctx),
    review: (id) => run('review', { id }, ctx),
    apply: (id, review_hash) => run('apply', { id, review_hash }, ctx),
    decline: (id, reason) => run('decline', { id, reason }, ctx),
    reopen: (id) => run('reopen', { id }, ctx),
    rollback: (id) => run('rollback', { id }, ctx),
  };
}

/** A thrown value as the inbox shows it: typed errors as the CLI prints them, anything else a bug (INTERNAL, exit 1). */
export function errorView(raised: unknown): ErrorView {
  const { error, exitCode, internal } = errorReport(raised);
  // A bug's stack is kept for when the inbox closes (ink owns the screen until then).
  const hint = internal ? 'This is a bug in vaultgate; the stack is printed when the inbox closes.' : error.hint;
  return { code: error.code, message: error.message, ...(hint ? { hint } : {}), exit: exitCode };
}
