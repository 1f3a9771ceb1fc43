import type { Db } from '../index/index.js';
import { compilePathGlob, matchesAnyGlob } from '../vault/index.js';

/**
 * The notes a scenario lets a packet draw evidence from: every indexed note
 * whose path matches one of the scenario's area globs. Expanded to the exact
 * list of paths once per selection round, so search filters in SQL (before its
 * LIMIT) rather than dropping hits afterwards, and the glob rules live in one
 * place (src/vault/path-glob.ts). An empty list means nothing is in scope.
 */
export function notesInAreas(db: Db, areas: readonly string[]): string[] {
  const globs = areas.map((g, i) => compilePathGlob(g, `scenario areas[${i}]`, 'SCENARIO_INVALID'));
  const paths = db.prepare(`SELECT path FROM files WHERE kind = 'note'`).pluck().all() as string[];
  return paths.filter((p) => matchesAnyGlob(globs, p));
}
