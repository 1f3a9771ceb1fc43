/**
 * Sparse vectors over a model's vocabulary (term ids ascending), for the
 * lexical half of the default similarity: BM25-weighted terms (and link and tag
 * pseudo-terms) of a section or a note.
 */
export interface SparseVec {
  idx: Int32Array;
  val: Float32Array;
}

export const EMPTY_SPARSE: SparseVec = { idx: new Int32Array(0), val: new Float32Array(0) };

export function sparseFromMap(m: ReadonlyMap<number, number>): SparseVec {
  const entries = [...m.entries()].sort((a, b) => a[0] - b[0]);
  return { idx: Int32Array.from(entries.map((e) => e[0])), val: Float32Array.from(entries.map((e) => e[1])) };
}

export function sparseDot(a: SparseVec, b: SparseVec): number {
  let i = 0;
  let j = 0;
  let s = 0;
  while (i < a.idx.length && j < b.idx.length) {
    const x = a.idx[i]!;
    const y = b.idx[j]!;
    if (x === y) s += a.val[i++]! * b.val[j++]!;
    else if (x < y) i++;
    else j++;
  }
  return s;
}

/** Σ weight_i · v_i, L2-normalised (empty when every input is). */
export function sparseWeightedSum(parts: readonly { v: SparseVec; w: number }[]): SparseVec {
  const acc = new Map<number, number>();
  for (const { v, w } of parts) for (let k = 0; k < v.idx.length; k++) acc.set(v.idx[k]!, (acc.get(v.idx[k]!) ?? 0) + w * v.val[k]!);
  let sq = 0;
  for (const x of acc.values()) sq += x * x;
  if (sq === 0) return EMPTY_SPARSE;
  const inv = 1 / Math.sqrt(sq);
  for (const [k, x] of acc) acc.set(k, x * inv);
  return sparseFromMap(acc);
}

/** Bytes for storage: n (u32), ids (i32 × n), values (f32 × n), little-endian (as the platforms Node runs on are). */
export function encodeSparse(v: SparseVec): Buffer {
  const buf = Buffer.alloc(4 + v.idx.length * 8);
  buf.writeUInt32LE(v.idx.length, 0);
  Buffer.from(v.idx.buffer, v.idx.byteOffset, v.idx.byteLength).copy(buf, 4);
  Buffer.from(v.val.buffer, v.val.byteOffset, v.val.byteLength).copy(buf, 4 + v.idx.byteLength);
  return buf;
}

export function decodeSparse(buf: Uint8Array): SparseVec {
  const n = Buffer.from(buf.buffer, buf.byteOffset, buf.byteLength).readUInt32LE(0);
  const copy = new Uint8Array(n * 8);
  copy.set(buf.subarray(4, 4 + n * 8));
  return { idx: new Int32Array(copy.buffer, 0, n), val: new Float32Array(copy.buffer, n * 4, n) };
}

/** Dense helpers. */
export function normalize(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  if (s === 0) return v;
  const inv = 1 / Math.sqrt(s);
  const out = new Float32Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * inv;
  return out;
}

export function dot(a: Float32Array, b: Float32Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]! * b[i]!;
  return s;
}

export function encodeDense(v: Float32Array): Buffer {
  return Buffer.from(v.buffer.slice(v.byteOffset, v.byteOffset + v.byteLength));
}

export function decodeDense(buf: Uint8Array): Float32Array {
  // Copy: SQLite's buffer may not be 4-byte aligned.
  const copy = new Uint8Array(buf.byteLength);
  copy.set(buf);
  return new Float32Array(copy.buffer);
}

/** Sections' vectors, each normalised (null → zeros: the section has no vector), in one blob. */
export function encodeSectionVectors(vectors: readonly (Float32Array | null)[], dims: number): Buffer {
  const out = new Float32Array(vectors.length * dims);
  vectors.forEach((v, i) => {
    if (v) out.set(normalize(v), i * dims);
  });
  return Buffer.from(out.buffer);
}
