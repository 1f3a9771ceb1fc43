/**
 * Each row's `k` best other rows by dot product (cosine for unit rows), best
 * first, every pair scored once: exact, O(n² · dims), no allocation per pair.
 * Row i's list is `index[i*k … i*k+k)` with its `score`s; an unused slot has
 * index -1. Only scores above `floor` are kept. Of equal scores the row met
 * first stays ahead.
 */
export function nearestRows(
  data: Float32Array | Float64Array,
  n: number,
  dims: number,
  k: number,
  floor = -Infinity,
): { index: Int32Array; score: Float64Array } {
  const score = new Float64Array(n * k).fill(-Infinity);
  const index = new Int32Array(n * k).fill(-1);
  const offer = (i: number, j: number, s: number) => {
    const o = i * k;
    if (s <= score[o + k - 1]! || s <= floor) return;
    let at = k - 1;
    while (at > 0 && score[o + at - 1]! < s) {
      score[o + at] = score[o + at - 1]!;
      index[o + at] = index[o + at - 1]!;
      at--;
    }
    score[o + at] = s;
    index[o + at] = j;
  };
  for (let i = 0; i < n; i++) {
    const oi = i * dims;
    for (let j = i + 1; j < n; j++) {
      const oj = j * dims;
      let d = 0;
      for (let x = 0; x < dims; x++) d += data[oi + x]! * data[oj + x]!;
      offer(i, j, d);
      offer(j, i, d);
    }
  }
  return { index, score };
}
