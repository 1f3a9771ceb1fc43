import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { sha256Hex } from '../vault/index.js';
import { fsyncDir, writeDurable } from './durable.js';
import { withEngine, type EngineOptions } from './engine.js';
import { type FsOps } from './fs-ops.js';
import { finalize } from './history.js';
import { locationsOf, readIntent, type Intent, type Location } from './journal.js';
import { abs, besideDisk, isOperationId, tempName, txnLayout } from './layout.js';
import { readQuarantine, recoverOperation } from './recover.js';
import { RESOLVE_TEMP_BASE } from './settings.js';
import { checkParents, readState } from './vault-state.js';

/**
 * `tx resolve OP --keep-current|--restore-original`: a person decides what a
 * quarantined operation's paths should hold. keep-current accepts the vault as it
 * is; restore-original puts back the bytes found before OP, first copying
 * whatever is there now to `.vaultgate/txn/displaced/OP/` (never destroy an edit).
 * An original still moved aside beside its note goes back (restore-original) or,
 * if it holds anything but the old bytes, to `displaced/` too (keep-current).
 */
export type ResolveChoice = 'keep-current' | 'restore-original';

export interface ResolveResult {
  operation_id: string;
  outcome: string;
  restored: string[];
  displaced: string[];
}

const unknown = (op: string) =>
  new VaultgateError('OPERATION_UNKNOWN', `no pending operation ${JSON.stringify(op)}`, {
    hint: '`vaultgate tx status` lists pending and quarantined operations.',
  });

export async function resolveOperation(root: string, op: string, choice: ResolveChoice, opts: EngineOptions = {}): Promise<ResolveResult> {
  if (!isOperationId(op)) throw unknown(op);
  return withEngine(root, opts, async ({ ops, keepBackups, recovered }) => {
    const l = txnLayout(root);
    const opDir = path.join(l.pending, op);
    const intent = ops.lstat(opDir)?.isDirectory() ? readIntent(opDir, ops) : null;
    if (!intent || intent.operation_id !== op) {
      // an interrupted operation that was not quarantined: the recovery every command
      // runs first has just decided it (rolled forward or back); say what it did
      const settled = recovered.find((r) => r.operation_id === op && r.outcome !== 'quarantined');
      if (settled) return { operation_id: op, outcome: settled.outcome, restored: [], displaced: [] };
      throw unknown(op);
    }
    if (!readQuarantine(opDir, ops)) {
      // not quarantined (e.g. failed earlier for a transient reason): ordinary recovery decides
      const r = recoverOperation({ root, opDir, ops }, { keepBackups });
      if (r.outcome !== 'quarantined') return { operation_id: op, outcome: r.outcome, restored: [], displaced: [] };
    }
    const locations = locationsOf(intent);
    const r: Resolving = { root, ops, opDir, intent, displacedBase: l.displaced };
    const displaced: string[] = [];
    if (choice === 'keep-current') {
      locations.forEach((loc, n) => {
        const kept = settleAside(r, loc, n);
        if (kept) displaced.push(kept);
      });
      finalize({ root, opDir, ops }, intent, { outcome: 'resolved_keep_current', keepBackups, ...(displaced.length ? { displaced } : {}) });
      return { operation_id: op, outcome: 'resolved_keep_current', restored: [], displaced };
    }
    const restored: string[] = [];
    locations.forEach((loc, n) => {
      const cur = readState(root, loc.disk, ops);
      const aside = asideOf(root, loc, ops);
      if ((cur?.sha256 ?? null) === loc.old && aside === null) return;
      if (cur) displaced.push(displace(r, n, loc.disk));
      restoreOriginal(r, loc, { n, aside });
      restored.push(loc.path);
    });
    finalize({ root, opDir, ops }, intent, { outcome: 'resolved_restore_original', keepBackups, displaced });
    return { operation_id: op, outcome: 'resolved_restore_original', restored, displaced };
  });
}

/** A quarantined operation being resolved: its files, and where displaced copies go (`displaced/<op>/`). */
interface Resolving {
  root: string;
  ops: FsOps;
  opDir: string;
  intent: Intent;
  displacedBase: string;
}

/** The original still moved aside beside a location's name, if any. */
function asideOf(root: string, loc: Location, ops: FsOps): string | null {
  if (loc.aside === undefined) return null;
  checkParents(root, loc.aside, ops);
  return ops.lstat(abs(root, loc.aside))?.isFile() ? abs(root, loc.aside) : null;
}

/** keep-current: an aside original holding the old bytes goes (the backup keeps them); holding anything else, it is kept in displaced/. */
function settleAside(r: Resolving, loc: Location, n: number): string | null {
  const { root, ops } = r;
  const aside = asideOf(root, loc, ops);
  if (!aside || loc.aside === undefined) return null;
  const keep = sha256Hex(ops.readFile(aside)) !== loc.old ? displace(r, n, loc.aside) : null;
  ops.unlink(aside);
  fsyncDir(path.dirname(aside), ops);
  return keep;
}

/** Copy the bytes at a disk path aside; returns the copy's path relative to the vault. */
function displace({ root, ops, displacedBase: base, intent }: Resolving, n: number, disk: string): string {
  const dir = path.join(base, intent.operation_id);
  for (const d of [base, dir]) {
    try {
      ops.mkdir(d);
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
    }
  }
  // never over an earlier displaced copy: the first free name
  let name = `${n}-${path.basename(disk)}`;
  for (let k = 2; ops.lstat(path.join(dir, name)); k++) name = `${n}-${k}-${path.basename(disk)}`;
  writeDurable(dir, name, ops.readFile(abs(root, disk)), ops);
  return path.relative(root, path.join(dir, name)).split(path.sep).join('/');
}

function restoreOriginal({ root, ops, opDir, intent }: Resolving, loc: Location, { n, aside }: { n: number; aside: string | null }): void {
  checkParents(root, loc.disk, ops);
  const target = abs(root, loc.disk);
  if (loc.old === null) {
    if (ops.lstat(target)) ops.unlink(target);
  } else {
    const backup = path.join(opDir, loc.backup ?? '-');
    const source = aside ?? backup;
    if (aside === null && (!ops.lstat(backup) || sha256Hex(ops.readFile(backup)) !== loc.old)) {
      throw new VaultgateError('RECOVERY_FAILED', `the original of ${loc.path} is no longer in the journal`, {
        path: loc.path,
        hint: 'Use --keep-current, then restore the file from your own backup or git.',
      });
    }
    const tmp = abs(root, besideDisk(loc.disk, (name) => tempName(name, intent.operation_id, RESOLVE_TEMP_BASE + n)));
    if (ops.lstat(tmp)) ops.unlink(tmp);
    ops.link(source, tmp);
    checkParents(root, loc.disk, ops);
    ops.rename(tmp, target);
    if (aside) ops.unlink(aside);
  }
  fsyncDir(path.dirname(target), ops);
}
