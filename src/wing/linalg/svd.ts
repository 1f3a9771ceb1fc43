/**
 * The linear algebra LSA needs, in-process and dependency-free: a sparse
 * matrix in CSR form, and a truncated SVD by the randomized range finder
 * (Halko, Martinsson & Tropp 2011, algorithms 4.3 + 5.1): sample the range of
 * A with a Gaussian test matrix, sharpen it with a power iteration
 * (re-orthonormalised in section space), then take the exact SVD of the small
 * projected matrix. For the ~100 leading singular vectors of a
 * sections × terms matrix that is all LSA needs, in a few passes over the
 * non-zeros — no LAPACK, nothing to download.
 *
 * Dense matrices are row-major `Float64Array`s with their shape beside them.
 * Deterministic: the test matrix comes from a seeded generator.
 */

/** A sparse matrix in compressed sparse row form. */
export interface Csr {
  rows: number;
  cols: number;
  /** rowPtr[r] .. rowPtr[r+1] index the non-zeros of row r. */
  rowPtr: Int32Array;
  colIdx: Int32Array;
  values: Float64Array;
}

/** Build a CSR matrix from rows of (column → value) maps. */
export function csrFromRows(rows: ReadonlyArray<ReadonlyMap<number, number>>, cols: number): Csr {
  let nnz = 0;
  for (const r of rows) nnz += r.size;
  const rowPtr = new Int32Array(rows.length + 1);
  const colIdx = new Int32Array(nnz);
  const values = new Float64Array(nnz);
  let k = 0;
  rows.forEach((r, i) => {
    for (const [c, v] of [...r.entries()].sort((a, b) => a[0] - b[0])) {
      colIdx[k] = c;
      values[k++] = v;
    }
    rowPtr[i + 1] = k;
  });
  return { rows: rows.length, cols, rowPtr, colIdx, values };
}

/** Y = A · M, M dense (A.cols × l, row-major) → Y (A.rows × l), into `out` when given (overwritten). */
export function csrTimesDense(a: Csr, m: Float64Array, l: number, out?: Float64Array): Float64Array {
  const y = out ? out.fill(0) : new Float64Array(a.rows * l);
  for (let r = 0; r < a.rows; r++) {
    const yo = r * l;
    for (let p = a.rowPtr[r]!; p < a.rowPtr[r + 1]!; p++) {
      const v = a.values[p]!;
      const mo = a.colIdx[p]! * l;
      for (let j = 0; j < l; j++) y[yo + j]! += v * m[mo + j]!;
    }
  }
  return y;
}

/** Z = Aᵀ · Y, Y dense (A.rows × l) → Z (A.cols × l), into `out` when given (overwritten). */
export function csrTransposeTimesDense(a: Csr, y: Float64Array, l: number, out?: Float64Array): Float64Array {
  const z = out ? out.fill(0) : new Float64Array(a.cols * l);
  for (let r = 0; r < a.rows; r++) {
    const yo = r * l;
    for (let p = a.rowPtr[r]!; p < a.rowPtr[r + 1]!; p++) {
      const v = a.values[p]!;
      const zo = a.colIdx[p]! * l;
      for (let j = 0; j < l; j++) z[zo + j]! += v * y[yo + j]!;
    }
  }
  return z;
}

/**
 * Orthonormalise the columns of a tall row-major matrix (rows × l) in place
 * by Cholesky QR, done twice (CholeskyQR2, Fukaya et al. 2014): the Gram matrix
 * YᵀY (one pass over the rows), its Cholesky factor R, then Y ← Y R⁻¹ row by
 * row — about half the work of modified Gram–Schmidt on row-major data, and
 * orthogonal to working precision after the second round. Columns that are
 * (numerically) dependent on earlier ones are set to zero.
 */
export function orthonormalizeColumns(y: Float64Array, rows: number, l: number): void {
  for (let round = 0; round < 2; round++) {
    const g = new Float64Array(l * l);
    for (let r = 0; r < rows; r++) {
      const o = r * l;
      for (let i = 0; i < l; i++) {
        const yi = y[o + i]!;
        if (yi === 0) continue;
        const gi = i * l;
        for (let j = i; j < l; j++) g[gi + j]! += yi * y[o + j]!;
      }
    }
    // Cholesky: G = Rᵀ R, R upper triangular; a pivot that vanishes marks a dependent column.
    let scale = 0;
    for (let i = 0; i < l; i++) scale = Math.max(scale, g[i * l + i]!);
    const tiny = Math.max(scale, 1e-300) * 1e-13;
    const rm = new Float64Array(l * l);
    const dead = new Uint8Array(l);
    for (let i = 0; i < l; i++) {
      let d = g[i * l + i]!;
      for (let k = 0; k < i; k++) d -= rm[k * l + i]! * rm[k * l + i]!;
      if (d <= tiny) {
        dead[i] = 1;
        continue;
      }
      const rii = Math.sqrt(d);
      rm[i * l + i] = rii;
      for (let j = i + 1; j < l; j++) {
        let x = g[i * l + j]!;
        for (let k = 0; k < i; k++) x -= rm[k * l + i]! * rm[k * l + j]!;
        rm[i * l + j] = x / rii;
      }
    }
    // Y ← Y R⁻¹. R⁻¹ (upper triangular) once, then each row times it, the inner loop running along
    // rows of R⁻¹ (contiguous memory). Dependent columns come out as zeros.
    const inv = new Float64Array(l * l);
    for (let j = 0; j < l; j++) {
      if (dead[j]) continue;
      inv[j * l + j] = 1 / rm[j * l + j]!;
      for (let i = j - 1; i >= 0; i--) {
        if (dead[i]) continue;
        let x = 0;
        for (let k = i + 1; k <= j; k++) if (!dead[k]) x += rm[i * l + k]! * inv[k * l + j]!;
        inv[i * l + j] = -x / rm[i * l + i]!;
      }
    }
    const acc = new Float64Array(l);
    for (let r = 0; r < rows; r++) {
      const o = r * l;
      acc.fill(0);
      for (let k = 0; k < l; k++) {
        const yk = y[o + k]!;
        if (yk === 0 || dead[k]) continue;
        const ik = k * l;
        for (let j = k; j < l; j++) acc[j]! += yk * inv[ik + j]!;
      }
      for (let j = 0; j < l; j++) y[o + j] = acc[j]!;
    }
  }
}

/**
 * Eigen-decomposition of a small symmetric matrix (n × n, row-major) by the
 * cyclic Jacobi method: eigenvalues in decreasing order, eigenvectors as the
 * columns of `vectors` (row-major n × n).
 */
export function symmetricEigen(s: Float64Array, n: number): { values: Float64Array; vectors: Float64Array } {
  const a = Float64Array.from(s);
  const v = new Float64Array(n * n);
  for (let i = 0; i < n; i++) v[i * n + i] = 1;
  for (let sweep = 0; sweep < 100; sweep++) {
    let off = 0;
    for (let p = 0; p < n; p++) for (let q = p + 1; q < n; q++) off += a[p * n + q]! ** 2;
    if (off < 1e-22) break;
    for (let p = 0; p < n; p++) {
      for (let q = p + 1; q < n; q++) {
        const apq = a[p * n + q]!;
        if (Math.abs(apq) < 1e-300) continue;
        const theta = (a[q * n + q]! - a[p * n + p]!) / (2 * apq);
        const t = Math.sign(theta || 1) / (Math.abs(theta) + Math.sqrt(theta * theta + 1));
        const cs = 1 / Math.sqrt(t * t + 1);
        const sn = t * cs;
        for (let k = 0; k < n; k++) {
          const akp = a[k * n + p]!;
          const akq = a[k * n + q]!;
          a[k * n + p] = cs * akp - sn * akq;
          a[k * n + q] = sn * akp + cs * akq;
        }
        for (let k = 0; k < n; k++) {
          const apk = a[p * n + k]!;
          const aqk = a[q * n + k]!;
          a[p * n + k] = cs * apk - sn * aqk;
          a[q * n + k] = sn * apk + cs * aqk;
        }
        for (let k = 0; k < n; k++) {
          const vkp = v[k * n + p]!;
          const vkq = v[k * n + q]!;
          v[k * n + p] = cs * vkp - sn * vkq;
          v[k * n + q] = sn * vkp + cs * vkq;
        }
      }
    }
  }
  const order = Array.from({ length: n }, (_, i) => i).sort((x, y) => a[y * n + y]! - a[x * n + x]!);
  const values = new Float64Array(n);
  const vectors = new Float64Array(n * n);
  order.forEach((src, dst) => {
    values[dst] = a[src * n + src]!;
    for (let k = 0; k < n; k++) vectors[k * n + dst] = v[k * n + src]!;
  });
  return { values, vectors };
}

/** A seeded generator of standard normal numbers (mulberry32 + Box–Muller). */
export function gaussian(seed: number): () => number {
  let s = seed >>> 0;
  const uniform = () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  let spare: number | null = null;
  return () => {
    if (spare !== null) {
      const x = spare;
      spare = null;
      return x;
    }
    let u = 0;
    while (u === 0) u = uniform();
    const w = uniform();
    const r = Math.sqrt(-2 * Math.log(u));
    spare = r * Math.sin(2 * Math.PI * w);
    return r * Math.cos(2 * Math.PI * w);
  };
}

export interface TruncatedSvd {
  k: number;
  /** Singular values, decreasing. */
  sigma: Float64Array;
  /** Right singular vectors: A.cols × k, row-major (row c = term c's coordinates). */
  v: Float64Array;
}

/**
 * The k leading singular values and right singular vectors of A (k ≤ min(rows,
 * cols)), by the randomized range finder with `oversample` extra columns and
 * `powerIterations` subspace iterations. Left vectors are not returned: a
 * row x maps to x · V (= its row of U·Σ for rows of A), which is how LSA
 * projects sections, old and new alike.
 */
export function truncatedSvd(a: Csr, k: number, opts: { oversample?: number; powerIterations?: number; seed?: number } = {}): TruncatedSvd {
  const kk = Math.max(1, Math.min(k, a.rows, a.cols));
  const l = Math.min(kk + (opts.oversample ?? 10), a.rows, a.cols);
  const rnd = gaussian(opts.seed ?? 1);
  // Three work arrays for the whole computation, none left behind for the collector (the
  // first LSA run's peak memory is here): `wide` (cols × l) holds Ω, then each Aᵀ·Y, then V;
  // `y` and `spare` (rows × l) take turns as the range basis and the next product.
  const wide = new Float64Array(a.cols * l);
  for (let i = 0; i < wide.length; i++) wide[i] = rnd();
  let y: Float64Array = csrTimesDense(a, wide, l);
  let spare: Float64Array = new Float64Array(a.rows * l);
  orthonormalizeColumns(y, a.rows, l);
  for (let it = 0; it < (opts.powerIterations ?? 1); it++) {
    // The term-space iterate is not re-orthonormalised: with a power iteration or two in
    // double precision, only directions far below the kept ones lose accuracy (Halko et al. §4.5).
    csrTimesDense(a, csrTransposeTimesDense(a, y, l, wide), l, spare);
    [y, spare] = [spare, y];
    orthonormalizeColumns(y, a.rows, l);
  }
  // B = Qᵀ A (l × cols). Its small Gram matrix B Bᵀ = Qᵀ (A (Aᵀ Q)) is formed through the
  // rows (A's rows are fewer than its columns here: notes versus terms), never as a dense
  // cols × l matrix: two sparse products and one rows × l² product.
  const ay = csrTimesDense(a, csrTransposeTimesDense(a, y, l, wide), l, spare);
  const g = new Float64Array(l * l);
  for (let r = 0; r < a.rows; r++) {
    const o = r * l;
    for (let i = 0; i < l; i++) {
      const qi = y[o + i]!;
      if (qi === 0) continue;
      for (let j = 0; j < l; j++) g[i * l + j]! += qi * ay[o + j]!;
    }
  }
  for (let i = 0; i < l; i++) for (let j = 0; j < i; j++) g[i * l + j] = g[j * l + i] = (g[i * l + j]! + g[j * l + i]!) / 2;
  // Its eigenvectors are B's left singular vectors (Ub), its eigenvalues σ².
  const { values, vectors } = symmetricEigen(g, l);
  const sigma = new Float64Array(kk);
  for (let i = 0; i < kk; i++) sigma[i] = Math.sqrt(Math.max(values[i]!, 0));
  // U = Q · Ub (rows × k), then V = Aᵀ · U · Σ⁻¹ (cols × k): again only sparse work over the columns.
  const u = spare.subarray(0, a.rows * kk).fill(0); // A·AᵀY is spent
  for (let r = 0; r < a.rows; r++) {
    const o = r * l;
    for (let i = 0; i < l; i++) {
      const qi = y[o + i]!;
      if (qi === 0) continue;
      for (let j = 0; j < kk; j++) u[r * kk + j]! += qi * vectors[i * l + j]!;
    }
  }
  const v = csrTransposeTimesDense(a, u, kk, wide.subarray(0, a.cols * kk));
  for (let c = 0; c < a.cols; c++) for (let j = 0; j < kk; j++) v[c * kk + j] = sigma[j]! < 1e-12 ? 0 : v[c * kk + j]! / sigma[j]!;
  return { k: kk, sigma, v };
}
