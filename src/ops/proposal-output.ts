import type { ReviewView } from '../proposals/index.js';

/**
 * What every proposal verb answers with: the review's check and claim fields
 * (the MCP output schemas name them) and the review as a terminal shows it.
 * Shared by `propose` (src/ops/propose-op.ts) and the other proposal verbs.
 */

/** A review check as documented (docs/json.md): the MCP output schemas name these fields. */
const CHECK = { name: 'string', ok: 'boolean', severity: 'string', message: 'string' } as const;
/** A review's documented fields (docs/json.md): `review` and `show` answer with them, `propose` under `review`. */
export const REVIEW = {
  checks: { array: CHECK },
  files: { array: { path: 'string', action: 'string', old_sha256: 'string|null', new_sha256: 'string|null', diff: 'string' } },
  diff: 'string',
  review_hash: 'string|null',
} as const;
/** A plan's claim and its cited fragments (issue 22 §2), present only for a proposal made by `plan --propose`. */
export const CLAIM = {
  claim: { object: { text: 'string', kind: 'string', catalog_id: 'string', answer_id: 'integer', recommendation: 'integer' }, optional: true },
  evidence: { array: { id: 'string', side: 'string', note: 'string', heading: { array: 'string' }, lines: { array: 'integer' }, text: 'string', anchor: 'boolean', status: 'string' }, optional: true },
} as const;

export const proposalsCore = () => import('../proposals/index.js');

export function reviewText(r: ReviewView & { proposal: { id: string; state: string } }): string {
  const marks = r.checks.map((c) => `${(c.ok ? 'ok' : c.severity === 'block' ? 'BLOCK' : 'warn').padEnd(5)} ${c.name.padEnd(14)} ${c.message}`);
  // every link a move or heading rename rewrites, where and how (the diff shows them in context)
  const rewritten = r.files.flatMap((f) => (f.links_rewritten ?? []).map((l) => `  ${f.to ?? f.path}:${l.line}  ${l.before} → ${l.after}`));
  const links = rewritten.length > 0 ? ['', `links rewritten (${rewritten.length}):`, ...rewritten] : [];
  return [`${r.proposal.id}: ${r.proposal.state}${r.review_hash ? `  review_hash ${r.review_hash}` : ''}`, ...claimText(r), ...marks, ...links, '', r.diff].join('\n');
}

/** A plan's claim with each cited fragment beside it (issue 22 §2): status, side, where, and the exact text. */
function claimText(r: ReviewView): string[] {
  if (!r.claim) return [];
  const c = r.claim;
  const ev = (r.evidence ?? []).map((e) => {
    const at = `${e.note}:${e.lines[0]}${e.lines[1] === e.lines[0] ? '' : `-${e.lines[1]}`}`;
    const heading = e.heading.length ? ` (${e.heading.join(' > ')})` : '';
    const now = e.found_lines ? ` [now at ${e.found_lines[0]}-${e.found_lines[1]}]` : '';
    return `  ${e.status.padEnd(9)} ${e.side} ${at}${heading}${e.anchor ? ' anchor' : ''}${now}  ${e.text.replace(/\s*\n\s*/g, ' ')}`;
  });
  return [
    `claim: ${c.text}`,
    `  (${c.kind}, catalog ${c.catalog_id}, answer ${c.answer_id}, recommendation ${c.recommendation})`,
    `evidence (${ev.length}; whether it supports the claim is for you to judge):`,
    ...ev,
    '',
  ];
}

/**
 * `changes`, the list itself (MCP, web API): its description is built from the
 * action table, one short entry per action, since every byte of `tools/list` is
 * in the model's context before its first call.
 */
