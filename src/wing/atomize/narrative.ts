import { normalizeForVerbatim } from '../../markdown/verbatim.js';
import type { Chapter } from './chapters.js';

/**
 * Which draft lines come from a narrative chapter: the line's reader-visible
 * text is in a narrative chapter and in no other chapter (a rule quoted
 * word for word in an example of play stays with the rule).
 */
export interface NarrativeTest {
  /** Ids of the narrative chapters, sorted: write and strip must agree on them. */
  chapters: string[];
  fromNarrative(line: string): boolean;
}

export function narrativeTest(source: string, chapters: readonly Chapter[]): NarrativeTest {
  const lines = source.split(/\r?\n/);
  const text = (cs: readonly Chapter[]) => cs.map((c) => normalizeForVerbatim(lines.slice(c.start_line - 1, c.end_line).join('\n'))).join('\n');
  const narrative = chapters.filter((c) => c.narrative);
  const story = text(narrative);
  const rest = text(chapters.filter((c) => !c.narrative));
  return {
    chapters: narrative.map((c) => c.id).sort(),
    fromNarrative(line: string): boolean {
      if (narrative.length === 0) return false;
      const s = normalizeForVerbatim(line);
      return s !== '' && story.includes(s) && !rest.includes(s);
    },
  };
}
