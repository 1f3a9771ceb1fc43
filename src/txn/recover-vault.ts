import { withEngine, type EngineOptions } from './engine.js';
import { recoverAll, type RecoverOutcome } from './recover.js';

/**
 * `tx recover`: the recovery every apply runs first, plus a retry of quarantined
 * operations (a person may have put a file back to its old or new bytes).
 */
export async function recoverVault(root: string, opts: EngineOptions = {}): Promise<{ recovered: RecoverOutcome[] }> {
  return withEngine(root, opts, async ({ ops, keepBackups, recovered: first }) => {
    const done = first.filter((r) => r.outcome !== 'quarantined');
    const again = recoverAll(root, ops, { keepBackups, retryQuarantined: true });
    const seen = new Set(done.map((r) => r.operation_id));
    return { recovered: [...done, ...again.recovered.filter((r) => !seen.has(r.operation_id))] };
  });
}
