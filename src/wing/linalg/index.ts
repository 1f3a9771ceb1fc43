/**
 * linalg: the dense and sparse linear algebra the read path and `similar`
 * share, in-process and dependency-free (no LAPACK, nothing to download).
 *
 * - {@link Csr}, {@link csrFromRows}, {@link csrTimesDense},
 *   {@link csrTransposeTimesDense}: sparse matrices in compressed sparse row form;
 * - {@link truncatedSvd}: the leading singular values and right singular vectors
 *   by the randomized range finder (Halko, Martinsson & Tropp 2011), with
 *   {@link orthonormalizeColumns} (CholeskyQR2) and {@link symmetricEigen} (Jacobi);
 * - {@link gaussian}: a seeded generator, so every result is deterministic;
 * - {@link nearestRows}: each row's nearest rows, exactly.
 *
 * Used by index (the term-association model, term-model.ts) and similar (LSA).
 */
export { csrFromRows, csrTimesDense, csrTransposeTimesDense, gaussian, orthonormalizeColumns, symmetricEigen, truncatedSvd, type Csr, type TruncatedSvd } from './svd.js';
export { nearestRows } from './nearest.js';
