import type { NoteHead, NoteRow } from './load-vectors.js';
import { type NoteVectors, type ScoreWeights } from './score.js';
import { sparseDot } from './sparse.js';

/**
 * {@link pairScore}'s `score` alone, of one note against every row of a scan
 * (a warm `similar NOTE` scores the whole vault): the same sums in the same
 * order, so the same numbers to the bit, without what only the notes shown
 * need — the best section pairs, the section × section matrix, an object per
 * section. The notes shown are scored again in full by `pairScore`.
 */
export class ScanScorer {
  private readonly mine: Float32Array[];
  private readonly mineWt: number[];
  private rowBest = new Float64Array(64);
  private colBest = new Float64Array(64);
  private colIdx = new Int32Array(64);

  constructor(
    private readonly me: NoteVectors,
    private readonly w: ScoreWeights,
  ) {
    const nonEmpty = me.sections.filter((s) => s.len > 0);
    const long = nonEmpty.filter((s) => s.len >= w.minLen);
    const sa = long.length ? long : nonEmpty;
    this.mine = sa.map((s) => s.dense);
    this.mineWt = sa.map((s) => Math.sqrt(s.len));
  }

  /**
   * `b`'s score, or null when it cannot reach `floor`: the note-level parts
   * first, with coverage at its most ({@link COVERAGE_MAX}); the sections
   * (`sections`, read only then) only for a note that might.
   */
  scoreAbove(h: NoteHead, floor: number, sections: (h: NoteHead) => Omit<NoteRow, keyof NoteHead>): number | null {
    const { me, w } = this;
    const dense = dotAt(me.dense, h.dense, 0);
    const sparse = me.sparse && h.sparse ? sparseDot(me.sparse, h.sparse) : null;
    const ws = sparse === null ? 0 : w.sparse;
    const total = ws + w.dense + w.coverage;
    const most = ((sparse ?? 0) * ws + dense * w.dense + Math.max(COVERAGE_MAX, dense) * w.coverage) / (total || 1);
    if (most < floor) return null;
    return this.finish(dense, sparse, sections(h));
  }

  score(b: NoteRow): number {
    const { me } = this;
    const dense = dotAt(me.dense, b.dense, 0);
    const sparse = me.sparse && b.sparse ? sparseDot(me.sparse, b.sparse) : null;
    return this.finish(dense, sparse, b);
  }

  private finish(dense: number, sparse: number | null, b: Omit<NoteRow, keyof NoteHead>): number {
    const { w } = this;
    // `usable` on the packed row: sections with a vector, the long ones if there are any.
    const { lens, all, dims } = b;
    let longCount = 0;
    let nonEmptyCount = 0;
    for (let j = 0; j < lens.length; j++) {
      if (lens[j]! > 0) nonEmptyCount++;
      if (lens[j]! > 0 && lens[j]! >= w.minLen) longCount++;
    }
    const minLen = longCount ? w.minLen : 1;
    const m = longCount || nonEmptyCount;
    if (this.colIdx.length < m) {
      this.colIdx = new Int32Array(2 * m);
      this.colBest = new Float64Array(2 * m);
    }
    const colIdx = this.colIdx;
    for (let j = 0, k = 0; j < lens.length; j++) if (lens[j]! > 0 && lens[j]! >= minLen) colIdx[k++] = j;
    const n = this.mine.length;
    let coverage = dense;
    if (n && m) {
      if (this.rowBest.length < n) this.rowBest = new Float64Array(2 * n);
      const rowBest = this.rowBest;
      const colBest = this.colBest;
      rowBest.fill(-1, 0, n);
      colBest.fill(-1, 0, m);
      for (let i = 0; i < n; i++) {
        const ai = this.mine[i]!;
        for (let k = 0; k < m; k++) {
          // Rounded to float32, as pairScore's matrix holds it.
          const x = Math.fround(dotAt(ai, all, colIdx[k]! * dims));
          rowBest[i] = Math.max(rowBest[i]!, x);
          colBest[k] = Math.max(colBest[k]!, x);
        }
      }
      let num = 0;
      let den = 0;
      for (let i = 0; i < n; i++) {
        const wt = this.mineWt[i]!;
        num += wt * rowBest[i]!;
        den += wt;
      }
      const ab = den > 0 ? num / den : dense;
      num = 0;
      den = 0;
      for (let k = 0; k < m; k++) {
        const wt = Math.sqrt(lens[colIdx[k]!]!);
        num += wt * colBest[k]!;
        den += wt;
      }
      coverage = Math.max(ab, den > 0 ? num / den : dense);
    }
    const ws = sparse === null ? 0 : w.sparse;
    const total = ws + w.dense + w.coverage;
    return ((sparse ?? 0) * ws + dense * w.dense + coverage * w.coverage) / (total || 1);
  }
}

/**
 * Coverage is a weighted mean of cosines of normalised vectors: at most 1,
 * and a little over only by float32 rounding in their normalisation. The
 * margin keeps the bound a bound.
 */
const COVERAGE_MAX = 1.01;

/** sparse.ts `dot(a, b.subarray(off, off + a.length))`, without the view. */
function dotAt(a: Float32Array, b: Float32Array, off: number): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[off + i]!;
  return s;
}
