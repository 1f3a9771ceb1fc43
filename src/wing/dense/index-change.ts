/** A number per index connection: a reopened index (after damage) never shares a change key with the one before. */
const connections = new WeakMap<object, number>();
let nextConnection = 0;

/**
 * The index's change counter, as one string: SQLite's `data_version` (moves
 * when another connection commits: a CLI refresh in another process) and this
 * connection's `total_changes()` (moves with every row the session's own
 * refresh writes), per connection. Equal keys: the index has not changed.
 */
export function indexChangeKey(db: { pragma(sql: string, opts: { simple: true }): unknown; prepare(sql: string): { pluck(): { get(): unknown } } }): string {
  let id = connections.get(db);
  if (id === undefined) connections.set(db, (id = nextConnection++));
  return `${id}:${String(db.pragma('data_version', { simple: true }))}:${String(db.prepare('SELECT total_changes()').pluck().get())}`;
}
