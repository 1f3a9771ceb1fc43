import { parseNote } from './parse-note.js';

/**
 * Where a quoted text is in a note now: `'here'` when it is in the section(s)
 * holding the cited lines (1-based, inclusive), else the lines of its first
 * occurrence in the note, or null when it is nowhere in it. Shared by
 * `verify` (an agent's quotes) and review's `evidence` check (a proposal's
 * cited fragments), so both say "still there" by the same rule.
 */
export function locateQuote(text: string, needle: string, lines: readonly [number, number]): 'here' | [number, number] | null {
  const model = parseNote(text);
  const lineCount = model.lineStarts.length;
  const [from, to] = lines;
  if (from >= 1 && to >= from && from <= lineCount) {
    const sections = model.sections.filter((s) => s.startLine <= to && s.endLine >= from);
    // Text before the first section (frontmatter, or a note without sections) is its own region.
    const start = sections.length ? sections[0]!.range.start : model.lineStarts[from - 1]!;
    const endLine = Math.min(to, lineCount);
    const end = sections.length ? sections.at(-1)!.range.end : endLine < lineCount ? model.lineStarts[endLine]! : text.length;
    if (text.slice(start, end).includes(needle)) return 'here';
  }
  const at = text.indexOf(needle);
  if (at === -1) return null;
  const lineAt = (o: number) => {
    let l = 0;
    while (l + 1 < lineCount && model.lineStarts[l + 1]! <= o) l++;
    return l + 1;
  };
  return [lineAt(at), lineAt(at + Math.max(needle.length - 1, 0))];
}
