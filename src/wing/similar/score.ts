import { dot, sparseDot, type SparseVec } from './sparse.js';

/**
 * The similarity of two notes from their vectors (DESIGN §5.3: candidates,
 * never verdicts). Three parts, weighted:
 *
 * - `sparse`: cosine of the notes' BM25 vectors over words and link/tag
 *   pseudo-terms (LSA provider only: the exact-word half);
 * - `dense`: cosine of the notes' dense vectors (LSA, or an embedding model);
 * - `coverage`: section level — for each section of one note, its best match
 *   among the other's sections, averaged (weighted by length); the better of
 *   the two directions. A short note whose topic is one section of a long note
 *   covers it fully, even though the long note as a whole is about much more.
 *
 * The weights were tuned on the dev split of eval/similar-pairs.json and
 * checked on its holdout (`npm run eval`).
 */
/** A section's vector (its heading path and lines are read apart, load-vectors.ts, for the notes shown). */
export interface SectionVector {
  /** Normalised (empty when the section has none). */
  dense: Float32Array;
  /** Length in terms (LSA) or characters / 50 (providers): the section's weight is its square root; 0 when it has no vector. */
  len: number;
}

export interface NoteVectors {
  path: string;
  /** Normalised. */
  dense: Float32Array;
  /** Normalised, or null for providers without a sparse part. */
  sparse: SparseVec | null;
  sections: SectionVector[];
}

export interface ScoreWeights {
  sparse: number;
  dense: number;
  coverage: number;
  /** Sections shorter than this (in terms) are left out of coverage, unless a note has no other. */
  minLen: number;
}

/** Round weights near the best of the dev split at 100–200 dims (see eval/similar.ts). */
export const DEFAULT_WEIGHTS: ScoreWeights = { sparse: 0.25, dense: 0.25, coverage: 0.5, minLen: 3 };

export interface SectionPair {
  a: number;
  b: number;
  score: number;
}

export interface PairScore {
  score: number;
  parts: { sparse: number | null; dense: number; coverage: number };
  /** Best-matching section pairs, best first. */
  best_pairs: SectionPair[];
}

/** Scratch for {@link pairScore}'s section similarities. */
let sims = new Float32Array(256);

export function pairScore(a: NoteVectors, b: NoteVectors, w: ScoreWeights = DEFAULT_WEIGHTS, bestPairs = 3): PairScore {
  const dense = dot(a.dense, b.dense);
  const sparse = a.sparse && b.sparse ? sparseDot(a.sparse, b.sparse) : null;
  const sa = usable(a, w.minLen);
  const sb = usable(b, w.minLen);
  // Section × section similarities, once: both coverage directions and the best pairs come
  // from them. In float32 (as they are compared), in a buffer reused across calls: a warm
  // `similar NOTE` scores every note of the vault.
  const n = sa.length;
  const m = sb.length;
  if (sims.length < n * m) sims = new Float32Array(2 * n * m);
  for (let i = 0; i < n; i++) {
    const ai = sa[i]!.dense;
    for (let j = 0; j < m; j++) sims[i * m + j] = dot(ai, sb[j]!.dense);
  }
  let coverage = dense;
  if (n && m) {
    // Each section's best match on the other side, averaged with weight √len; the better direction.
    let num = 0;
    let den = 0;
    for (let i = 0; i < n; i++) {
      let best = -1;
      for (let j = 0; j < m; j++) best = Math.max(best, sims[i * m + j]!);
      const wt = Math.sqrt(sa[i]!.len);
      num += wt * best;
      den += wt;
    }
    const ab = den > 0 ? num / den : dense;
    num = 0;
    den = 0;
    for (let j = 0; j < m; j++) {
      let best = -1;
      for (let i = 0; i < n; i++) best = Math.max(best, sims[i * m + j]!);
      const wt = Math.sqrt(sb[j]!.len);
      num += wt * best;
      den += wt;
    }
    coverage = Math.max(ab, den > 0 ? num / den : dense);
  }
  const ws = sparse === null ? 0 : w.sparse;
  const total = ws + w.dense + w.coverage;
  const score = ((sparse ?? 0) * ws + dense * w.dense + coverage * w.coverage) / (total || 1);
  // The best pairs by selection (k is small), not by sorting every pair.
  const best: { i: number; j: number; s: number }[] = [];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < m; j++) {
      const x = sims[i * m + j]!;
      if (best.length === bestPairs && x <= best[best.length - 1]!.s) continue;
      let at = best.length;
      while (at > 0 && best[at - 1]!.s < x) at--;
      best.splice(at, 0, { i, j, s: x });
      if (best.length > bestPairs) best.pop();
    }
  }
  const pairs = best.map((p) => ({ a: a.sections.indexOf(sa[p.i]!), b: b.sections.indexOf(sb[p.j]!), score: p.s }));
  return { score, parts: { sparse, dense, coverage }, best_pairs: pairs };
}

function usable(n: NoteVectors, minLen: number): SectionVector[] {
  const nonEmpty = n.sections.filter((s) => s.len > 0);
  const long = nonEmpty.filter((s) => s.len >= minLen);
  return long.length ? long : nonEmpty;
}
