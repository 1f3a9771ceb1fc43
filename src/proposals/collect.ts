import { collectGarbage } from '../collect-garbage.js';
import type { StoredChange } from './types.js';

/**
 * A full collection after a phase that made garbage as large as a big proposal's
 * texts (their UTF-8 encodings, deflated copies, parse trees): V8 lets it pile up
 * far below its limit, so a 12 MB proposal peaked at several times its live
 * heap (issue 20 §8; the index build does the same, src/collect-garbage.ts).
 */
export const COLLECT_ABOVE_BYTES = 8 * 1024 * 1024;
export function collectAfterBig(changes: readonly StoredChange[]): void {
  let n = 0;
  for (const c of changes) n += (c.old_text?.length ?? 0) + (c.new_text?.length ?? 0);
  if (n > COLLECT_ABOVE_BYTES) collectGarbage();
}
