import { sha256Hex } from '../vault/index.js';
import type { LinkChange } from './types.js';

/**
 * The review hash (issue 20 class 6): what a person approves is what apply
 * will do, link side effects included. The engine's approval hash covers the
 * exact bundle (every path, old and new bytes, modes, pinned reads); the links
 * of *other* notes whose answer the change moves — a link written after the
 * review into a note the proposal does not touch, a backlink to a note it
 * deletes, a link a new note steals — are not in the bundle. So the review
 * hash is a hash over both: the engine's approval and the set of link changes.
 * When apply (under the lock) finds another set, the hash differs and it refuses.
 *
 * A link change is compared by what it is, not where: the note, the link as
 * written (and as rewritten), what it opened and what it will open, and why —
 * not its line, which an unrelated edit above it moves. `follows_move` is left
 * out: such a link keeps its text and opens the very file it opened, where it
 * moved, so a backlink written meanwhile to a moved note is no change to show
 * (and does not make the person review again).
 */
export function linkChangeKeys(changes: readonly LinkChange[]): string[] {
  return changes
    .filter((c) => c.reason !== 'follows_move')
    .map((c) =>
      JSON.stringify([c.source, c.kind, c.raw, c.raw_after ?? null, c.in_comment, c.before.status, c.before.target, c.after.status, c.after.target, c.after.candidates ?? null, c.reason, c.intended]),
    )
    .sort();
}

export function reviewHashOf(approval: string, linkChanges: readonly LinkChange[]): string {
  return sha256Hex(Buffer.from(JSON.stringify({ schema: 'vaultgate.review.v1', approval, link_changes: linkChangeKeys(linkChanges) }), 'utf8'));
}

/** The link changes in `now` and not in `then` (`added`), and the other way round (`removed`), as multisets. */
export function diffLinkChanges(then: readonly LinkChange[], now: readonly LinkChange[]): { added: LinkChange[]; removed: LinkChange[] } {
  const minus = (a: readonly LinkChange[], b: readonly LinkChange[]) => {
    const pool = new Map<string, number>();
    for (const k of linkChangeKeys(b)) pool.set(k, (pool.get(k) ?? 0) + 1);
    return a.filter((c) => {
      if (c.reason === 'follows_move') return false;
      const k = linkChangeKeys([c])[0]!;
      const n = pool.get(k) ?? 0;
      if (n === 0) return true;
      pool.set(k, n - 1);
      return false;
    });
  };
  return { added: minus(now, then), removed: minus(then, now) };
}
