import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { sha256Hex } from '../vault/index.js';
import { withEngine, type EngineOptions } from './engine.js';
import { fsyncDir, writeDurable } from './durable.js';
import { type FsOps } from './fs-ops.js';
import { finalize } from './history.js';
import { locationsOf, readIntent, type Intent, type Location } from './journal.js';
import { abs, tempName, txnLayout } from './layout.js';
import { readQuarantine, recoverOperation } from './recover.js';
import { checkParents, readState } from './vault-state.js';

/**
 * `tx resolve OP --keep-current|--restore-original`: a person decides what a
 * quarantined operation's paths should hold. keep-current accepts the vault as it
 * is; restore-original puts back the bytes found before OP, first copying
 * whatever is there now to `.vaultgate/txn/displaced/OP/` (never destroy an edit).
 */
export type ResolveChoice = 'keep-current' | 'restore-original';

export interface ResolveResult {
  operation_id: string;
  outcome: string;
  restored: string[];
  displaced: string[];
}

export async function resolveOperation(root: string, op: string, choice: ResolveChoice, opts: EngineOptions = {}): Promise<ResolveResult> {
  return withEngine(root, opts, async (ops, _lock, keepBackups) => {
    const l = txnLayout(root);
    const opDir = path.join(l.pending, op);
    const intent = ops.lstat(opDir)?.isDirectory() ? readIntent(opDir, ops) : null;
    if (!intent || intent.operation_id !== op) {
      throw new VaultgateError('OPERATION_UNKNOWN', `no pending operation ${op}`, {
        hint: '`vaultgate tx status` lists pending and quarantined operations.',
      });
    }
    if (!readQuarantine(opDir, ops)) {
      // not quarantined (e.g. failed earlier for a transient reason): ordinary recovery decides
      const r = recoverOperation(root, opDir, ops, { keepBackups });
      if (r.outcome !== 'quarantined') return { operation_id: op, outcome: r.outcome, restored: [], displaced: [] };
    }
    if (choice === 'keep-current') {
      finalize(root, opDir, intent, 'resolved_keep_current', ops, { keepBackups });
      return { operation_id: op, outcome: 'resolved_keep_current', restored: [], displaced: [] };
    }
    const restored: string[] = [];
    const displaced: string[] = [];
    locationsOf(intent).forEach((loc, n) => {
      const cur = readState(root, loc.disk, ops);
      if ((cur?.sha256 ?? null) === loc.old) return;
      if (cur) displaced.push(displace(root, l.displaced, op, n, loc, ops));
      restoreOriginal(root, opDir, intent, loc, n, ops);
      restored.push(loc.path);
    });
    finalize(root, opDir, intent, 'resolved_restore_original', ops, { keepBackups, displaced });
    return { operation_id: op, outcome: 'resolved_restore_original', restored, displaced };
  });
}

/** Copy the current bytes aside before replacing them; returns the copy's path relative to the vault. */
function displace(root: string, base: string, op: string, n: number, loc: Location, ops: FsOps): string {
  const dir = path.join(base, op);
  for (const d of [base, dir]) {
    try {
      ops.mkdir(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  const name = `${n}-${path.basename(loc.disk)}`;
  writeDurable(dir, name, ops.readFile(abs(root, loc.disk)), ops);
  return path.relative(root, path.join(dir, name)).split(path.sep).join('/');
}

function restoreOriginal(root: string, opDir: string, intent: Intent, loc: Location, n: number, ops: FsOps): void {
  checkParents(root, loc.disk, ops);
  const target = abs(root, loc.disk);
  if (loc.old === null) {
    if (ops.lstat(target)) ops.unlink(target);
  } else {
    const backup = path.join(opDir, loc.backup ?? '-');
    if (!ops.lstat(backup) || sha256Hex(ops.readFile(backup)) !== loc.old) {
      throw new VaultgateError('RECOVERY_FAILED', `the original of ${loc.path} is no longer in the journal`, {
        path: loc.path,
        hint: 'Use --keep-current, then restore the file from your own backup or git.',
      });
    }
    const slash = loc.disk.lastIndexOf('/');
    const tmp = abs(root, loc.disk.slice(0, slash + 1) + tempName(loc.disk.slice(slash + 1), intent.operation_id, 5000 + n));
    if (ops.lstat(tmp)) ops.unlink(tmp);
    ops.link(backup, tmp);
    checkParents(root, loc.disk, ops);
    ops.rename(tmp, target);
  }
  fsyncDir(path.dirname(target), ops);
}
