import zlib from 'node:zlib';
import { VaultgateError } from '../errors.js';
import { sha256Hex } from '../vault/index.js';
import { MAX_FILE_BYTES } from '../txn/index.js';
import { changeDiff } from './diff.js';
import { lazyProperty } from './lazy.js';
import { KeptParses } from './parse-cache.js';
import { textKeyOfHash } from './text-key.js';
import { openStore, type StoreDb, type StoreSpec } from '../store/index.js';
import type { Statement } from 'better-sqlite3';
import type { NoteModel } from '../markdown/index.js';
import type { AuditEvent, FolderMove, LinkTarget, ProposalClaim, ProposalOrigin, ProposalRecord, ProposalState, Provenance, StoredChange, StoredReview } from './types.js';

type Env = Record<string, string | undefined>;

/**
 * `proposals.sqlite` under the data root: proposals, their exact changes and
 * reviews, and the audit log. The user's history, not a cache (src/store): no
 * row is ever deleted, triggers refuse it, and the audit log refuses updates too.
 */
const SCHEMA_V1 = `
CREATE TABLE meta (
  key   TEXT PRIMARY KEY,
  value TEXT NOT NULL
) STRICT;
-- Part of every operation id, so ids stay unique across stores (a store moved aside and started anew).
INSERT INTO meta(key, value) VALUES ('nonce', lower(hex(randomblob(4))));

CREATE TABLE proposals (
  seq             INTEGER PRIMARY KEY,        -- the number in the id
  id              TEXT NOT NULL UNIQUE,       -- 'p-' || seq
  state           TEXT NOT NULL CHECK (state IN ('pending', 'blocked', 'applied', 'declined', 'recovery')),
  title           TEXT NOT NULL,
  summary         TEXT,
  agent           TEXT,
  session         TEXT,
  scenario        TEXT,
  allow_shrink    INTEGER NOT NULL,
  origin          TEXT NOT NULL,              -- propose | rollback
  rollback_of     TEXT,
  operation_id    TEXT NOT NULL UNIQUE,
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  review          TEXT,                       -- JSON StoredReview of the last review
  review_hash     TEXT,                       -- of the last review (also in review; here for lists)
  blocking        TEXT NOT NULL DEFAULT '[]', -- JSON: names of the checks that block, last review
  warnings        INTEGER NOT NULL DEFAULT 0, -- warnings of the last review
  applied_at      TEXT,
  changed_paths   TEXT,                       -- JSON, once applied
  declined_reason TEXT
) STRICT;
CREATE INDEX proposals_by_state ON proposals(state, seq);
CREATE INDEX proposals_by_agent ON proposals(agent, seq);
CREATE INDEX proposals_by_rollback ON proposals(rollback_of);

-- The texts of changes are stored once each, by the SHA-256 of their bytes: the
-- base many proposals share, a rollback's texts (the original's, swapped) cost nothing.
CREATE TABLE changes (
  proposal_seq INTEGER NOT NULL REFERENCES proposals(seq),
  ord          INTEGER NOT NULL,
  path         TEXT NOT NULL,
  action       TEXT NOT NULL CHECK (action IN ('write', 'delete', 'move')),
  to_path      TEXT,
  base_sha256  TEXT,                       -- its text in texts, when it was UTF-8
  new_sha256   TEXT,                       -- a write's new text in texts
  PRIMARY KEY (proposal_seq, ord)
) STRICT;

CREATE TABLE texts (
  sha256 TEXT PRIMARY KEY,                 -- of the UTF-8 bytes
  bytes  INTEGER NOT NULL,                 -- length of the bytes
  data   BLOB NOT NULL                     -- the bytes, raw-deflated (v10: or raw, see codec)
) STRICT;

CREATE TABLE audit (
  seq          INTEGER PRIMARY KEY AUTOINCREMENT,
  at           TEXT NOT NULL,
  event        TEXT NOT NULL,
  actor        TEXT NOT NULL,
  proposal     TEXT,
  operation_id TEXT,
  review_hash  TEXT,
  details      TEXT NOT NULL                 -- JSON object
) STRICT;
CREATE INDEX audit_by_proposal ON audit(proposal, seq);

CREATE TRIGGER proposals_never_deleted BEFORE DELETE ON proposals BEGIN SELECT RAISE(ABORT, 'proposals are never deleted'); END;
CREATE TRIGGER changes_never_deleted BEFORE DELETE ON changes BEGIN SELECT RAISE(ABORT, 'proposal changes are never deleted'); END;
CREATE TRIGGER changes_never_updated BEFORE UPDATE ON changes BEGIN SELECT RAISE(ABORT, 'proposal changes are never changed'); END;
CREATE TRIGGER texts_never_deleted BEFORE DELETE ON texts BEGIN SELECT RAISE(ABORT, 'proposal texts are never deleted'); END;
CREATE TRIGGER texts_never_updated BEFORE UPDATE ON texts BEGIN SELECT RAISE(ABORT, 'proposal texts are never changed'); END;
CREATE TRIGGER audit_never_deleted BEFORE DELETE ON audit BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER audit_never_updated BEFORE UPDATE ON audit BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
`;

/**
 * v2 (issue #12): the link-stability flags. A move's change row may name a new
 * text (`new_sha256` other than its base) when the move rewrites links inside
 * the moved note; v1 rows never do, so they read unchanged.
 */
const SCHEMA_V2 = `
ALTER TABLE proposals ADD COLUMN allow_relink INTEGER NOT NULL DEFAULT 0;
ALTER TABLE proposals ADD COLUMN allow_broken_links INTEGER NOT NULL DEFAULT 0;
`;

/**
 * v3 (issue #20 class 3): the state `undone` (a proposal whose transaction was
 * undone), with when and by which engine operation. SQLite cannot change a
 * CHECK constraint in place, so `proposals` is rebuilt; `changes` references it,
 * and dropping a parent that still has children fails the foreign key even when
 * deferred, so `changes` is rebuilt with it (children first). The copies are
 * column for column; indexes and the never-delete/never-update triggers are made
 * again. It runs in the migration's one transaction: all or nothing.
 */
const SCHEMA_V3 = `
CREATE TABLE proposals_v3 (
  seq             INTEGER PRIMARY KEY,
  id              TEXT NOT NULL UNIQUE,
  state           TEXT NOT NULL CHECK (state IN ('pending', 'blocked', 'applied', 'declined', 'recovery', 'undone')),
  title           TEXT NOT NULL,
  summary         TEXT,
  agent           TEXT,
  session         TEXT,
  scenario        TEXT,
  allow_shrink    INTEGER NOT NULL,
  origin          TEXT NOT NULL,
  rollback_of     TEXT,
  operation_id    TEXT NOT NULL UNIQUE,       -- the current one: reopening an undone proposal gives it a new one
  created_at      TEXT NOT NULL,
  updated_at      TEXT NOT NULL,
  review          TEXT,
  review_hash     TEXT,
  blocking        TEXT NOT NULL DEFAULT '[]',
  warnings        INTEGER NOT NULL DEFAULT 0,
  applied_at      TEXT,
  changed_paths   TEXT,
  declined_reason TEXT,
  allow_relink    INTEGER NOT NULL DEFAULT 0,
  allow_broken_links INTEGER NOT NULL DEFAULT 0,
  undone_at       TEXT,                       -- while undone: when the undo was seen
  undone_by       TEXT                        -- while undone: the engine operation that undid it
) STRICT;
INSERT INTO proposals_v3 (seq, id, state, title, summary, agent, session, scenario, allow_shrink, origin, rollback_of, operation_id, created_at, updated_at,
                          review, review_hash, blocking, warnings, applied_at, changed_paths, declined_reason, allow_relink, allow_broken_links)
  SELECT seq, id, state, title, summary, agent, session, scenario, allow_shrink, origin, rollback_of, operation_id, created_at, updated_at,
         review, review_hash, blocking, warnings, applied_at, changed_paths, declined_reason, allow_relink, allow_broken_links FROM proposals;
CREATE TABLE changes_v3 (
  proposal_seq INTEGER NOT NULL REFERENCES proposals_v3(seq),
  ord          INTEGER NOT NULL,
  path         TEXT NOT NULL,
  action       TEXT NOT NULL CHECK (action IN ('write', 'delete', 'move')),
  to_path      TEXT,
  base_sha256  TEXT,
  new_sha256   TEXT,
  PRIMARY KEY (proposal_seq, ord)
) STRICT;
INSERT INTO changes_v3 (proposal_seq, ord, path, action, to_path, base_sha256, new_sha256)
  SELECT proposal_seq, ord, path, action, to_path, base_sha256, new_sha256 FROM changes;
DROP TABLE changes;
DROP TABLE proposals;
ALTER TABLE proposals_v3 RENAME TO proposals;
ALTER TABLE changes_v3 RENAME TO changes;
CREATE INDEX proposals_by_state ON proposals(state, seq);
CREATE INDEX proposals_by_agent ON proposals(agent, seq);
CREATE INDEX proposals_by_rollback ON proposals(rollback_of);
CREATE TRIGGER proposals_never_deleted BEFORE DELETE ON proposals BEGIN SELECT RAISE(ABORT, 'proposals are never deleted'); END;
CREATE TRIGGER changes_never_deleted BEFORE DELETE ON changes BEGIN SELECT RAISE(ABORT, 'proposal changes are never deleted'); END;
CREATE TRIGGER changes_never_updated BEFORE UPDATE ON changes BEGIN SELECT RAISE(ABORT, 'proposal changes are never changed'); END;
`;

/**
 * v4 (issue 22 §1): the targets of the links a proposal adds, recorded once when
 * it is proposed (JSON LinkTarget[]); NULL in older rows (nothing recorded, nothing checked).
 */
const SCHEMA_V4 = `
ALTER TABLE proposals ADD COLUMN link_targets TEXT;
`;

/** v5 (issue 20): the folders a proposal moves whole, as JSON `[{"from","to"}]` (older rows: none). */
const SCHEMA_V5 = `
ALTER TABLE proposals ADD COLUMN folder_moves TEXT NOT NULL DEFAULT '[]';
`;

/**
 * v6 (issue 22 §2): the claim a proposal made by `plan --propose` rests on and
 * the fragments it cites, as verified when proposed (JSON ProposalClaim);
 * NULL for every other proposal and for older rows.
 */
const SCHEMA_V6 = `
ALTER TABLE proposals ADD COLUMN claim TEXT;
`;

/**
 * v7 (issue 20 §8): parses of long proposal texts kept between propose, review
 * and apply (parse-cache.ts): a cache, bounded, keyed by the text's `textKey`.
 */
const SCHEMA_V7 = `
CREATE TABLE parses (
  key   TEXT PRIMARY KEY,
  build TEXT NOT NULL,
  bytes INTEGER NOT NULL,
  model BLOB NOT NULL
) STRICT;
`;

/**
 * v8 (issue 24): where an atomize proposal's text came from, as JSON
 * `{"kind":"atomize","source","source_sha256","allow_novel"}`; the source's text
 * is kept in `texts` under its sha256 (NULL: a proposal with no such source).
 */
const SCHEMA_V8 = `
ALTER TABLE proposals ADD COLUMN provenance TEXT;
`;

/**
 * v9 (issue 22 §3): a proposal's operation type (`propose --type T`; older rows
 * were all `generic`), and a change row that is a capture names the source its
 * bytes came from. A capture's bytes are kept in `texts` like any text (that
 * table holds bytes by their SHA-256); they are read back as bytes, never decoded.
 */
const SCHEMA_V9 = `
ALTER TABLE proposals ADD COLUMN operation_type TEXT NOT NULL DEFAULT 'generic';
ALTER TABLE changes ADD COLUMN capture_source TEXT;
-- \`ingest --list\` asks, per file of the drop folder, which proposals capture its bytes
CREATE INDEX changes_by_capture ON changes(new_sha256) WHERE capture_source IS NOT NULL;
`;

/**
 * v10 (issue 20 §8): how a kept text's bytes are stored. Older rows are all
 * raw-deflated; a text of {@link RAW_ABOVE_BYTES} or more is now kept as it is:
 * deflating a 12 MB proposal's old and new texts cost more CPU than the rest of
 * storing it, and inflating them again every review and apply as much again.
 */
const SCHEMA_V10 = `
ALTER TABLE texts ADD COLUMN codec TEXT NOT NULL DEFAULT 'deflate-raw' CHECK (codec IN ('deflate-raw', 'raw'));
`;

/**
 * v11 (issue 20 §8): the key of what the last review read (review-inputs.ts),
 * NULL when it cannot be keyed; a review finding the same key answers the
 * stored review again.
 */
const SCHEMA_V11 = `
ALTER TABLE proposals ADD COLUMN review_inputs TEXT;
`;

export const PROPOSAL_STORE: StoreSpec = {
  name: 'proposals',
  applicationId: 0x56475052, // 'VGPR'
  migrations: [SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4, SCHEMA_V5, SCHEMA_V6, SCHEMA_V7, SCHEMA_V8, SCHEMA_V9, SCHEMA_V10, SCHEMA_V11],
};

/**
 * Kept bytes at least this long are stored raw, shorter ones deflated (level 1).
 * A note of a few KB deflates in microseconds to a third of its size; the long
 * texts of a bulk rewrite are where deflate's time shows.
 */
export const RAW_ABOVE_BYTES = 64 * 1024;

/** Decodes only exact UTF-8 (a BOM kept as U+FEFF, as `Buffer#toString` keeps it). */
const exactUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The row a kept text's bytes are stored as. */
function keptForm(bytes: Buffer): { codec: 'raw' | 'deflate-raw'; data: Buffer } {
  if (bytes.byteLength >= RAW_ABOVE_BYTES) return { codec: 'raw', data: bytes };
  // a window no larger than the text (9 to 15 bits): the same bytes out, and zlib sets up a third less for
  // each of a big proposal's 2,000 short texts; inflate's default window reads any of them
  const windowBits = Math.min(15, Math.max(9, Math.ceil(Math.log2(Math.max(1, bytes.byteLength)))));
  return { codec: 'deflate-raw', data: zlib.deflateRawSync(bytes, { level: 1, windowBits }) };
}

interface ProposalRow {
  seq: number;
  id: string;
  state: ProposalState;
  title: string;
  summary: string | null;
  agent: string | null;
  session: string | null;
  scenario: string | null;
  allow_shrink: number;
  allow_relink: number;
  allow_broken_links: number;
  folder_moves: string;
  origin: ProposalOrigin;
  rollback_of: string | null;
  operation_id: string;
  created_at: string;
  updated_at: string;
  review: string | null;
  review_hash: string | null;
  blocking: string;
  warnings: number;
  applied_at: string | null;
  changed_paths: string | null;
  declined_reason: string | null;
  link_targets: string | null;
  claim: string | null;
  undone_at: string | null;
  undone_by: string | null;
  provenance: string | null;
  operation_type: string;
  review_inputs: string | null;
}

interface ChangeRow {
  path: string;
  action: StoredChange['action'];
  to_path: string | null;
  base_sha256: string | null;
  new_sha256: string | null;
  capture_source: string | null;
}

/** What a new proposal is made of; the store gives it its id, state, operation id and times. */
export type NewProposal = Pick<
  ProposalRecord,
  'title' | 'summary' | 'agent' | 'session' | 'scenario' | 'allow_shrink' | 'allow_relink' | 'allow_broken_links' | 'origin' | 'rollback_of' | 'changes'
> &
  Partial<Pick<ProposalRecord, 'folder_moves' | 'claim' | 'provenance' | 'operation_type'>>;

export interface ListFilter {
  /** Only proposals in one of these states (absent or empty: every state). */
  states?: readonly ProposalState[];
  agent?: string;
  /**
   * Only proposals whose id, title, agent or a file path (source or destination)
   * contains this text, compared case-insensitively (Unicode lower case).
   */
  match?: string;
  limit: number;
  /** Skip this many of the matches first (newest first), to page through a long queue. */
  offset?: number;
}

export interface LogFilter {
  limit: number;
  /** Skip this many events first (newest first). */
  offset?: number;
  proposal?: string;
}

export interface ProposalSummary {
  id: string;
  state: ProposalState;
  title: string;
  agent: string | null;
  session: string | null;
  scenario: string | null;
  origin: ProposalOrigin;
  rollback_of: string | null;
  created_at: string;
  updated_at: string;
  files: Array<{ path: string; action: StoredChange['action']; to?: string }>;
  /** Names of the checks that block (empty when pending). */
  blocking: string[];
  /** Number of warnings of the last review. */
  warnings: number;
  review_hash: string | null;
}

export const now = () => new Date().toISOString();

/** The proposal store of one vault. Every method is one SQLite transaction (busy-waits up to STORE_BUSY_TIMEOUT_MS). */
/** A compare-and-set of a proposal's state ({@link ProposalStore.transition}): from one of `from` to `to`, with its events and the columns it sets. */
export interface StateMove {
  from: readonly ProposalState[];
  to: ProposalState;
  event?: Omit<AuditEvent, 'seq' | 'at'> | ReadonlyArray<Omit<AuditEvent, 'seq' | 'at'>>;
  set?: { applied_at?: string | null; changed_paths?: string[] | null; declined_reason?: string | null; undone?: { at: string; by: string } | null; operation_id?: string };
}

export class ProposalStore {
  /** Texts already read or written, by hash: a big proposal is read several times per command (apply: four). */
  readonly #texts = new Map<string, string>();
  /** Hashes of the texts above whose UTF-8 bytes are exactly the hashed bytes (kept from the text, or decoded without a replacement). */
  readonly #exact = new Set<string>();
  /** The statements run once per text, prepared once per store (a proposal of 1,000 notes runs each 2,000 times). */
  #textStatements: { has: Statement; put: Statement; read: Statement } | null = null;
  private get textStatements() {
    return (this.#textStatements ??= {
      has: this.db.prepare('SELECT 1 FROM texts WHERE sha256 = ?'),
      put: this.db.prepare('INSERT INTO texts (sha256, bytes, data, codec) VALUES (?, ?, ?, ?)'),
      read: this.db.prepare('SELECT bytes, data, codec FROM texts WHERE sha256 = ?'),
    });
  }
  private constructor(readonly db: StoreDb, readonly file: string) {}

  /** A parse memo for review and the link rewriter that reads the parses kept by earlier commands; `keep()` it after use. */
  parses(): KeptParses {
    return new KeptParses(this.db);
  }

  /** Keep the long texts' parses a command made without a store open yet (propose parses before it stores). */
  keepParses(parsed: ReadonlyMap<string, NoteModel>): void {
    if (parsed instanceof KeptParses) return parsed.keep();
    const kept = this.parses();
    for (const [key, model] of parsed) kept.set(key, model);
    kept.keep();
  }

  /** Open for writing (created when absent). */
  static open(root: string, env: Env): ProposalStore {
    const s = openStore(root, env, PROPOSAL_STORE)!;
    return new ProposalStore(s.db, s.file);
  }

  /** Open for reading; null when the vault has no proposal store yet (nothing is created). */
  static openExisting(root: string, env: Env): ProposalStore | null {
    const s = openStore(root, env, PROPOSAL_STORE, { readonly: true });
    return s ? new ProposalStore(s.db, s.file) : null;
  }

  close(): void {
    this.db.close();
  }

  #matchFold = false;
  /** The case fold of `list`'s `match`: JavaScript's Unicode lower case, as a SQL function of this connection. */
  private registerMatchFold(): void {
    if (this.#matchFold) return;
    this.db.function('vg_match_fold', { deterministic: true }, (s: unknown) => (typeof s === 'string' ? s.toLowerCase() : s));
    this.#matchFold = true;
  }

  private nonce(): string {
    return this.db.prepare(`SELECT value FROM meta WHERE key = 'nonce'`).pluck().get() as string;
  }

  /**
   * Store a new proposal with the next id and log `proposed`, in one write
   * transaction (BEGIN IMMEDIATE): concurrent proposers are serialised by
   * SQLite, so every one gets its own id and nothing is lost.
   */
  insert(p: NewProposal, actor: string, details: Record<string, unknown> = {}): ProposalRecord {
    const at = now();
    const tx = this.db.transaction(() => {
      const seq = (this.db.prepare('SELECT COALESCE(MAX(seq), 0) + 1 FROM proposals').pluck().get() as number);
      const id = `p-${seq}`;
      const operationId = `proposal-${id}-${this.nonce()}`;
      this.db
        .prepare(
          `INSERT INTO proposals (seq, id, state, title, summary, agent, session, scenario, allow_shrink, allow_relink, allow_broken_links, folder_moves, origin, rollback_of, operation_id, created_at, updated_at, claim, operation_type)
           VALUES (?, ?, 'pending', ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
        )
        .run(seq, id, p.title, p.summary, p.agent, p.session, p.scenario, p.allow_shrink ? 1 : 0, p.allow_relink ? 1 : 0, p.allow_broken_links ? 1 : 0, JSON.stringify(p.folder_moves ?? []), p.origin, p.rollback_of, operationId, at, at, p.claim ? JSON.stringify(p.claim) : null, p.operation_type ?? 'generic');
      const ins = this.db.prepare('INSERT INTO changes (proposal_seq, ord, path, action, to_path, base_sha256, new_sha256, capture_source) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
      if (p.provenance) {
        const { source_text, ...rest } = p.provenance;
        if (source_text !== null) this.putText(rest.source_sha256, source_text);
        this.db.prepare('UPDATE proposals SET provenance = ? WHERE seq = ?').run(JSON.stringify(rest), seq);
      }
      p.changes.forEach((c, ord) => {
        if (c.old_text !== null) this.putText(c.base_sha256!, c.old_text);
        if (c.new_text !== null) this.putText(c.new_sha256!, c.new_text);
        if (c.capture) this.putBytes(c.new_sha256!, c.capture.bytes);
        ins.run(seq, ord, c.path, c.action, c.to, c.base_sha256, c.new_sha256, c.capture?.source ?? null);
      });
      this.appendEvent({
        event: 'proposed',
        actor,
        proposal: id,
        operation_id: operationId,
        review_hash: null,
        details: { title: p.title, origin: p.origin, ...(p.rollback_of ? { rollback_of: p.rollback_of } : {}), files: fileHashes(p.changes), ...details },
      });
      return id;
    });
    return this.get(tx.immediate())!;
  }

  /** Keep a text by the hash of its bytes (once: a text already kept is not written again). */
  private putText(sha256: string, text: string): void {
    const bytes = Buffer.from(text, 'utf8');
    if (sha256Hex(bytes) !== sha256) throw new Error(`internal: text does not match its hash ${sha256}`);
    this.keep(sha256, bytes);
    this.#texts.set(sha256, text);
    this.#exact.add(sha256);
  }

  /**
   * `[text, textKey(text)]` for every text this store has kept or read whose
   * hash is exactly that of its UTF-8 bytes: the review's parse memo starts
   * with them instead of hashing each text again (issue 20 §8).
   */
  knownTextKeys(): Array<[string, string]> {
    return [...this.#exact].map((sha) => {
      const text = this.#texts.get(sha)!;
      return [text, textKeyOfHash(text, sha)];
    });
  }

  /** One row of `texts` (once: bytes already kept are not written again). */
  private keep(sha256: string, bytes: Buffer): void {
    if (this.textStatements.has.get(sha256) !== undefined) return;
    const { codec, data } = keptForm(bytes);
    this.textStatements.put.run(sha256, bytes.byteLength, data, codec);
  }

  /** Keep a capture's exact bytes by their hash (any bytes: a capture may be a PDF). */
  private putBytes(sha256: string, bytes: Buffer): void {
    if (sha256Hex(bytes) !== sha256) throw new Error(`internal: captured bytes do not match their hash ${sha256}`);
    this.keep(sha256, bytes);
  }

  /** A kept text, or null (not kept: the file was not UTF-8, or there is none). */
  private text(sha256: string | null): string | null {
    if (sha256 === null) return null;
    // a text never changes under its hash: read, inflate and check it once per store, not at every get()
    const seen = this.#texts.get(sha256);
    if (seen !== undefined) return seen;
    const bytes = this.keptBytes(sha256);
    if (bytes === null) return null;
    let text: string;
    try {
      text = exactUtf8.decode(bytes);
      this.#exact.add(sha256);
    } catch {
      text = bytes.toString('utf8'); // not UTF-8 (bytes a capture kept under the same hash): read as before, never keyed by that hash
    }
    this.#texts.set(sha256, text);
    return text;
  }

  /** Kept bytes by their hash, read back with a bound and checked against the hash; null when none are kept. */
  private keptBytes(sha256: string): Buffer | null {
    const row = this.textStatements.read.get(sha256) as { bytes: number; data: Buffer; codec: 'raw' | 'deflate-raw' } | undefined;
    if (!row) return null;
    // read back with a bound, like every input: a kept text is at most one file's new bytes
    // (MAX_FILE_BYTES, a BOM more), and inflating never produces more than the row says it holds
    const corrupt = (why: string) =>
      new VaultgateError('STATE_CORRUPT', `${this.file}: the kept text ${sha256} ${why}`, {
        details: { file: this.file, sha256 },
        hint: 'The proposal store is damaged; restore it from a backup. vaultgate will not overwrite it.',
      });
    if (!Number.isInteger(row.bytes) || row.bytes < 0 || row.bytes > MAX_FILE_BYTES + 3) throw corrupt(`claims ${row.bytes} bytes, over the ${MAX_FILE_BYTES + 3}-byte bound of a kept text`);
    let bytes: Buffer;
    if (row.codec === 'raw') bytes = row.data;
    else {
      try {
        bytes = zlib.inflateRawSync(row.data, { maxOutputLength: Math.max(1, row.bytes) });
      } catch {
        throw corrupt(`does not inflate to the ${row.bytes} bytes it claims`);
      }
    }
    if (bytes.byteLength !== row.bytes || sha256Hex(bytes) !== sha256) {
      throw new VaultgateError('STATE_CORRUPT', `${this.file}: the kept text ${sha256} does not match its hash`, {
        details: { file: this.file, sha256 },
        hint: 'The proposal store is damaged; restore it from a backup. vaultgate will not overwrite it.',
      });
    }
    return bytes;
  }

  get(id: string): ProposalRecord | null {
    const row = this.db.prepare('SELECT * FROM proposals WHERE id = ?').get(id) as ProposalRow | undefined;
    if (!row) return null;
    const changes = (this.db.prepare('SELECT path, action, to_path, base_sha256, new_sha256, capture_source FROM changes WHERE proposal_seq = ? ORDER BY ord').all(row.seq) as ChangeRow[]).map(
      (c): StoredChange => c.capture_source !== null ? this.captureChange(c) : ({
        path: c.path,
        action: c.action,
        to: c.to_path,
        base_sha256: c.base_sha256,
        old_text: this.text(c.base_sha256),
        // a move names a text of its own only when it rewrites links inside the moved note
        new_text: c.action === 'write' || (c.action === 'move' && c.new_sha256 !== c.base_sha256) ? this.text(c.new_sha256) : null,
        new_sha256: c.new_sha256,
      }),
    );
    return {
      id: row.id,
      state: row.state,
      title: row.title,
      summary: row.summary,
      agent: row.agent,
      session: row.session,
      scenario: row.scenario,
      allow_shrink: row.allow_shrink === 1,
      allow_relink: row.allow_relink === 1,
      allow_broken_links: row.allow_broken_links === 1,
      origin: row.origin,
      rollback_of: row.rollback_of,
      operation_id: row.operation_id,
      created_at: row.created_at,
      updated_at: row.updated_at,
      changes,
      folder_moves: JSON.parse(row.folder_moves) as FolderMove[],
      review: row.review === null ? null : withDiffs(JSON.parse(row.review) as StoredReview, changes),
      review_inputs: row.review_inputs,
      applied_at: row.applied_at,
      changed_paths: row.changed_paths === null ? null : (JSON.parse(row.changed_paths) as string[]),
      declined_reason: row.declined_reason,
      link_targets: row.link_targets === null ? null : (JSON.parse(row.link_targets) as LinkTarget[]),
      claim: row.claim === null ? null : (JSON.parse(row.claim) as ProposalClaim),
      undone_at: row.undone_at,
      undone_by: row.undone_by,
      provenance: this.provenance(row.provenance),
      operation_type: row.operation_type,
    };
  }

  /** A stored provenance with its source text (kept by hash), or null. */
  private provenance(json: string | null): Provenance | null {
    if (json === null) return null;
    const p = JSON.parse(json) as Omit<Provenance, 'source_text'>;
    return { ...p, source_text: this.text(p.source_sha256) };
  }

  /** A capture row: its bytes as kept, never decoded as text. */
  private captureChange(c: ChangeRow): StoredChange {
    const bytes = this.keptBytes(c.new_sha256!);
    if (bytes === null) {
      throw new VaultgateError('STATE_CORRUPT', `${this.file}: the captured bytes ${c.new_sha256} of ${c.path} are missing`, {
        details: { file: this.file, sha256: c.new_sha256 },
        hint: 'The proposal store is damaged; restore it from a backup. vaultgate will not overwrite it.',
      });
    }
    return { path: c.path, action: 'write', to: null, base_sha256: null, old_text: null, new_text: null, new_sha256: c.new_sha256, capture: { source: c.capture_source!, bytes } };
  }

  /**
   * Every proposal that captures one of these byte strings (by SHA-256), oldest
   * first: what `ingest --list` reports for a source in the drop folder.
   */
  capturesOf(sha256s: readonly string[]): Array<{ sha256: string; id: string; state: ProposalState; path: string }> {
    if (sha256s.length === 0) return [];
    const out: Array<{ sha256: string; id: string; state: ProposalState; path: string }> = [];
    const q = this.db.prepare(
      'SELECT c.new_sha256 AS sha256, p.id AS id, p.state AS state, c.path AS path FROM changes c JOIN proposals p ON p.seq = c.proposal_seq WHERE c.capture_source IS NOT NULL AND c.new_sha256 = ? ORDER BY p.seq',
    );
    for (const sha of new Set(sha256s)) out.push(...(q.all(sha) as typeof out));
    return out;
  }

  /**
   * Record the targets of the links a proposal adds, once: a precondition is
   * fixed when the proposal is made and never rewritten (false when already set).
   */
  setLinkTargets(id: string, targets: readonly LinkTarget[]): boolean {
    return this.db.prepare('UPDATE proposals SET link_targets = ? WHERE id = ? AND link_targets IS NULL').run(JSON.stringify(targets), id).changes === 1;
  }

  /** The proposal or a typed error naming the id. */
  require(id: string): ProposalRecord {
    const p = this.get(id);
    if (!p) throw unknownProposal(id);
    return p;
  }

  /** The newest proposal rolling `id` back that was not declined, if any. */
  rollbackOf(id: string): { id: string; state: ProposalState } | null {
    return (
      (this.db.prepare(`SELECT id, state FROM proposals WHERE rollback_of = ? AND state != 'declined' ORDER BY seq DESC LIMIT 1`).get(id) as
        | { id: string; state: ProposalState }
        | undefined) ?? null
    );
  }

  /**
   * Save a review and move the state, but only from one of `from` (another
   * process may have moved it meanwhile: then nothing changes and false returns).
   * `inputs`: the key of what the review read (review-inputs.ts); absent, none.
   */
  saveReview(id: string, review: StoredReview, move: { from: readonly ProposalState[]; to: ProposalState; event?: Omit<AuditEvent, 'seq' | 'at'>; inputs?: string | null }): boolean {
    const { from, to: state, event, inputs = null } = move;
    return this.db
      .transaction(() => {
        const cur = this.db.prepare('SELECT state FROM proposals WHERE id = ?').pluck().get(id) as ProposalState | undefined;
        if (cur === undefined || !from.includes(cur)) return false;
        const blocking = [...new Set(review.checks.filter((c) => !c.ok && c.severity === 'block').map((c) => c.name))];
        const warnings = review.checks.filter((c) => !c.ok && c.severity === 'warn').length;
        this.db
          .prepare('UPDATE proposals SET review = ?, review_hash = ?, blocking = ?, warnings = ?, state = ?, updated_at = ?, review_inputs = ? WHERE id = ?')
          .run(JSON.stringify(withoutDiffs(review)), review.review_hash, JSON.stringify(blocking), warnings, state, now(), inputs, id);
        if (event) this.appendEvent(event);
        return true;
      })
      .immediate();
  }

  /** The next review of this proposal is made afresh (an apply failed: whatever it found, its review is not reused). */
  forgetReviewInputs(id: string): void {
    this.db.prepare('UPDATE proposals SET review_inputs = NULL WHERE id = ?').run(id);
  }

  /** Move the state from one of `from` to `to`, with optional events (in order), atomically; false when the state was not one of `from`. */
  transition(id: string, move: StateMove): boolean {
    const { from, to, event, set = {} } = move;
    return this.db
      .transaction(() => {
        const cur = this.db.prepare('SELECT state FROM proposals WHERE id = ?').pluck().get(id) as ProposalState | undefined;
        if (cur === undefined || !from.includes(cur)) return false;
        this.db
          .prepare(
            `UPDATE proposals SET state = ?, updated_at = ?,
               applied_at = CASE WHEN ? THEN ? ELSE applied_at END, changed_paths = CASE WHEN ? THEN ? ELSE changed_paths END,
               declined_reason = CASE WHEN ? THEN ? ELSE declined_reason END,
               undone_at = CASE WHEN ? THEN ? ELSE undone_at END, undone_by = CASE WHEN ? THEN ? ELSE undone_by END,
               operation_id = COALESCE(?, operation_id)
             WHERE id = ?`,
          )
          .run(
            to,
            now(),
            'applied_at' in set ? 1 : 0,
            set.applied_at ?? null,
            'changed_paths' in set ? 1 : 0,
            set.changed_paths ? JSON.stringify(set.changed_paths) : null,
            'declined_reason' in set ? 1 : 0,
            set.declined_reason ?? null,
            'undone' in set ? 1 : 0,
            set.undone?.at ?? null,
            'undone' in set ? 1 : 0,
            set.undone?.by ?? null,
            set.operation_id ?? null,
            id,
          );
        for (const e of event === undefined ? [] : Array.isArray(event) ? event : [event]) this.appendEvent(e as Omit<AuditEvent, 'seq' | 'at'>);
        return true;
      })
      .immediate();
  }

  /** Append one audit event (inside or outside a transaction). */
  appendEvent(e: Omit<AuditEvent, 'seq' | 'at'>): void {
    this.db
      .prepare('INSERT INTO audit (at, event, actor, proposal, operation_id, review_hash, details) VALUES (?, ?, ?, ?, ?, ?, ?)')
      .run(now(), e.event, e.actor, e.proposal, e.operation_id, e.review_hash, JSON.stringify(e.details));
  }

  list(filter: ListFilter): { total: number; proposals: ProposalSummary[] } {
    const where: string[] = [];
    const args: unknown[] = [];
    if (filter.states && filter.states.length > 0) (where.push(`state IN (${filter.states.map(() => '?').join(', ')})`), args.push(...filter.states));
    if (filter.agent) (where.push('agent = ?'), args.push(filter.agent));
    if (filter.match) {
      // vg_match_fold: JavaScript's toLowerCase, registered per connection (SQLite's lower() folds ASCII only)
      this.registerMatchFold();
      const needle = filter.match.toLowerCase();
      where.push(
        `(instr(vg_match_fold(id), ?) > 0 OR instr(vg_match_fold(title), ?) > 0 OR instr(vg_match_fold(coalesce(agent, '')), ?) > 0
          OR EXISTS (SELECT 1 FROM changes c WHERE c.proposal_seq = proposals.seq
                     AND (instr(vg_match_fold(c.path), ?) > 0 OR instr(vg_match_fold(coalesce(c.to_path, '')), ?) > 0)))`,
      );
      args.push(needle, needle, needle, needle, needle);
    }
    const w = where.length ? `WHERE ${where.join(' AND ')}` : '';
    const total = this.db.prepare(`SELECT count(*) FROM proposals ${w}`).pluck().get(...args) as number;
    const rows = this.db
      .prepare(
        `SELECT seq, id, state, title, agent, session, scenario, origin, rollback_of, created_at, updated_at, review_hash, blocking, warnings
         FROM proposals ${w} ORDER BY seq DESC LIMIT ? OFFSET ?`,
      )
      .all(...args, filter.limit, filter.offset ?? 0) as Array<Omit<ProposalRow, 'review'>>;
    const files = this.db.prepare('SELECT path, action, to_path FROM changes WHERE proposal_seq = ? ORDER BY ord');
    const proposals = rows.map((r): ProposalSummary => {
      return {
        id: r.id,
        state: r.state,
        title: r.title,
        agent: r.agent,
        session: r.session,
        scenario: r.scenario,
        origin: r.origin,
        rollback_of: r.rollback_of,
        created_at: r.created_at,
        updated_at: r.updated_at,
        files: (files.all(r.seq) as Array<{ path: string; action: StoredChange['action']; to_path: string | null }>).map((f) => ({
          path: f.path,
          action: f.action,
          ...(f.to_path === null ? {} : { to: f.to_path }),
        })),
        blocking: JSON.parse(r.blocking) as string[],
        warnings: r.warnings,
        review_hash: r.review_hash,
      };
    });
    return { total, proposals };
  }

  /** Ids of proposals in a state (used to reconcile `recovery`, `applied` and `undone` ones with the engine's record). */
  idsInState(state: ProposalState): string[] {
    return this.db.prepare('SELECT id FROM proposals WHERE state = ? ORDER BY seq').pluck().all(state) as string[];
  }

  /** `[id, operation_id, state]` of every proposal in one of these states, oldest first. */
  operationsInStates(states: readonly ProposalState[]): Array<[string, string, ProposalState]> {
    return this.db
      .prepare(`SELECT id, operation_id, state FROM proposals WHERE state IN (${states.map(() => '?').join(', ')}) ORDER BY seq`)
      .raw()
      .all(...states) as Array<[string, string, ProposalState]>;
  }

  /** The proposal whose current transaction is `operationId`, if any. */
  byOperation(operationId: string): string | null {
    return (this.db.prepare('SELECT id FROM proposals WHERE operation_id = ?').pluck().get(operationId) as string | undefined) ?? null;
  }

  /** The audit log, newest first; `offset` skips that many events first (paging). */
  log(filter: LogFilter): { total: number; events: AuditEvent[] } {
    const w = filter.proposal ? 'WHERE proposal = ?' : '';
    const args = filter.proposal ? [filter.proposal] : [];
    const total = this.db.prepare(`SELECT count(*) FROM audit ${w}`).pluck().get(...args) as number;
    const rows = this.db
      .prepare(`SELECT * FROM audit ${w} ORDER BY seq DESC LIMIT ? OFFSET ?`)
      .all(...args, filter.limit, filter.offset ?? 0) as Array<Omit<AuditEvent, 'details'> & { details: string }>;
    return { total, events: rows.map((r) => ({ ...r, details: JSON.parse(r.details) as Record<string, unknown> })) };
  }
}

export function unknownProposal(id: string): VaultgateError {
  return new VaultgateError('PROPOSAL_UNKNOWN', `no proposal ${JSON.stringify(id)} in this vault`, {
    details: { id },
    hint: '`vaultgate proposals` lists the proposals of this vault (ids look like p-7).',
  });
}

/** The hashes of each change, as the audit log records them. */
export function fileHashes(changes: readonly StoredChange[]): Array<Record<string, unknown>> {
  return changes.map((c) => ({ path: c.path, action: c.action, ...(c.to === null ? {} : { to: c.to }), base_sha256: c.base_sha256, new_sha256: c.new_sha256 }));
}

/**
 * A review is stored without its diffs (issue 20 §8): they are a pure function
 * of the proposal's stored texts (src/proposals/diff.ts, deterministic), and as
 * large as the change — twice over, per file and joined — so storing them made
 * every read of a 12 MB proposal parse 48 MB of JSON. What the person approves
 * is the review hash over the exact bundle, never the diff's text.
 */
function withoutDiffs(review: StoredReview): Omit<StoredReview, 'diff' | 'files'> & { files: Array<Omit<StoredReview['files'][number], 'diff'>> } {
  // copied key by key, never reading `diff`: a fresh review computes its diffs only when they are read
  const { files, ...rest } = omitDiff(review);
  return { ...rest, files: (files as StoredReview['files']).map((f) => omitDiff(f)) } as ReturnType<typeof withoutDiffs>;
}

function omitDiff<T extends object>(o: T): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(o)) if (k !== 'diff') out[k] = (o as Record<string, unknown>)[k];
  return out;
}

/**
 * The diffs of a stored review, computed from its changes when first read, in
 * the place they always had among the fields (after `new_sha256`, after
 * `files`). Reviews stored before this kept theirs: those are used.
 */
function withDiffs(review: StoredReview, changes: readonly StoredChange[]): StoredReview {
  const files = review.files.map((f, i) => {
    const c = changes[i];
    return f.diff === undefined && c !== undefined ? insertLazy(f, 'new_sha256', 'diff', () => changeDiff(c)) : f;
  });
  const out = { ...review, files };
  return review.diff === undefined ? insertLazy(out, 'files', 'diff', () => files.map((f) => f.diff ?? '').join(''), false) : out;
}

/** A copy of `o` with a lazy property `key` right after `after` (JSON output keeps its field order). */
function insertLazy<T extends object>(o: T, after: string, key: string, make: () => string, keep = true): T {
  const out = {} as T;
  for (const k of Object.keys(o)) {
    (out as Record<string, unknown>)[k] = (o as Record<string, unknown>)[k];
    if (k === after) lazyProperty(out, key, make, { keep });
  }
  if (!Object.prototype.hasOwnProperty.call(out, key)) lazyProperty(out, key, make, { keep });
  return out;
}
