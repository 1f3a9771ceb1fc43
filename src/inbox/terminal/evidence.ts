import type { ReviewView } from '../../proposals/index.js';
import type { Tone } from './format.js';

/**
 * A plan's claim with every fragment it cites beside it (issue 22 §2), for the
 * proposal view: the person judges whether the evidence is enough; the status
 * is what the last review found (`r` reviews again). Nothing for a proposal
 * not made from a plan.
 */
export function claimLines(d: Pick<ReviewView, 'claim' | 'evidence'>): Array<{ text: string; tone: Tone }> {
  if (!d.claim) return [];
  const c = d.claim;
  const ev = d.evidence ?? [];
  const out: Array<{ text: string; tone: Tone }> = [
    { text: `claim: ${c.text}`, tone: 'title' },
    { text: `  ${c.kind} · catalog ${c.catalog_id} · answer ${c.answer_id} · recommendation ${c.recommendation}`, tone: 'dim' },
    { text: `evidence (${ev.length}): is it enough for the claim? yours to judge`, tone: 'dim' },
  ];
  for (const e of ev) {
    const lines = e.lines[0] === e.lines[1] ? `${e.lines[0]}` : `${e.lines[0]}-${e.lines[1]}`;
    const heading = e.heading.length ? ` (${e.heading.join(' > ')})` : '';
    const now = e.found_lines ? ` now at ${e.found_lines[0]}-${e.found_lines[1]}` : '';
    const tone: Tone = e.status === 'ok' ? 'good' : e.status === 'changed' || e.status === 'note_gone' ? 'bad' : 'warn';
    out.push({ text: `  ${e.status.replace('_', ' ').padEnd(9)} ${e.side} ${e.note}:${lines}${heading}${e.anchor ? ' · link here' : ''}${now}`, tone });
    for (const l of e.text.split('\n')) out.push({ text: `      ${l}`, tone: 'plain' });
  }
  out.push({ text: '', tone: 'plain' });
  return out;
}
