import type { Database } from 'better-sqlite3';

/** meta keys that say when, not what. */
const VOLATILE_META = new Set(['created_at', 'refreshed_at']);

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
