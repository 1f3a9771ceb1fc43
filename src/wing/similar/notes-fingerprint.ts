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
 */
export function notesFingerprint(db: Db): string {
  const notes = db.prepare(`SELECT group_concat(x, char(10)) FROM (SELECT path || char(0) || ifnull(sha256, '') AS x FROM files WHERE kind = 'note' ORDER BY path)`).pluck().get() as string | null;
  return crypto
    .createHash('sha256')
    .update(`${String(db.pragma('user_version', { simple: true }))}\n${notes ?? ''}`)
    .digest('hex');
}
