/**
 * The budget rule, pure: items are taken in order while their text fits whole;
 * one that does not fit is left out and listed as truncated, and later (smaller)
 * items may still fit. A section is never cut, so a table or list inside it is
 * never cut either (DESIGN §4).
 */
import type { EvidenceItem } from './types.js';

/** An evidence item before it has its id, with the section row it came from. */
export type Candidate = Omit<EvidenceItem, 'id' | 'linked'> & { sectionId: number; linked?: boolean };

export interface Fitted {
  taken: Candidate[];
  left: Candidate[];
  used: number;
}

/**
 * @param budget characters (UTF-16 units) of text still allowed
 * @param maxTaken most items to take (linked sections are capped by `--max-linked`)
 */
export function fitBudget(items: Candidate[], budget: number, maxTaken = Infinity): Fitted {
  const taken: Candidate[] = [];
  const left: Candidate[] = [];
  let used = 0;
  for (const item of items) {
    if (taken.length >= maxTaken) break;
    if (used + item.text.length <= budget) {
      taken.push(item);
      used += item.text.length;
    } else left.push(item);
  }
  return { taken, left, used };
}

/**
 * Interleave ranked lists (the question's hits, then each extra query's) so a tight
 * budget still gets the best of every query: q1#1, q2#1, q1#2, q2#2, … Sections
 * already taken from an earlier list are skipped.
 */
export function interleave(lists: Candidate[][]): Candidate[] {
  const out: Candidate[] = [];
  const seen = new Set<number>();
  const longest = Math.max(0, ...lists.map((l) => l.length));
  for (let rank = 0; rank < longest; rank++) {
    for (const list of lists) {
      const c = list[rank];
      if (c && !seen.has(c.sectionId)) {
        seen.add(c.sectionId);
        out.push(c);
      }
    }
  }
  return out;
}
