import { nearestRows, truncatedSvd, type Csr } from '../linalg/index.js';

/**
 * Term associations learnt from the vault itself (issue 9 §1, "vocabulary
 * bridging without a download"): words that are used in the same contexts get
 * similar vectors, so a question's word can bring in the vault's own word for
 * the same thing ("extract" → "dump", "приоритетами" → "приоритетной").
 *
 * The classic count-based recipe (Levy, Goldberg & Dagan 2015, "Improving
 * distributional similarity with lessons learned from word embeddings"):
 *
 * 1. co-occurrence counts of content tokens within ±{@link TermAssocParams.window}
 *    tokens, never across a section boundary;
 * 2. positive pointwise mutual information, with the context distribution
 *    smoothed (counts^0.75), which keeps rare contexts from dominating;
 * 3. a truncated SVD (src/linalg, randomized, deterministic) of the PPMI matrix;
 *    a word's vector is its row of V·Σ^p (p = 0.5 is the paper's advice);
 * 4. each word's nearest words by cosine, above a floor.
 *
 * Only step 4's result is kept (a few neighbours per word: what a query looks
 * up, term-store.ts); the vectors and the matrix are dropped after training.
 * Everything here is pure and deterministic.
 */

export interface TermAssocParams {
  /** Content tokens on each side that count as a word's context. */
  window: number;
  /** Occurrences a token needs in the training sample to have (or be) a neighbour. */
  minCount: number;
  /** Largest vocabulary (most frequent tokens first). */
  maxTerms: number;
  /** Dimensions kept by the SVD. */
  dims: number;
  /** A word's vector is its row of V·Σ^eigenPower. */
  eigenPower: number;
  /** Context counts are raised to this power before they enter PMI. */
  smoothing: number;
  /** Neighbours kept per word. */
  neighbours: number;
  /** Cosine a neighbour needs. */
  minSimilarity: number;
  /** Tokens read for training at most (a deterministic sample of sections beyond that): bounds the cost on a large vault. */
  maxTokens: number;
  /** Bumped when the computation changes, so a stored model is retrained. */
  version: number;
}

export const DEFAULT_TERM_ASSOC_PARAMS: TermAssocParams = {
  window: 4,
  minCount: 5,
  maxTerms: 12_000,
  dims: 64,
  eigenPower: 0.5,
  smoothing: 0.75,
  neighbours: 8,
  minSimilarity: 0.35,
  maxTokens: 600_000,
  version: 1,
};

export interface Neighbour {
  term: string;
  similarity: number;
}

export interface TermAssociations {
  /** Vocabulary size the model was trained with. */
  terms: number;
  /** Tokens it was trained on. */
  tokens: number;
  /** Each vocabulary word's neighbours, best first (words without any are absent). */
  neighbours: Map<string, Neighbour[]>;
}

/**
 * Learn the associations from the token streams of sections (each a list of
 * content tokens in order, as the index's text pipeline stems them).
 */
export function trainTermAssociations(sections: readonly (readonly string[])[], params: TermAssocParams = DEFAULT_TERM_ASSOC_PARAMS): TermAssociations {
  const counts = new Map<string, number>();
  let tokens = 0;
  for (const s of sections) {
    tokens += s.length;
    for (const t of s) counts.set(t, (counts.get(t) ?? 0) + 1);
  }
  const vocab = [...counts.entries()]
    .filter(([, n]) => n >= params.minCount)
    .sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1))
    .slice(0, params.maxTerms)
    .map(([t]) => t);
  const empty: TermAssociations = { terms: vocab.length, tokens, neighbours: new Map() };
  if (vocab.length < 3) return empty;
  const id = new Map(vocab.map((t, i) => [t, i]));
  const streams = sections.map((s) => Int32Array.from(s.flatMap((t) => (id.has(t) ? [id.get(t)!] : []))));
  const ppmi = ppmiMatrix(streams, vocab.length, params);
  if (ppmi.values.length === 0) return empty;
  const vectors = wordVectors(ppmi, params);
  const near = nearestNeighbours(vectors.data, vocab.length, vectors.dims, params.neighbours, params.minSimilarity);
  const neighbours = new Map<string, Neighbour[]>();
  near.forEach((list, i) => {
    if (list.length > 0) neighbours.set(vocab[i]!, list.map((n) => ({ term: vocab[n.id]!, similarity: n.similarity })));
  });
  return { terms: vocab.length, tokens, neighbours };
}

/**
 * The PPMI matrix (words × contexts, both the vocabulary) of co-occurrence
 * within the window, as CSR. Pairs are gathered row by row in typed arrays
 * (count per row, fill, sort each row, collapse): no hash map of pairs.
 */
export function ppmiMatrix(streams: readonly Int32Array[], n: number, params: Pick<TermAssocParams, 'window' | 'smoothing'>): Csr {
  const w = params.window;
  const perRow = new Int32Array(n + 1);
  for (const s of streams) {
    for (let i = 0; i < s.length; i++) {
      const end = Math.min(s.length, i + w + 1);
      for (let j = i + 1; j < end; j++) {
        if (s[i] === s[j]) continue;
        perRow[s[i]!]!++;
        perRow[s[j]!]!++;
      }
    }
  }
  const start = new Int32Array(n + 1);
  for (let r = 0; r < n; r++) start[r + 1] = start[r]! + perRow[r]!;
  const cols = new Int32Array(start[n]!);
  const fill = start.slice(0, n);
  for (const s of streams) {
    for (let i = 0; i < s.length; i++) {
      const end = Math.min(s.length, i + w + 1);
      for (let j = i + 1; j < end; j++) {
        const a = s[i]!;
        const b = s[j]!;
        if (a === b) continue;
        cols[fill[a]!++] = b;
        cols[fill[b]!++] = a;
      }
    }
  }
  // Collapse each row's sorted context ids into (context, count).
  const rowPtr = new Int32Array(n + 1);
  const colIdx: number[] = [];
  const cnt: number[] = [];
  const rowSum = new Float64Array(n);
  const colSum = new Float64Array(n);
  for (let r = 0; r < n; r++) {
    const row = cols.subarray(start[r]!, start[r + 1]!).sort();
    for (let k = 0; k < row.length; ) {
      let e = k + 1;
      while (e < row.length && row[e] === row[k]) e++;
      colIdx.push(row[k]!);
      cnt.push(e - k);
      rowSum[r]! += e - k;
      colSum[row[k]!]! += e - k;
      k = e;
    }
    rowPtr[r + 1] = colIdx.length;
  }
  // PPMI with smoothed contexts: log( #(w,c) · Σ#c^α / (#w · #c^α) ), kept where positive.
  let smoothTotal = 0;
  const smooth = colSum.map((c) => {
    const x = Math.pow(c, params.smoothing);
    smoothTotal += x;
    return x;
  });
  const outPtr = new Int32Array(n + 1);
  const outCol: number[] = [];
  const outVal: number[] = [];
  for (let r = 0; r < n; r++) {
    for (let p = rowPtr[r]!; p < rowPtr[r + 1]!; p++) {
      const c = colIdx[p]!;
      const pmi = Math.log((cnt[p]! * smoothTotal) / (rowSum[r]! * smooth[c]!));
      if (pmi > 0) {
        outCol.push(c);
        outVal.push(pmi);
      }
    }
    outPtr[r + 1] = outCol.length;
  }
  return { rows: n, cols: n, rowPtr: outPtr, colIdx: Int32Array.from(outCol), values: Float64Array.from(outVal) };
}

/**
 * Unit word vectors from the PPMI matrix: a word is a column of the matrix
 * (its co-occurrence with every word as context, the matrix being symmetric
 * up to the smoothing), so its vector is its row of V·Σ^p.
 */
function wordVectors(ppmi: Csr, params: Pick<TermAssocParams, 'dims' | 'eigenPower'>): { data: Float64Array; dims: number } {
  const svd = truncatedSvd(ppmi, params.dims, { seed: 1, powerIterations: 2, oversample: 10 });
  const k = svd.k;
  const data = new Float64Array(ppmi.cols * k);
  const scale = Array.from(svd.sigma, (s) => Math.pow(s, params.eigenPower));
  for (let c = 0; c < ppmi.cols; c++) {
    let sq = 0;
    for (let j = 0; j < k; j++) {
      const x = svd.v[c * k + j]! * scale[j]!;
      data[c * k + j] = x;
      sq += x * x;
    }
    if (sq > 0) {
      const inv = 1 / Math.sqrt(sq);
      for (let j = 0; j < k; j++) data[c * k + j]! *= inv;
    }
  }
  return { data, dims: k };
}

/** Each row's `k` nearest rows by cosine (rows are unit vectors), above `floor`, best first. */
export function nearestNeighbours(data: Float64Array, n: number, dims: number, k: number, floor: number): { id: number; similarity: number }[][] {
  const { index, score } = nearestRows(data, n, dims, k, floor);
  return Array.from({ length: n }, (_, i) => {
    const list: { id: number; similarity: number }[] = [];
    for (let s = i * k; s < i * k + k && index[s]! >= 0; s++) list.push({ id: index[s]!, similarity: score[s]! });
    return list;
  });
}
