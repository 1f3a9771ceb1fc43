import v8 from 'node:v8';
import type { NoteModel } from '../markdown/index.js';
import type { StoreDb } from '../store/index.js';
import type { Statement } from 'better-sqlite3';
import { BUILD } from '../version.js';
import { isHashKey } from './text-key.js';

/**
 * Parses of long texts kept in the proposal store between commands.
 *
 * A proposal's texts never change, and propose, review and apply each check
 * the same links, headings and frontmatter: each parsed every old and new text
 * again, and for a 12 MB proposal that was most of what the three commands
 * cost (issue 20 §8: ~0.65 s per 12 MB of Markdown, six times over). propose
 * parses them once and keeps the result here; review and apply read it back
 * (v8's structured serialisation: a parse of 200 KB reads in a fraction of a
 * millisecond, frontmatter values such as `.inf` survive as they are).
 *
 * Only texts keyed by their hash (`textKey` of a text over HASH_KEY_CHARS,
 * 1,000 characters) are kept: a shorter note parses about as fast as a row is read. A row names the
 * build that wrote it, and a parse from another build is not used (the parser
 * may differ); the table is a cache, bounded by {@link MAX_KEPT_BYTES}, oldest
 * rows dropped first, and a row that does not read back is dropped.
 */
export const MAX_KEPT_BYTES = 32 * 1024 * 1024;

/** A parse memo (the `Map` review and the link rewriter share) that reads through to the store. */
export class KeptParses extends Map<string, NoteModel> {
  readonly #db: StoreDb;
  /** Keys whose parse came from the store (or is already there): not written again. */
  readonly #stored = new Set<string>();
  /** Prepared once: a proposal of 1,000 notes asks for 2,000 parses. */
  #read: Statement | null = null;

  constructor(db: StoreDb) {
    super();
    this.#db = db;
  }

  override get(key: string): NoteModel | undefined {
    const here = super.get(key);
    if (here !== undefined || !isHashKey(key)) return here;
    this.#read ??= this.#db.prepare('SELECT model FROM parses WHERE key = ? AND build = ?');
    const row = this.#read.get(key, BUILD) as { model: Buffer } | undefined;
    if (!row) return undefined;
    const model = readBack(row.model, key);
    if (model === null) {
      this.#db.prepare('DELETE FROM parses WHERE key = ?').run(key);
      return undefined;
    }
    this.#stored.add(key);
    super.set(key, model);
    return model;
  }

  /**
   * Write the long texts' parses made since this memo was opened, in one
   * transaction, then drop the oldest rows past the bound. Never fails the
   * command that calls it: a store that cannot take them (read-only, full)
   * only means the next command parses again.
   */
  keep(): void {
    const fresh = [...this.entries()].filter(([key]) => isHashKey(key) && !this.#stored.has(key));
    if (fresh.length === 0) return;
    try {
      const put = this.#db.prepare('INSERT OR REPLACE INTO parses (key, build, bytes, model) VALUES (?, ?, ?, ?)');
      this.#db.transaction(() => {
        for (const [key, model] of fresh) {
          const blob = v8.serialize(model);
          put.run(key, BUILD, blob.byteLength, blob);
          this.#stored.add(key);
        }
        const total = this.#db.prepare('SELECT COALESCE(SUM(bytes), 0) FROM parses').pluck().get() as number;
        if (total > MAX_KEPT_BYTES) dropOldest(this.#db, total - MAX_KEPT_BYTES);
      })();
    } catch {
      // a cache: the parses are made again when needed
    }
  }
}

function dropOldest(db: StoreDb, excess: number): void {
  let freed = 0;
  const drop = db.prepare('DELETE FROM parses WHERE rowid = ?');
  for (const r of db.prepare('SELECT rowid AS id, bytes FROM parses ORDER BY rowid').all() as { id: number; bytes: number }[]) {
    if (freed >= excess) break;
    drop.run(r.id);
    freed += r.bytes;
  }
}

/** A kept parse, if it reads back as one of the text its key names (the key carries the text's length). */
function readBack(blob: Buffer, key: string): NoteModel | null {
  let model: unknown;
  try {
    model = v8.deserialize(blob);
  } catch {
    return null;
  }
  const length = Number(key.slice(1, key.indexOf(':')));
  if (typeof model !== 'object' || model === null) return null;
  const m = model as Partial<NoteModel>;
  // the parse is of the text without its byte-order mark: one character shorter when it had one
  if (typeof m.length !== 'number' || (m.length !== length && m.length !== length - 1)) return null;
  for (const list of [m.lineStarts, m.headings, m.sections, m.links, m.tags, m.aliases, m.blockIds, m.callouts, m.protected]) {
    if (!Array.isArray(list)) return null;
  }
  return m as NoteModel;
}
