/** Values shaped like the core's answers, for the terminal inbox's model tests (no vault, no terminal). */
import type { ApplyResultView, AuditEvent, ProposalState, ProposalSummary, ReviewResult, ShowResult } from '../../../src/proposals/index.js';

export const T0 = Date.parse('2026-03-01T12:00:00.000Z');
export const HASH = 'a'.repeat(64);

export function summary(n: number, over: Partial<ProposalSummary> = {}): ProposalSummary {
  return {
    id: `p-${n}`,
    state: 'pending',
    title: `change ${n}`,
    agent: 'claude',
    session: null,
    scenario: null,
    origin: 'propose',
    rollback_of: null,
    created_at: new Date(T0 - n * 60_000).toISOString(),
    updated_at: new Date(T0 - n * 60_000).toISOString(),
    files: [{ path: `Notes/${n}.md`, action: 'write' }],
    blocking: [],
    warnings: 0,
    review_hash: HASH,
    ...over,
  };
}

/** The page `page` (50 rows) of a queue p-total … p-1, newest first. */
export function queuePage(total: number, page: number, over: (n: number) => Partial<ProposalSummary> = () => ({})): ProposalSummary[] {
  const rows: ProposalSummary[] = [];
  for (let i = page * 50; i < Math.min(total, page * 50 + 50); i++) rows.push(summary(total - i, over(total - i)));
  return rows;
}

export function shown(id: string, over: { state?: ProposalState; diff?: string; title?: string; review_hash?: string | null } = {}): ShowResult {
  return {
    proposal: {
      id,
      state: over.state ?? 'pending',
      title: over.title ?? `title of ${id}`,
      summary: null,
      agent: 'claude',
      session: null,
      scenario: null,
      allow_shrink: false,
      allow_relink: false,
      allow_broken_links: false,
      origin: 'propose',
      rollback_of: null,
      rolled_back_by: null,
      rollback_state: null,
      operation_id: `proposal-${id}-00000000`,
      created_at: new Date(T0 - 3_600_000).toISOString(),
      updated_at: new Date(T0 - 3_600_000).toISOString(),
      reviewed_at: new Date(T0 - 3_600_000).toISOString(),
      applied_at: null,
      changed_paths: null,
      declined_reason: null,
      folder_moves: [],
      link_targets: null,
      undone_at: null,
      undone_by: null,
      operation_type: 'generic',
    },
    checks: [
      { name: 'base', ok: true, severity: 'block', message: 'every file has its base' },
      { name: 'links', ok: false, severity: 'warn', message: 'new link [[Missing]] points to a note that does not exist (yet)', path: 'a.md' },
    ],
    files: [],
    link_changes: [],
    diff: over.diff ?? 'diff --git a/a.md b/a.md\n--- a/a.md\n+++ b/a.md\n@@ -1,1 +1,1 @@\n-old\n+new\n',
    review_hash: over.review_hash === undefined ? HASH : over.review_hash,
  };
}

export function reviewed(id: string, review_hash: string | null, state: ProposalState = 'pending', blocking: string[] = []): ReviewResult {
  return {
    proposal: { id, state },
    checks: [
      { name: 'base', ok: !blocking.includes('base'), severity: 'block', message: blocking.includes('base') ? 'a.md changed since the proposal was made' : 'ok' },
      { name: 'owner', ok: !blocking.includes('owner'), severity: 'block', message: 'ok' },
    ],
    files: [],
    link_changes: [],
    diff: 'diff --git a/a.md b/a.md\n--- a/a.md\n+++ b/a.md\n@@ -1,1 +1,1 @@\n-old\n+newer\n',
    review_hash,
  };
}

export function appliedView(id: string): ApplyResultView {
  return { operation_id: `proposal-${id}-00000000`, changed_paths: ['a.md'], proposal: { id, state: 'applied' } };
}

export function event(seq: number, over: Partial<AuditEvent> = {}): AuditEvent {
  return { seq, at: new Date(T0 - seq * 1000).toISOString(), event: 'proposed', actor: 'claude', proposal: `p-${seq}`, operation_id: null, review_hash: null, details: { title: `change ${seq}` }, ...over };
}
