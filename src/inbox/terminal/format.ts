import type { ReviewCheck } from '../../policy/index.js';
import type { AuditEvent, ProposalState, ProposalSummary } from '../../proposals/index.js';
import { isRollbackProposed } from '../../proposals/types.js';

/**
 * Short renderings of the core's values for a narrow screen. They reword
 * nothing: a check's name and message, a state, an event are shown as the core
 * reports them (the same words `vaultgate proposals` and `review` print).
 */

/** How long ago `iso` was, in the largest whole unit: `now`, `42s`, `5m`, `3h`, `2d`, `7w`, `1y`. */
export function age(iso: string, nowMs: number): string {
  const t = Date.parse(iso);
  if (!Number.isFinite(t)) return '?';
  const s = Math.max(0, Math.floor((nowMs - t) / 1000));
  if (s < 5) return 'now';
  if (s < 60) return `${s}s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m}m`;
  const h = Math.floor(m / 60);
  if (h < 24) return `${h}h`;
  const d = Math.floor(h / 24);
  if (d < 14) return `${d}d`;
  if (d < 365) return `${Math.floor(d / 7)}w`;
  return `${Math.floor(d / 365)}y`;
}

/** `3h ago`, or `just now`. */
export function ago(iso: string, nowMs: number): string {
  const a = age(iso, nowMs);
  return a === 'now' ? 'just now' : `${a} ago`;
}

/** The list's check column: what blocks (by check name), else the number of warnings, else `ok`. */
export function checkSummary(p: Pick<ProposalSummary, 'blocking' | 'warnings' | 'review_hash' | 'state'>): { text: string; tone: Tone } {
  if (p.blocking.length > 0) return { text: `x ${p.blocking.join(',')}`, tone: 'bad' };
  if (p.warnings > 0) return { text: `! ${p.warnings} warning${p.warnings === 1 ? '' : 's'}`, tone: 'warn' };
  if (p.review_hash === null && (p.state === 'pending' || p.state === 'blocked')) return { text: 'not reviewed', tone: 'dim' };
  return { text: 'ok', tone: 'good' };
}

/** Colour classes; the view maps them to terminal colours. */
export type Tone = 'plain' | 'dim' | 'good' | 'bad' | 'warn' | 'info' | 'accent' | 'add' | 'del' | 'hunk' | 'file' | 'title';

export function stateTone(state: ProposalState): Tone {
  switch (state) {
    case 'pending':
      return 'good';
    case 'blocked':
      return 'bad';
    case 'applied':
      return 'info';
    case 'declined':
      return 'dim';
    case 'recovery':
    case 'undone':
      return 'warn';
  }
}

/** The colour of a unified diff line, by its first characters (git's own layout, docs/json.md). */
export function diffTone(line: string): Tone {
  if (line.startsWith('diff --git ') || line.startsWith('--- ') || line.startsWith('+++ ') || /^(new file|deleted file|rename from|rename to)\b/.test(line)) return 'file';
  if (line.startsWith('@@')) return 'hunk';
  if (line.startsWith('+')) return 'add';
  if (line.startsWith('-')) return 'del';
  if (line.startsWith('\\')) return 'dim';
  return 'plain';
}

/** One line per check that does not pass (block first, then warnings), and one line naming those that pass. */
export function checkLines(checks: readonly ReviewCheck[]): Array<{ text: string; tone: Tone }> {
  const failing = checks.filter((c) => !c.ok).sort((a, b) => (a.severity === b.severity ? 0 : a.severity === 'block' ? -1 : 1));
  const lines = failing.map((c) => ({
    text: `${c.severity === 'block' ? 'BLOCK' : 'warn '} ${c.name}${c.path ? ` (${c.path})` : ''}: ${c.message}`,
    tone: (c.severity === 'block' ? 'bad' : 'warn') as Tone,
  }));
  const passing = [...new Set(checks.filter((c) => c.ok).map((c) => c.name))].filter((n) => !failing.some((c) => c.name === n));
  if (passing.length > 0) lines.push({ text: `ok    ${passing.join(', ')}`, tone: 'good' });
  return lines;
}

/** What an audit event says beyond its name: the reason of a decline, the state a review left, the files applied. */
export function eventDetail(e: AuditEvent): string {
  const d = e.details as Record<string, unknown>;
  switch (e.event) {
    case 'declined':
      return typeof d.reason === 'string' ? `reason: ${d.reason}` : '';
    case 'reviewed':
    case 'reopened': {
      const blocking = Array.isArray(d.blocking) && d.blocking.length > 0 ? ` (${(d.blocking as string[]).join(', ')})` : '';
      return `${String(d.state ?? '')}${blocking}`;
    }
    case 'applied':
      return Array.isArray(d.changed_paths) ? (d.changed_paths as string[]).join(', ') : '';
    case 'proposed':
      return typeof d.title === 'string' ? d.title : '';
    case 'rollback_proposed':
      return typeof d.rollback_proposal === 'string' ? `as ${d.rollback_proposal} (${String(d.state ?? '')})` : '';
    case 'rolled_back':
      // a log before issue 21 wrote this when the rollback was only proposed (it has `state`)
      if (isRollbackProposed(e)) return typeof d.rollback_proposal === 'string' ? `as ${d.rollback_proposal} (${String(d.state ?? '')})` : '';
      return typeof d.rollback_proposal === 'string' ? `by ${d.rollback_proposal}` : '';
    case 'recovery':
      return typeof d.outcome === 'string' ? d.outcome : '';
    case 'undone':
      return typeof d.undone_by === 'string' ? `by ${d.undone_by}` : '';
  }
}

/** The first 12 hex digits of a hash: enough to compare by eye with what `review` printed. */
export function shortHash(h: string | null): string {
  return h === null ? '-' : h.slice(0, 12);
}
