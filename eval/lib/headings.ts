/**
 * A deliberately small heading-path reader for the eval: it lets the question
 * set be checked (does the expected section exist?) without depending on
 * src/markdown, which is what the eval is measuring. It knows just enough
 * CommonMark to agree with it on the notes we picked: frontmatter, fenced code
 * (where `# include` is not a heading), ATX headings, and setext headings.
 */
export interface HeadingEntry {
  level: number;
  text: string;
  /** Texts of the enclosing headings, outermost first, ending with this one. */
  path: string[];
  line: number;
}

export function readHeadings(source: string): HeadingEntry[] {
  const lines = source.replace(/^\uFEFF/, '').split(/\r?\n/);
  const out: HeadingEntry[] = [];
  const stack: { level: number; text: string }[] = [];
  let i = 0;
  if (lines[0] === '---') {
    const end = lines.findIndex((l, k) => k > 0 && (l === '---' || l === '...'));
    if (end > 0) i = end + 1;
  }
  let fence: string | null = null;
  const push = (level: number, text: string, line: number) => {
    while (stack.length && stack[stack.length - 1]!.level >= level) stack.pop();
    stack.push({ level, text });
    out.push({ level, text, path: stack.map((s) => s.text), line });
  };
  for (; i < lines.length; i++) {
    const line = lines[i]!;
    const f = /^ {0,3}(`{3,}|~{3,})/.exec(line);
    if (fence) {
      if (f && f[1]![0] === fence[0] && f[1]!.length >= fence.length && line.trim() === f[1]) fence = null;
      continue;
    }
    if (f) {
      fence = f[1]!;
      continue;
    }
    const atx = /^ {0,3}(#{1,6})(?:[ \t]+(.*?))?(?:[ \t]+#+)?[ \t]*$/.exec(line);
    if (atx) {
      push(atx[1]!.length, (atx[2] ?? '').trim(), i + 1);
      continue;
    }
    const prev = i > 0 ? lines[i - 1]! : '';
    if (/^ {0,3}(=+|-+)[ \t]*$/.test(line) && prev.trim() !== '' && !/^ {0,3}([-*+>|#]|\d+[.)]|`{3}|~{3})/.test(prev)) {
      // Only when the previous line is itself a plain paragraph line (not a heading we already took).
      if (!out.length || out[out.length - 1]!.line !== i) push(line.trim()[0] === '=' ? 1 : 2, prev.trim(), i);
    }
  }
  return out;
}

/**
 * Compare heading texts the way a person would read them: emphasis markers,
 * backticks and case do not matter (`**Display Hotplugging**` = `Display hotplugging`).
 */
export function normalizeHeading(text: string): string {
  return text.normalize('NFC').replace(/[*_`]/g, '').replace(/\s+/g, ' ').trim().toLowerCase();
}

export function samePath(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((t, k) => normalizeHeading(t) === normalizeHeading(b[k]!));
}
