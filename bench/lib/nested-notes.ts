/**
 * Notes nested thousands of levels deep (issue 7 defect 4), shared by the
 * nesting bench and the adversarial parser tests: each line goes one level
 * deeper and carries a wikilink, so a test can check that no link is lost.
 */

/** `- item`, each item indented under the previous one. */
export function nestedList(depth: number, prefix = 'L'): string {
  let s = '';
  for (let d = 0; d < depth; d++) s += `${'  '.repeat(d)}- item ${d} [[${prefix}${d}]]\n`;
  return s;
}

/** `> > > line`, one more quote level per line. */
export function nestedQuote(depth: number, prefix = 'Q'): string {
  let s = '';
  for (let d = 0; d < depth; d++) s += `${'> '.repeat(d + 1)}line ${d} [[${prefix}${d}]]\n`;
  return s;
}

/** `- > - > …`: a list item holding a quote holding a list item, one more marker per line. */
export function nestedMix(depth: number, prefix = 'M'): string {
  let s = '';
  let markers = '';
  for (let d = 0; d < depth; d++) {
    markers += d % 2 === 0 ? '- ' : '> ';
    s += `${markers}x ${d} [[${prefix}${d}]]\n`;
  }
  return s;
}

export const NESTED_NOTES = { list: nestedList, quote: nestedQuote, mix: nestedMix } as const;
export type NestingKind = keyof typeof NESTED_NOTES;
