/**
 * Sections: the unit of retrieval (DESIGN §4). The body after the frontmatter is
 * cut at every heading of any level; a section runs from its heading's start to
 * the next heading's start (or the end of the note), so sections are contiguous.
 *
 * The preamble (body text before the first heading) is a section with heading
 * null only when it holds something other than whitespace: a note that is just
 * frontmatter, a blank line and `# Title` has no empty preamble to index. Hence
 * the invariant: sections are contiguous, the last ends at the note's end, and
 * anything between the body start and the first section is whitespace.
 */
import { linesOf } from './lines.js';
import type { Heading, Section } from './types.js';

const NON_WS = /\S/;

export function buildSections(text: string, headings: readonly Heading[], bodyStart: number, lineStarts: number[]): Section[] {
  const sections: Section[] = [];
  const end = text.length;
  const firstStart = headings[0]?.range.start ?? end;
  if (firstStart > bodyStart && NON_WS.test(text.slice(bodyStart, firstStart))) {
    const range = { start: bodyStart, end: firstStart };
    sections.push({ index: 0, heading: null, headingPath: [], range, ...linesOf(lineStarts, range) });
  }
  // Enclosing headings, outermost first: pop every heading at the same or a deeper level.
  const stack: Heading[] = [];
  headings.forEach((h, i) => {
    while (stack.length > 0 && (stack[stack.length - 1] as Heading).level >= h.level) stack.pop();
    stack.push(h);
    const range = { start: h.range.start, end: headings[i + 1]?.range.start ?? end };
    sections.push({
      index: sections.length,
      heading: h,
      headingPath: stack.map((s) => s.text),
      range,
      ...linesOf(lineStarts, range),
    });
  });
  return sections;
}
