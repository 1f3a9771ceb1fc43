/**
 * Term bags of a whole vault, packed: each distinct term interned once (an
 * id), each bag a range of two parallel typed arrays (term id, count), in the
 * bag's own term order — the order its terms were first met, as in the Map it
 * came from, so sums over a bag run in the same order and give the same bits.
 * Eight bytes per (bag, term) instead of a Map entry and the section's text:
 * the first LSA run over 10k notes holds every bag in tens of MB, not hundreds.
 */
export class TermDictionary {
  readonly ids = new Map<string, number>();
  readonly names: string[] = [];

  idOf(term: string): number {
    let id = this.ids.get(term);
    if (id === undefined) {
      id = this.names.length;
      this.ids.set(term, id);
      this.names.push(term);
    }
    return id;
  }

  get size(): number {
    return this.names.length;
  }
}

/** Entries per chunk of a pool: 4 MB per array. A bag never straddles two chunks. */
const CHUNK = 1 << 20;

/**
 * Bags in fixed-size chunks, filled in turn: growing never copies, and no
 * outgrown array is left for the collector — what the first run holds is
 * what it uses, plus at most one chunk.
 */
export class BagPool {
  private readonly termChunks: Int32Array[] = [];
  private readonly countChunks: Int32Array[] = [];
  private used = CHUNK;
  private readonly chunkOf: number[] = [];
  private readonly offsetOf: number[] = [];
  private readonly sizeOf: number[] = [];
  /** Bag b's length: the sum of its counts (terms outside any vocabulary included). */
  readonly lengths: number[] = [];
  /** Entries over every bag. */
  entries = 0;

  constructor(readonly dict: TermDictionary) {}

  get size(): number {
    return this.lengths.length;
  }

  /** Bag b's term ids, in its term order (a view). */
  terms(b: number): Int32Array {
    return this.termChunks[this.chunkOf[b]!]!.subarray(this.offsetOf[b]!, this.offsetOf[b]! + this.sizeOf[b]!);
  }

  /** Bag b's counts, beside {@link terms} (a view). */
  counts(b: number): Int32Array {
    return this.countChunks[this.chunkOf[b]!]!.subarray(this.offsetOf[b]!, this.offsetOf[b]! + this.sizeOf[b]!);
  }

  /** Add a bag of terms (in its iteration order); returns its index. */
  addCounts(counts: ReadonlyMap<string, number>): number {
    const [terms, cs, at] = this.reserve(counts.size);
    let k = at;
    let length = 0;
    for (const [t, c] of counts) {
      terms[k] = this.dict.idOf(t);
      cs[k++] = c;
      length += c;
    }
    return this.close(counts.size, length);
  }

  /** Add a bag of term ids (in its iteration order); returns its index. */
  addIds(counts: ReadonlyMap<number, number>): number {
    const [terms, cs, at] = this.reserve(counts.size);
    let k = at;
    let length = 0;
    for (const [t, c] of counts) {
      terms[k] = t;
      cs[k++] = c;
      length += c;
    }
    return this.close(counts.size, length);
  }

  private reserve(size: number): [Int32Array, Int32Array, number] {
    const last = this.termChunks.at(-1);
    if (!last || this.used + size > last.length) {
      const len = Math.max(CHUNK, size);
      this.termChunks.push(new Int32Array(len));
      this.countChunks.push(new Int32Array(len));
      this.used = 0;
    }
    this.chunkOf.push(this.termChunks.length - 1);
    this.offsetOf.push(this.used);
    return [this.termChunks.at(-1)!, this.countChunks.at(-1)!, this.used];
  }

  private close(size: number, length: number): number {
    this.used += size;
    this.entries += size;
    this.sizeOf.push(size);
    this.lengths.push(length);
    return this.lengths.length - 1;
  }
}

/** The summed bag of bags `from`..`to` of `pool` (terms in first-met order), as term id → count. */
export function mergeBags(pool: BagPool, from: number, to: number): Map<number, number> {
  const out = new Map<number, number>();
  for (let b = from; b < to; b++) {
    const terms = pool.terms(b);
    const counts = pool.counts(b);
    for (let k = 0; k < terms.length; k++) out.set(terms[k]!, (out.get(terms[k]!) ?? 0) + counts[k]!);
  }
  return out;
}
