/**
 * Lines atomize writes itself into a draft and that are not claims from the
 * source: the `Source:` line linking back to the chapter heading. The verbatim
 * check (`atomize check`, review's `verbatim` check) and the link adder skip
 * them; a map of content needs no exception (its lines are the source's own
 * headings, verbatim).
 */
export const SOURCE_LINE_PREFIX = 'Source: ';

export function isOwnLine(line: string): boolean {
  return line.startsWith(SOURCE_LINE_PREFIX);
}
