import crypto from 'node:crypto';
import type { Db } from '../../index/index.js';

/**
 * What the index holds of its notes, as one hash: its schema version and
 * every note's path and content hash. What the vector store derived from the
 * index (its LSA notes, the notes holding template placeholders) is kept with
 * the fingerprint it was derived at; an equal fingerprint on a later run means
 * nothing it was derived from changed. (The index's change counter,
 * dense/index-change.ts, is per connection: it cannot tell a new process.)
 * The rows come from SQLite as one string; a different order only makes a
 * different fingerprint, never a false match.
 *
 * One `similar` asks twice (the LSA refresh, then the template notes), ~15 ms
 * each at 10k notes: the second time, on a connection whose database nothing
 * has written since, the first answer is the answer ({@link dbState}).
 */
export function notesFingerprint(db: Db): string {
  const state = dbState(db);
  const known = memo.get(db);
  if (known?.state === state) return known.fingerprint;
  const notes = db.prepare(`SELECT group_concat(x, char(10)) FROM (SELECT path || char(0) || ifnull(sha256, '') AS x FROM files WHERE kind = 'note' ORDER BY path)`).pluck().get() as string | null;
  const fingerprint = crypto
    .createHash('sha256')
    .update(`${String(db.pragma('user_version', { simple: true }))}\n${notes ?? ''}`)
    .digest('hex');
  memo.set(db, { state, fingerprint });
  return fingerprint;
}

const memo = new WeakMap<Db, { state: string; fingerprint: string }>();

/**
 * Equal on one connection only while nothing wrote to the database: other
 * connections' commits move `data_version`, this connection's own rows
 * `total_changes()`, and the schema version is part of the fingerprint.
 */
function dbState(db: Db): string {
  const [version, changes] = db.prepare('SELECT (SELECT data_version FROM pragma_data_version), total_changes()').raw().get() as [number, number];
  return `${version} ${changes} ${String(db.pragma('user_version', { simple: true }))}`;
}
