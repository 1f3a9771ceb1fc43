/**
 * A small seeded PRNG for the synthetic vault: the same seed must give the same
 * bytes on every machine and Node version, which `Math.random` cannot promise.
 * mulberry32 is enough: we need reproducibility and a plausible spread, not
 * statistical rigour.
 */
export type Rng = () => number;

/** mulberry32: 32-bit state, uniform in [0, 1). */
export function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Mix a seed and a stream index into one 32-bit seed, so note `i` can be
 * regenerated on its own (its headings are needed when another note links to
 * `[[note#heading]]`) without replaying every note before it.
 */
export function subSeed(seed: number, stream: number, index: number): number {
  let h = (seed ^ Math.imul(stream + 1, 0x9e3779b1) ^ Math.imul(index + 1, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d) >>> 0;
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b) >>> 0;
  return (h ^ (h >>> 16)) >>> 0;
}

/** Integer in [min, max], both inclusive. */
export function int(rng: Rng, min: number, max: number): number {
  return min + Math.floor(rng() * (max - min + 1));
}

export function pick<T>(rng: Rng, items: readonly T[]): T {
  return items[Math.floor(rng() * items.length)] as T;
}

/**
 * Index in [0, n) with a Zipf-like (≈ 1/rank) distribution: word frequencies and
 * backlink counts in real vaults both look like this (a few hubs, a long tail).
 * Inverse of the log-uniform CDF, so it costs O(1) and needs no table.
 */
export function zipfIndex(rng: Rng, n: number): number {
  return Math.min(n - 1, Math.floor(Math.exp(rng() * Math.log(n + 1))) - 1);
}

/** Standard normal via Box–Muller (one value per call; the spare is dropped for simplicity). */
export function normal(rng: Rng): number {
  const u = 1 - rng();
  const v = rng();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * v);
}
