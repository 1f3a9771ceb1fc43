import { normalize, sparseWeightedSum, type SparseVec } from './sparse.js';

/**
 * A note's own vectors from its sections': the length-weighted (√len) sum of
 * the normalised section vectors, normalised — so a long section counts more
 * than a one-line one, but not in proportion to its length.
 */
export function aggregateDense(sections: readonly { dense: Float32Array; len: number }[], dims: number): Float32Array {
  const acc = new Float32Array(dims);
  for (const s of sections) {
    const v = normalize(s.dense);
    const w = Math.sqrt(s.len);
    for (let j = 0; j < dims; j++) acc[j]! += w * v[j]!;
  }
  return normalize(acc);
}

export function aggregateSparse(sections: readonly { sparse: SparseVec; len: number }[]): SparseVec {
  return sparseWeightedSum(sections.map((s) => ({ v: s.sparse, w: Math.sqrt(s.len) })));
}
