import path from 'node:path';
import { isVaultgateError } from '../errors.js';
import { sha256Hex } from '../vault/index.js';
import { foldKey } from './bundle-schema.js';
import { fsyncDir, readJsonFile, removeTree, writeDurable } from './durable.js';
import { rethrowIfCrash, type FsOps } from './fs-ops.js';
import { finalize, retire } from './history.js';
import { locationsOf, readIntent, type Intent, type Location, type Quarantine } from './journal.js';
import { abs, isOperationDirName, txnLayout } from './layout.js';
import { checkParents, readState } from './vault-state.js';

/**
 * Recovery of an interrupted operation (DESIGN §5.1): roll forward when every
 * write already reached the vault, else roll back from the backups. It touches
 * a file only while it holds the operation's old or new bytes; anything else is
 * someone else's edit, and the operation is quarantined (its paths alone blocked)
 * until `vaultgate tx resolve` says what to keep.
 */
export type RecoverKind = 'applied' | 'rolled_back' | 'quarantined' | 'discarded';

export interface RecoverOutcome {
  operation_id: string;
  outcome: RecoverKind;
  conflicts?: Quarantine['conflicts'];
}

const FOREIGN = Symbol('foreign');
type Seen = string | null | typeof FOREIGN;

function observe(root: string, disk: string, ops: FsOps): Seen {
  try {
    return readState(root, disk, ops)?.sha256 ?? null;
  } catch (e) {
    rethrowIfCrash(e);
    // a symlink or folder where our file was: not ours to touch
    if (isVaultgateError(e)) return FOREIGN;
    throw e;
  }
}

export function recoverOperation(root: string, opDir: string, ops: FsOps, opts: { keepBackups: number }): RecoverOutcome {
  const name = path.basename(opDir);
  const intent = readIntent(opDir, ops);
  if (!intent) {
    // died before the intent was durable: the vault was not touched yet
    retire(opDir, ops);
    return { operation_id: name, outcome: 'discarded' };
  }
  const locs = locationsOf(intent);
  const seen = locs.map((l) => observe(root, l.disk, ops));
  if (locs.every((l, n) => seen[n] === l.new)) {
    sweepTemps(root, intent, ops);
    finalize(root, opDir, intent, 'applied', ops, opts);
    return { operation_id: intent.operation_id, outcome: 'applied' };
  }
  sweepTemps(root, intent, ops);
  const conflicts: Quarantine['conflicts'] = [];
  for (let n = locs.length - 1; n >= 0; n--) {
    const l = locs[n]!;
    const s = seen[n]!;
    if (s === l.old) continue;
    if (s === l.new) {
      try {
        restoreOld(root, opDir, intent, l, ops);
        continue;
      } catch (e) {
        rethrowIfCrash(e);
        if (!isVaultgateError(e) && !['EEXIST', 'ENOENT'].includes((e as NodeJS.ErrnoException).code ?? '')) throw e;
      }
    }
    conflicts.push({ path: l.path, expected_one_of: [l.old, l.new], found: s === FOREIGN ? 'unreadable' : s });
  }
  sweepTemps(root, intent, ops);
  sweepDirs(root, intent, ops);
  if (conflicts.length > 0) {
    quarantine(opDir, intent, 'foreign_change', `${conflicts.map((c) => c.path).join(', ')} changed by someone else during recovery`, conflicts, ops);
    return { operation_id: intent.operation_id, outcome: 'quarantined', conflicts };
  }
  finalize(root, opDir, intent, 'rolled_back', ops, opts);
  return { operation_id: intent.operation_id, outcome: 'rolled_back' };
}

/** Put a location back to its old state, from the backup beside the intent. */
function restoreOld(root: string, opDir: string, intent: Intent, l: Location, ops: FsOps): void {
  checkParents(root, l.disk, ops);
  const target = abs(root, l.disk);
  if (l.old === null) {
    ops.unlink(target);
  } else {
    const backup = path.join(opDir, l.backup ?? '-');
    const st = ops.lstat(backup);
    if (!st?.isFile() || sha256Hex(ops.readFile(backup)) !== l.old) {
      throw Object.assign(new Error(`backup of ${l.path} is missing or altered`), { code: 'ENOENT' });
    }
    if (ops.lstat(target)) {
      // replace: publish the original inode again through the journaled temp name, atomically
      const w = intent.writes.find((x) => x.disk === l.disk && x.temp !== undefined)!;
      const tmp = abs(root, w.temp!);
      ops.link(backup, tmp);
      checkParents(root, l.disk, ops);
      ops.rename(tmp, target);
    } else {
      ops.link(backup, target); // EEXIST: someone created it meanwhile → conflict
    }
  }
  checkParents(root, l.disk, ops);
  fsyncDir(path.dirname(target), ops);
}

function sweepTemps(root: string, intent: Intent, ops: FsOps): void {
  const dirs = new Set<string>();
  for (const w of intent.writes) {
    if (w.temp === undefined) continue;
    try {
      checkParents(root, w.temp, ops);
      const p = abs(root, w.temp);
      const st = ops.lstat(p);
      if (st && !st.isDirectory()) {
        ops.unlink(p);
        dirs.add(path.dirname(p));
      }
    } catch (e) {
      rethrowIfCrash(e);
      if (!isVaultgateError(e)) throw e;
    }
  }
  for (const d of dirs) fsyncDir(d, ops);
}

/** Remove the folders this operation created, deepest first, if they are still ours and empty. */
function sweepDirs(root: string, intent: Intent, ops: FsOps): void {
  for (const d of [...intent.created_dirs].reverse()) {
    try {
      checkParents(root, d, ops);
      const p = abs(root, d);
      const st = ops.lstat(p);
      if (!st?.isDirectory() || st.isSymbolicLink()) continue;
      ops.rmdir(p);
      fsyncDir(path.dirname(p), ops);
    } catch (e) {
      rethrowIfCrash(e);
      const code = (e as NodeJS.ErrnoException).code;
      if (!isVaultgateError(e) && code !== 'ENOTEMPTY' && code !== 'EEXIST') throw e;
    }
  }
}

export function quarantine(
  opDir: string,
  intent: Intent,
  reason: Quarantine['reason'],
  message: string,
  conflicts: Quarantine['conflicts'],
  ops: FsOps,
): Quarantine {
  const q: Quarantine = {
    schema: 'vaultgate.quarantine.v1',
    operation_id: intent.operation_id,
    reason,
    message,
    conflicts,
    blocked_paths: intent.changed_paths,
    at: new Date().toISOString(),
  };
  writeDurable(opDir, 'quarantine.json', JSON.stringify(q), ops);
  return q;
}

export function readQuarantine(opDir: string, ops: FsOps): Quarantine | null {
  const q = readJsonFile<Quarantine>(path.join(opDir, 'quarantine.json'), ops);
  return q?.schema === 'vaultgate.quarantine.v1' ? q : null;
}

/** Paths blocked by unresolved operations: case-folded path → operation id. */
export type Blocked = Map<string, { operation_id: string; path: string }>;

export interface RecoverAllResult {
  recovered: RecoverOutcome[];
  blocked: Blocked;
}

/**
 * Recover every pending operation (caller holds the lock). Quarantined ones are
 * re-examined only when asked (`tx recover`); an operation whose recovery fails is
 * quarantined too, so it blocks its own paths and nothing else.
 */
export function recoverAll(root: string, ops: FsOps, opts: { keepBackups: number; retryQuarantined?: boolean }): RecoverAllResult {
  const { pending } = txnLayout(root);
  const recovered: RecoverOutcome[] = [];
  const blocked: Blocked = new Map();
  const block = (op: string, paths: string[]) => {
    for (const p of paths) blocked.set(foldKey(p), { operation_id: op, path: p });
  };
  let names: string[];
  try {
    names = ops.readdir(pending).sort();
  } catch (e) {
    rethrowIfCrash(e);
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { recovered, blocked };
    throw e;
  }
  for (const name of names) {
    const dir = path.join(pending, name);
    if (name.startsWith('.gone-')) {
      try {
        removeTree(dir, ops);
      } catch (e) {
        rethrowIfCrash(e);
      }
      continue;
    }
    if (!isOperationDirName(name)) continue; // .DS_Store, editor droppings: not ours
    const st = ops.lstat(dir);
    if (!st?.isDirectory()) continue;
    const q = readQuarantine(dir, ops);
    if (q && !opts.retryQuarantined) {
      block(q.operation_id, q.blocked_paths);
      recovered.push({ operation_id: q.operation_id, outcome: 'quarantined', conflicts: q.conflicts });
      continue;
    }
    try {
      const r = recoverOperation(root, dir, ops, opts);
      recovered.push(r);
      if (r.outcome === 'quarantined') block(r.operation_id, readIntent(dir, ops)?.changed_paths ?? []);
    } catch (e) {
      rethrowIfCrash(e);
      const intent = readIntent(dir, ops);
      const message = `recovery failed: ${(e as Error).message}`;
      if (intent) {
        try {
          quarantine(dir, intent, 'recovery_failed', message, [], ops);
        } catch (e2) {
          rethrowIfCrash(e2);
        }
        block(intent.operation_id, intent.changed_paths);
      }
      recovered.push({ operation_id: intent?.operation_id ?? name, outcome: 'quarantined', conflicts: [] });
    }
  }
  return { recovered, blocked };
}
