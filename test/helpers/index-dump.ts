import type { Database } from 'better-sqlite3';

/**
 * meta keys that say when, not what, and the walk's caches: a refresh of given
 * paths leaves a token as `scan_digest` (the next walk compares every row) and
 * the folder tree as the last walk saw it (its records are checked by mtime).
 */
const VOLATILE_META = new Set(['created_at', 'refreshed_at', 'scan_digest', 'scan_tree']);

/**
 * Everything an index holds, as plain rows: every ordinary table (FTS5 tables
 * and their shadow tables left out: they are derived from `sections`), rows in
 * a stable order, meta without its timestamps. Two indexes of the same vault
 * built through the same sequence of refreshes dump equal.
 */
export function dumpIndex(db: Database): Record<string, unknown[]> {
  const tables = db
    .prepare(`SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%' ORDER BY name`)
    .pluck()
    .all() as string[];
  const out: Record<string, unknown[]> = {};
  for (const t of tables) {
    if (/_fts(_|$)/.test(t)) continue;
    const rows = db.prepare(`SELECT * FROM "${t}"`).all() as Record<string, unknown>[];
    const kept = t === 'meta' ? rows.filter((r) => !VOLATILE_META.has(r.key as string)) : rows;
    out[t] = kept.map((r) => JSON.stringify(r)).sort();
  }
  return out;
}
