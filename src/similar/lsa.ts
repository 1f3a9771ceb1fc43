import crypto from 'node:crypto';
import { csrFromRows, truncatedSvd } from '../linalg/index.js';

/**
 * Latent semantic analysis over the vault's sections (the offline default of
 * `similar`). Each section is a vector of BM25-weighted term counts (term
 * frequency saturated and normalised by the section's length, times the term's
 * inverse document frequency among sections); a truncated SVD of the sections ×
 * terms matrix keeps the ~100 directions along which the vault's words vary
 * together, so "cache expiry" and "TTL" land near each other when the vault
 * uses them together. A section (old or new) is projected as x · V: new and
 * changed notes are folded into the existing model without retraining it.
 *
 * Everything here is pure and deterministic (seeded), so a model is identified
 * by the hash of its inputs.
 */
export interface LsaParams {
  /** Dimensions kept. */
  dims: number;
  /** BM25 term-frequency saturation and length normalisation. */
  k1: number;
  b: number;
  /** Terms in fewer sections than this are not in the vocabulary (no co-occurrence to learn from). */
  minDf: number;
  /** Largest vocabulary (most frequent terms by document frequency). */
  maxTerms: number;
  /** Most rows (notes or sections) the SVD is trained on (an even sample beyond that); the rest are folded in. */
  maxTrainRows: number;
  /** Section vectors are scaled by Σ^(alpha-1): 1 keeps U·Σ, 0 gives every kept dimension equal weight. */
  alpha: number;
  /** What the SVD is trained on: sections, or whole notes (their summed bags; far fewer rows). */
  trainOn: 'sections' | 'notes';
  /** Bumped when the computation changes, so stored models are retrained. */
  version: number;
}

/**
 * Tuned on the dev split of eval/similar-pairs.json (`npm run eval`): training
 * on whole notes beat training on sections (dev ROC AUC of the blended score
 * 0.903 vs 0.884 at 100 dims), and 150 dims beat 100 (0.911 vs 0.903).
 */
export const DEFAULT_LSA_PARAMS: LsaParams = { dims: 150, k1: 1.2, b: 0.75, minDf: 2, maxTerms: 60_000, maxTrainRows: 12_000, alpha: 1, trainOn: 'notes', version: 1 };

export interface LsaModel {
  /** Hash of the parameters and the training data: the `model` a vector is stored under. */
  id: string;
  params: LsaParams;
  dims: number;
  /** term → column. */
  terms: Map<string, number>;
  idf: Float64Array;
  /** Inverse document frequency among notes (for the notes' sparse vectors). */
  noteIdf: Float64Array;
  /** Mean section length in terms (for BM25's length normalisation). */
  avgLen: number;
  sigma: Float64Array;
  /** Projection: terms × dims, row-major, Σ^(alpha-1) already applied. */
  projection: Float32Array;
  /** Sections the model was trained on. */
  trained: number;
}

/** One section as LSA sees it: term counts and its length in terms. */
export interface TermBag {
  counts: Map<string, number>;
  length: number;
}

export function bagOf(counts: Map<string, number>): TermBag {
  let length = 0;
  for (const c of counts.values()) length += c;
  return { counts, length };
}

/**
 * Train on the sections' bags; `noteOf[i]` is the note section i belongs to
 * (for the notes' idf, and for training on whole notes).
 */
export function trainLsa(bags: readonly TermBag[], noteOf: ArrayLike<number>, params: LsaParams = DEFAULT_LSA_PARAMS): LsaModel {
  const noteBags = mergeByNote(bags, noteOf);
  const sample = sampleOf(params.trainOn === 'notes' ? noteBags : bags, params.maxTrainRows);
  const df = new Map<string, number>();
  let totalLen = 0;
  for (const b of sample) {
    totalLen += b.length;
    for (const t of b.counts.keys()) df.set(t, (df.get(t) ?? 0) + 1);
  }
  const vocab = [...df.entries()]
    .filter(([, n]) => n >= params.minDf)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, params.maxTerms);
  const terms = new Map(vocab.map(([t], i) => [t, i]));
  const n = sample.length;
  const idf = new Float64Array(vocab.length);
  vocab.forEach(([, d], i) => (idf[i] = Math.log(1 + (n - d + 0.5) / (d + 0.5))));
  const avgLen = n ? totalLen / n : 1;
  const noteDf = new Float64Array(vocab.length);
  for (const nb of noteBags) for (const t of nb.counts.keys()) {
    const col = terms.get(t);
    if (col !== undefined) noteDf[col]!++;
  }
  // Plain log(N/df): a term every note has says nothing about which notes are alike.
  const noteIdf = noteDf.map((d) => (d > 0 ? Math.log(noteBags.length / d) : 0));
  const partial = { params, terms, idf, avgLen };
  const rows = sample.map((b) => weightRow(partial, b));
  const svd = truncatedSvd(csrFromRows(rows, vocab.length), params.dims, { seed: 1, powerIterations: 1, oversample: 10 });
  const dims = svd.k;
  const projection = new Float32Array(vocab.length * dims);
  for (let t = 0; t < vocab.length; t++) {
    for (let j = 0; j < dims; j++) {
      const s = svd.sigma[j]!;
      projection[t * dims + j] = s > 1e-12 ? svd.v[t * dims + j]! * Math.pow(s, params.alpha - 1) : 0;
    }
  }
  const id = crypto
    .createHash('sha256')
    .update(JSON.stringify(params))
    .update(JSON.stringify(vocab))
    .update(Buffer.from(projection.buffer, projection.byteOffset, projection.byteLength))
    .digest('hex')
    .slice(0, 16);
  return { id: `lsa-${dims}-${id}`, params, dims, terms, idf, noteIdf, avgLen, sigma: svd.sigma, projection, trained: n };
}

/** BM25 weights of a bag's known terms (column → weight), L2-normalised so long sections do not dominate the SVD. */
export function weightRow(m: Pick<LsaModel, 'params' | 'terms' | 'idf' | 'avgLen'>, bag: TermBag): Map<number, number> {
  const row = new Map<number, number>();
  const norm = 1 - m.params.b + (m.params.b * bag.length) / (m.avgLen || 1);
  let sq = 0;
  for (const [t, tf] of bag.counts) {
    const col = m.terms.get(t);
    if (col === undefined) continue;
    const w = ((tf * (m.params.k1 + 1)) / (tf + m.params.k1 * norm)) * m.idf[col]!;
    row.set(col, w);
    sq += w * w;
  }
  if (sq > 0) {
    const inv = 1 / Math.sqrt(sq);
    for (const [c, w] of row) row.set(c, w * inv);
  }
  return row;
}

/** A section's LSA vector (not normalised; all zeros when none of its terms is in the vocabulary). */
export function projectBag(m: LsaModel, bag: TermBag): Float32Array {
  const out = new Float32Array(m.dims);
  for (const [col, w] of weightRow(m, bag)) {
    const o = col * m.dims;
    for (let j = 0; j < m.dims; j++) out[j]! += w * m.projection[o + j]!;
  }
  return out;
}

/** A note's sparse vector: (1 + ln tf) · idf over notes, L2-normalised, for the note's summed bag. */
export function noteSparseRow(m: Pick<LsaModel, 'terms' | 'noteIdf'>, bag: TermBag): Map<number, number> {
  const row = new Map<number, number>();
  let sq = 0;
  for (const [t, tf] of bag.counts) {
    const col = m.terms.get(t);
    if (col === undefined) continue;
    const w = (1 + Math.log(tf)) * m.noteIdf[col]!;
    row.set(col, w);
    sq += w * w;
  }
  if (sq > 0) for (const [c, w] of row) row.set(c, w / Math.sqrt(sq));
  return row;
}

/** Sum the bags of each note (sections in note order). */
export function mergeByNote(bags: readonly TermBag[], noteOf: ArrayLike<number>): TermBag[] {
  const out: Map<string, number>[] = [];
  for (let i = 0; i < bags.length; i++) {
    const m = (out[noteOf[i]!] ??= new Map());
    for (const [t, c] of bags[i]!.counts) m.set(t, (m.get(t) ?? 0) + c);
  }
  return Array.from(out, (m) => bagOf(m ?? new Map()));
}

/** A deterministic sample of at most `max` items (every item when there are fewer). */
function sampleOf<T>(items: readonly T[], max: number): readonly T[] {
  if (items.length <= max) return items;
  const step = items.length / max;
  return Array.from({ length: max }, (_, i) => items[Math.floor(i * step)]!);
}
