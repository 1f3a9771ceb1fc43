/**
 * Lines atomize writes itself into a draft and that are not claims from the
 * source: the `Source:` line linking back to the chapter headings, which is
 * always the draft's last non-blank line. The verbatim check (`atomize check`,
 * review's `verbatim` check) skips only that one line, so a sentence a model
 * returned as "Source: …" is still checked; a map of content needs no exception
 * (its lines are the source's own headings, verbatim).
 *
 * It lives beside markdown/verbatim.ts, not in atomize: review's verbatim check
 * (core) reads it, and the core never imports the optional wing.
 */
export const SOURCE_LINE_PREFIX = 'Source: ';

/** Whether a line has the form of the Source line (the link adder leaves such lines alone). */
export function isOwnLine(line: string): boolean {
  return line.startsWith(SOURCE_LINE_PREFIX);
}

/** The 1-based line numbers of a draft that atomize wrote itself: its closing Source line, if it has one. */
export function ownLines(text: string): Set<number> {
  const lines = text.split(/\r?\n/);
  for (let i = lines.length - 1; i >= 0; i--) {
    const l = lines[i]!;
    if (l.trim() === '') continue;
    return isOwnLine(l) ? new Set([i + 1]) : new Set();
  }
  return new Set();
}
