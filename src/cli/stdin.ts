import { readBounded } from '../ops/read-bounded.js';

/** Standard input, read whole but at most `limit + 1` bytes (the caller reports its own limit). */
export function readStdinBounded(limit: number): Buffer {
  return readBounded(0, limit);
}
