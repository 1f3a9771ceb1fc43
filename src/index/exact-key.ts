import { textWords } from './text-pipeline.js';

/**
 * Normalized form of a title or alias, stored as a note's `title_key` and an
 * alias's `key`: a query compares its own words joined the same way
 * (retrieval/query.ts, `ParsedQuery.exactKey`) to find exact name matches.
 */
export function exactKeyOf(text: string): string {
  return textWords(text).join(' ');
}
