import { sha256Hex } from '../vault/index.js';
import type { BrokenLink, LinkChange, StoredReview } from './types.js';

/**
 * The review hash (issue 20 class 6): what a person approves is what apply
 * will do, link side effects included. The engine's approval hash covers the
 * exact bundle (every path, old and new bytes, modes, pinned reads); the links
 * of *other* notes whose answer the change moves — a link written after the
 * review into a note the proposal does not touch, a backlink to a note it
 * deletes, a link a new note steals, a `[[Note#Heading]]` whose heading it
 * renames — are not in the bundle. So the review hash is a hash over both: the
 * engine's approval and the link side effects (`link_changes`, and every
 * file's `links_broken`, which alone lists a link that keeps its note but
 * loses its heading). When apply (under the lock) finds others, the hash
 * differs and it refuses.
 *
 * A side effect is compared by what it is, not where: the note, the link as
 * written (and as rewritten), what it opened and what it will open, and why —
 * not its line, which an unrelated edit above it moves. `follows_move` is left
 * out: such a link keeps its text and opens the very file it opened, where it
 * moved, so a backlink written meanwhile to a moved note is no change to show
 * (and does not make the person review again).
 */

export interface LinkEffect {
  key: string;
  /** For a person: `source:line raw (before → after, why)`. */
  text: string;
  item: LinkChange | BrokenLink;
}

type Reviewed = Pick<StoredReview, 'link_changes' | 'files'> & Partial<Pick<StoredReview, 'evidence'>>;

/**
 * A plan's cited fragments as review found them (issue 22 §2), by id and
 * status: a fragment that changes after the person approved makes apply
 * refuse (EVIDENCE_CHANGED), even when it only warns; none: no key at all,
 * so the hash of every other proposal is what it was.
 */
export function evidenceKeys(r: Partial<Pick<StoredReview, 'evidence'>>): string[] {
  return (r.evidence ?? []).map((e) => `${e.id}\0${e.status}`).sort();
}

export function linkEffects(r: Reviewed): LinkEffect[] {
  const out: LinkEffect[] = [];
  for (const c of r.link_changes ?? []) {
    if (c.reason === 'follows_move') continue;
    out.push({
      key: JSON.stringify(['change', c.source, c.kind, c.raw, c.raw_after ?? null, c.in_comment, c.before.status, c.before.target, c.after.status, c.after.target, c.after.candidates ?? null, c.reason, c.intended]),
      text: `${c.source}:${c.line} ${c.raw} (${c.before.target ?? c.before.status} → ${c.after.target ?? c.after.status}, ${c.reason.replace(/_/g, ' ')})`,
      item: c,
    });
  }
  for (const f of r.files) {
    for (const b of f.links_broken ?? []) {
      out.push({ key: JSON.stringify(['broken', b.source, b.raw, b.reason, b.target]), text: `${b.source}:${b.line} ${b.raw} (${b.target ?? '?'}: ${b.reason.replace(/_/g, ' ')})`, item: b });
    }
  }
  return out;
}

export function reviewHashOf(approval: string, r: Reviewed): string {
  const effects = linkEffects(r)
    .map((e) => e.key)
    .sort();
  const evidence = evidenceKeys(r);
  return sha256Hex(Buffer.from(JSON.stringify({ schema: 'vaultgate.review.v1', approval, link_effects: effects, ...(r.evidence === undefined ? {} : { evidence }) }), 'utf8'));
}

/** The side effects in `now` and not in `then` (`added`), and the other way round (`removed`), as multisets. */
export function diffLinkEffects(then: Reviewed, now: Reviewed): { added: LinkEffect[]; removed: LinkEffect[] } {
  const minus = (a: LinkEffect[], b: LinkEffect[]) => {
    const pool = new Map<string, number>();
    for (const e of b) pool.set(e.key, (pool.get(e.key) ?? 0) + 1);
    return a.filter((e) => {
      const n = pool.get(e.key) ?? 0;
      if (n === 0) return true;
      pool.set(e.key, n - 1);
      return false;
    });
  };
  const a = linkEffects(then);
  const b = linkEffects(now);
  return { added: minus(b, a), removed: minus(a, b) };
}
