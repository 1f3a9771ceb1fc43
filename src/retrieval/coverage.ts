/**
 * Coverage: how much of a question a note or a section holds, as the share of
 * its terms' idf it holds. Rank.ts weighs a note's score by it; section-choice.ts
 * rescores a note's sections by it.
 */

/**
 * A query term as coverage counts it: a holder of `expr` covers it fully, one
 * holding only an alternate (a word of the same family or a correction:
 * bridge.ts) covers it by that alternate's credit (below 1).
 */
export interface CoverageTerm {
  expr: string;
  alternates: { expr: string; credit: number }[];
}

/**
 * Each holder's idf-weighted share of the terms: a term counts its idf times
 * the best credit the holder has for it (1 for the term itself), and the sum is
 * divided by the terms' whole idf. Only holders of some term or alternate appear.
 *
 * @param idf one weight per term
 * @param holders the ids (notes, sections) an FTS expression matches
 */
export function idfCoverage(terms: readonly CoverageTerm[], idf: readonly number[], holders: (expr: string) => Iterable<number>): Map<number, number> {
  const got = new Map<number, number>();
  terms.forEach((t, k) => {
    const credit = new Map<number, number>();
    for (const id of holders(t.expr)) credit.set(id, 1);
    for (const alt of t.alternates) {
      for (const id of holders(alt.expr)) credit.set(id, Math.max(credit.get(id) ?? 0, alt.credit));
    }
    for (const [id, c] of credit) got.set(id, (got.get(id) ?? 0) + c * idf[k]!);
  });
  const sum = idf.reduce((a, b) => a + b, 0) || 1;
  for (const [id, w] of got) got.set(id, w / sum);
  return got;
}
