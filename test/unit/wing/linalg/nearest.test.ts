import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { nearestRows } from '../../../../src/wing/linalg/index.js';

test('nearestRows: each row gets its k best other rows above the floor, best first — as sorting every pair would', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 12 }),
      fc.integer({ min: 1, max: 4 }),
      fc.integer({ min: 1, max: 5 }),
      fc.double({ min: -1, max: 1, noNaN: true }),
      fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 12 * 4, maxLength: 12 * 4 }),
      (n, dims, k, floor, ints) => {
        const data = Float64Array.from(ints.slice(0, n * dims), (x) => x / 7);
        const { index, score } = nearestRows(data, n, dims, k, floor);
        const dot = (a: number, b: number) => {
          let d = 0;
          for (let x = 0; x < dims; x++) d += data[a * dims + x]! * data[b * dims + x]!;
          return d;
        };
        for (let i = 0; i < n; i++) {
          const want = Array.from({ length: n }, (_, j) => j)
            .filter((j) => j !== i && dot(i, j) > floor)
            .map((j) => dot(i, j))
            .sort((a, b) => b - a)
            .slice(0, k);
          const got: number[] = [];
          for (let s = i * k; s < i * k + k && index[s]! >= 0; s++) {
            assert.notEqual(index[s], i, 'never itself');
            assert.equal(score[s], dot(i, index[s]!), 'the score is that pair’s');
            got.push(score[s]!);
          }
          assert.deepEqual(got, want);
        }
      },
    ),
    { numRuns: 300 },
  );
});
