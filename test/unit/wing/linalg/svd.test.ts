import assert from 'node:assert/strict';
import { test } from 'node:test';
import { csrFromRows, csrTimesDense, csrTransposeTimesDense, gaussian, orthonormalizeColumns, symmetricEigen, truncatedSvd } from '../../../../src/wing/linalg/index.js';

const close = (a: number, b: number, tol: number, what: string) => assert.ok(Math.abs(a - b) <= tol, `${what}: ${a} vs ${b}`);

/** A rows × cols matrix of exact rank `rank`, about half its entries zero, as dense rows and CSR. */
function lowRank(rows: number, cols: number, rank: number, seed: number) {
  const g = gaussian(seed);
  // Sparse factors (each row of U and V has a single non-zero): the product is sparse and of rank ≤ `rank`.
  const factor = (n: number) => Array.from({ length: n }, (_, i) => Array.from({ length: rank }, (_, t) => (t === i % rank ? g() : 0)));
  const u = factor(rows);
  const v = factor(cols);
  const dense = u.map((ur) => v.map((vc) => ur.reduce((s, x, t) => s + x * vc[t]!, 0)));
  const maps = dense.map((row) => new Map(row.map((x, j) => [j, x] as [number, number]).filter(([, x]) => x !== 0)));
  return { dense, csr: csrFromRows(maps, cols) };
}

test('linalg: sparse products agree with dense ones', () => {
  const { dense, csr } = lowRank(7, 5, 3, 3);
  const m = Float64Array.from({ length: 5 * 2 }, (_, i) => i - 3);
  const y = csrTimesDense(csr, m, 2);
  for (let r = 0; r < 7; r++) for (let j = 0; j < 2; j++) close(y[r * 2 + j]!, dense[r]!.reduce((s, x, c) => s + x * m[c * 2 + j]!, 0), 1e-9, 'A·M');
  const z = csrTransposeTimesDense(csr, y, 2);
  for (let c = 0; c < 5; c++) for (let j = 0; j < 2; j++) close(z[c * 2 + j]!, dense.reduce((s, row, r) => s + row[c]! * y[r * 2 + j]!, 0), 1e-9, 'Aᵀ·Y');
});

test('linalg: orthonormalised columns are orthonormal; Jacobi eigenpairs reconstruct the matrix', () => {
  const g = gaussian(7);
  const y = Float64Array.from({ length: 50 * 6 }, g);
  orthonormalizeColumns(y, 50, 6);
  for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) {
    let d = 0;
    for (let r = 0; r < 50; r++) d += y[r * 6 + i]! * y[r * 6 + j]!;
    close(d, i === j ? 1 : 0, 1e-12, `q${i}·q${j}`);
  }
  const n = 8;
  const s = new Float64Array(n * n);
  for (let i = 0; i < n; i++) for (let j = i; j < n; j++) s[i * n + j] = s[j * n + i] = g();
  const { values, vectors } = symmetricEigen(s, n);
  for (let i = 1; i < n; i++) assert.ok(values[i - 1]! >= values[i]!, 'decreasing');
  for (let i = 0; i < n; i++) for (let j = 0; j < n; j++) {
    let r = 0;
    for (let t = 0; t < n; t++) r += vectors[i * n + t]! * values[t]! * vectors[j * n + t]!;
    close(r, s[i * n + j]!, 1e-9, `S[${i},${j}]`);
  }
});

test('linalg: the randomized SVD finds the exact singular values and subspace of a low-rank matrix', () => {
  const { dense, csr } = lowRank(60, 40, 5, 11);
  const svd = truncatedSvd(csr, 5, { seed: 3 });
  // Exact σ² are the eigenvalues of AᵀA.
  const ata = new Float64Array(40 * 40);
  for (const row of dense) for (let i = 0; i < 40; i++) for (let j = 0; j < 40; j++) ata[i * 40 + j]! += row[i]! * row[j]!;
  const exact = symmetricEigen(ata, 40).values;
  for (let i = 0; i < 5; i++) close(svd.sigma[i]!, Math.sqrt(exact[i]!), 1e-6 * Math.sqrt(exact[0]!), `σ${i}`);
  // Rank 5 exactly: projecting every row on span(V) loses nothing (A = A V Vᵀ).
  const proj = csrTimesDense(csr, svd.v, svd.k);
  for (let r = 0; r < 60; r++) for (let c = 0; c < 40; c++) {
    let x = 0;
    for (let j = 0; j < svd.k; j++) x += proj[r * svd.k + j]! * svd.v[c * svd.k + j]!;
    close(x, dense[r]![c]!, 1e-6, `A[${r},${c}]`);
  }
  const again = truncatedSvd(csr, 5, { seed: 3 });
  assert.deepEqual([...again.v], [...svd.v], 'deterministic for a seed');
});
