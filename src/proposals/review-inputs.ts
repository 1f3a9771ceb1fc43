import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { isVaultgateError, type VaultgateError } from '../errors.js';
import type { Db } from '../index/index.js';
import { readLinkFormat } from '../links/index.js';
import { vaultIdentity, type VaultConfig } from '../vault/index.js';
import { checkStateLayout, realFsOps, txnLayout } from '../txn/index.js';
import { BUILD, VERSION } from '../version.js';
import { targetHasher } from './link-targets.js';
import type { ReviewInput } from './review.js';
import type { LinkTarget, StoredChange } from './types.js';
import { currentSha256 } from './vault-files.js';

/**
 * Everything a review reads, as one key: when a later review finds the key
 * its proposal's last review was made under, nothing that review read has
 * changed, and its answer is the answer again (issue 20 §8: `review` and
 * `apply` of a 12 MB proposal each redid propose's link review and the
 * engine's plan, ~40% of their CPU). What a review reads:
 *
 * - the proposal (its changes never change once stored; its transaction id,
 *   flags and recorded link targets are in the key);
 * - the index, as refreshed for this review: every file row's path, kind,
 *   hash and stat (links resolve against the file list, backlinks come from
 *   notes' contents, and both are functions of those rows and the schema);
 * - the config and the link format (`.obsidian/app.json`);
 * - from disk, by content, never by timestamp: the bytes' hash of every file
 *   it touches and of every file its links were recorded to open (base and
 *   link_target checks), each touched file's type and mode, and the names in
 *   every folder above them up to the vault's root (a file added beside a
 *   created one can collide with it; a folder replaced by a link is refused);
 *   the vault's identity, root inode and the umask (the engine's approval
 *   covers them);
 * - the engine's own state as its plan reads it: each fixed entry of
 *   `.vaultgate/` absent or of its kind ({@link engineState});
 * - the vaultgate build (another build may review differently).
 *
 * The key is made from the very reads the review then uses ({@link ReviewReads}):
 * a key read separately could see bytes that changed and changed back (A, B,
 * A) while the review saw B. Content rather than stat: a stat can stay the same
 * across two writes within the file system's clock step.
 *
 * null: the review reads what no key here covers — a scenario (its validators
 * run anything), a claim's evidence, a capture's source outside the vault, a
 * folder moved whole (its listing), an operation pending in the engine (it may
 * block the paths it holds, and whether its lock is live changes with time).
 * Such a proposal is reviewed afresh every time. Whatever the key says,
 * `apply` stays safe: the engine plans again under the vault lock and lands
 * only the very bundle the review approved, on files whose bytes still have
 * the hashes it was based on; an apply that fails forgets the key, so the next
 * review is made afresh.
 */

export function reviewInputs(root: string, db: Db, config: VaultConfig, p: ReviewInput, reads: ReviewReads): ReviewInputs | null {
  if (p.scenario || p.claim || (p.folder_moves?.length ?? 0) > 0 || p.changes.some((c) => c.capture)) return null;
  const inputs = new ReviewInputs(reads);
  inputs.line('vaultgate review inputs 1', VERSION, BUILD);
  inputs.line('proposal', p.operation_id, p.operation_type ?? 'generic', p.allow_shrink, p.allow_relink, p.allow_broken_links);
  for (const c of p.changes) inputs.line('change', c.path, c.action, c.to, c.base_sha256, c.new_sha256);
  inputs.line('config', JSON.stringify(config));
  inputs.line('link format', JSON.stringify(readLinkFormat(root)));
  inputs.line('index', indexRows(db));
  const rootSt = fs.statSync(root, { bigint: true });
  inputs.line('root', String(rootSt.dev), String(rootSt.ino), vaultIdentity(root).vault_id, process.umask());
  const engine = engineState(root);
  if (engine === null) return null;
  inputs.line('engine state', engine);
  for (const c of p.changes) (inputs.touched(root, c.path), c.to === null ? null : inputs.touched(root, c.to));
  if (p.link_targets) inputs.targets(p.link_targets);
  return inputs;
}

/**
 * What a review reads from disk, read once: the key and the checks use the same
 * answers. `current`: a touched file's hash (null: no file) or the vault's
 * refusal to read it; `targetHash`: link-targets.ts's hash of a link target.
 */
export interface ReviewReads {
  current(rel: string): { sha256: string | null } | { refused: VaultgateError };
  targetHash(rel: string): string | null;
}

export function reviewReads(root: string, changes: readonly StoredChange[], opts: { resolved?: boolean } = {}): ReviewReads {
  const files = new Map<string, { sha256: string | null } | { refused: VaultgateError }>();
  // `resolved`: the changes were made from reads a moment ago (propose checked every base against the
  // file's bytes, every created or moved-to path absent): those reads are this review's
  if (opts.resolved) {
    for (const c of changes) {
      if (c.capture) continue;
      files.set(c.path, { sha256: c.base_sha256 });
      if (c.action === 'move') files.set(c.to!, { sha256: null });
    }
  }
  return {
    current(rel) {
      let got = files.get(rel);
      if (got === undefined) {
        try {
          got = { sha256: currentSha256(root, rel) };
        } catch (e) {
          if (!isVaultgateError(e)) throw e;
          got = { refused: e };
        }
        files.set(rel, got);
      }
      return got;
    },
    targetHash: targetHasher(root, changes),
  };
}

/** The key being taken: lines in the order added, then the disk's entries sorted; `key()` is the key. */
export class ReviewInputs {
  readonly #reads: ReviewReads;
  readonly #lines: string[] = [];
  readonly #entries = new Map<string, string>();
  #targets: readonly LinkTarget[] | null = null;

  constructor(reads: ReviewReads) {
    this.#reads = reads;
  }

  line(...parts: Array<string | number | boolean | null>): void {
    this.#lines.push(parts.map(String).join('\0'));
  }

  /** A touched path (type, mode and bytes' hash) and the folders above it (their names). */
  touched(root: string, rel: string): void {
    const cur = this.#reads.current(rel);
    this.#entries.set(`file\0${rel}`, `${typeAndMode(path.join(root, rel))} ${'refused' in cur ? `refused ${cur.refused.code}` : String(cur.sha256)}`);
    for (let at = parentOf(rel); at !== null && !this.#entries.has(`folder\0${at}`); at = parentOf(at)) this.#entries.set(`folder\0${at}`, folderState(path.join(root, at)));
  }

  /** The files the proposal's links were recorded to open, as the review reads them (a new proposal: once it recorded them). */
  targets(targets: readonly LinkTarget[]): void {
    this.#targets = targets;
    for (const t of targets) if (t.target !== null) this.#entries.set(`target\0${t.target}`, String(this.#reads.targetHash(t.target)));
  }

  key(): string {
    const hash = crypto.createHash('sha256');
    for (const l of this.#lines) hash.update(l + '\n');
    hash.update(`targets\0${JSON.stringify(this.#targets)}\n`);
    for (const k of [...this.#entries.keys()].sort()) hash.update(`${k}\0${this.#entries.get(k)!}\n`);
    return hash.digest('hex');
  }
}

/**
 * The engine's own state as its plan reads it (txn/inspect.ts): its own layout
 * check's answer (`checkStateLayout`: a link or a wrong kind at a fixed entry of
 * `.vaultgate/` is refused; the lock folder, which comes and goes with every
 * apply, counts only by its kind), and whether any operation is pending — one
 * interrupted, quarantined or being applied can block the paths it holds, and
 * its lock's liveness changes with time: null then, and the review is made afresh.
 */
function engineState(root: string): string | null {
  try {
    if (fs.readdirSync(txnLayout(root).pending).length > 0) return null;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') return null;
  }
  try {
    checkStateLayout(root, realFsOps);
    return 'ok';
  } catch (e) {
    if (!isVaultgateError(e)) throw e;
    return `${e.code} ${e.message}`;
  }
}

/** Every file row of the index, as one string (the rows come from SQLite as one value). */
function indexRows(db: Db): string {
  const rows = db
    .prepare(
      `SELECT group_concat(x, char(10)) FROM (
         SELECT path || char(0) || disk_path || char(0) || kind || char(0) || ifnull(sha256, '') || char(0) || size || char(0) || mtime_ms || char(0) || ctime_ms || char(0) || ino || char(0) || dev AS x
         FROM files ORDER BY path)`,
    )
    .pluck()
    .get() as string | null;
  return `${String(db.pragma('user_version', { simple: true }))}\n${rows ?? ''}`;
}

function parentOf(rel: string): string | null {
  const i = rel.lastIndexOf('/');
  return i < 0 ? null : rel.slice(0, i);
}

/** A path's file type and permission bits (the engine keeps a replaced file's mode), or why there is none. */
function typeAndMode(abs: string): string {
  try {
    return `mode ${fs.lstatSync(abs).mode.toString(8)}`;
  } catch (e) {
    return `absent ${(e as NodeJS.ErrnoException).code ?? 'error'}`;
  }
}

/** A folder's identity, type, mode and sorted names (what a created file can collide with), or why there is none. */
function folderState(abs: string): string {
  try {
    const st = fs.lstatSync(abs, { bigint: true });
    if (!st.isDirectory()) return `not a folder ${st.mode.toString(8)} ${st.ino}`;
    return `${st.dev} ${st.ino} ${st.mode.toString(8)} ${fs.readdirSync(abs).sort().join('\0')}`;
  } catch (e) {
    return `absent ${(e as NodeJS.ErrnoException).code ?? 'error'}`;
  }
}
