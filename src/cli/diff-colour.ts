import { diffEmphasis } from '../word-emphasis.js';

/**
 * The CLI's diffs in colour on a terminal, as git shows them (issue 21 §4):
 * file headers bold, hunk headers cyan, removed lines red, added lines green,
 * and inside a changed line the words that changed in reverse video (git's
 * diff-highlight), from the one word-emphasis function every face uses.
 *
 * Only a terminal gets colour: not a pipe (that is JSON anyway, or `--text`
 * for a file), not with NO_COLOR set (https://no-color.org), not on
 * TERM=dumb. The text is already made inert (visible-text.ts) before this
 * adds its own escapes, so an escape in a note can never pass for one.
 */

const BOLD = '\x1b[1m';
const CYAN = '\x1b[36m';
const RED = '\x1b[31m';
const GREEN = '\x1b[32m';
const REVERSE = '\x1b[7m';
const NO_REVERSE = '\x1b[27m';
const RESET = '\x1b[m';

export function wantsColour(isTTY: boolean, env: Record<string, string | undefined>): boolean {
  return isTTY && !env.NO_COLOR && env.TERM !== 'dumb';
}

const HEADER = /^(diff --git |--- |\+\+\+ |rename from |rename to |new file|deleted file|Binary files |index |similarity index |old mode |new mode )/;

/**
 * `text` with each unified diff in it coloured. A diff starts at a
 * `diff --git` line (or a `---` line followed by `+++`) and ends at the first line that is neither a header nor,
 * after its first `@@`, a hunk line: what comes after it is left as it is.
 */
export function colourDiffs(text: string): string {
  const lines = text.split('\n');
  let i = 0;
  while (i < lines.length) {
    // a diff starts with `diff --git` (proposals), or with `---`/`+++` straight away (`plan`)
    const starts = lines[i]!.startsWith('diff --git ') || (lines[i]!.startsWith('--- ') && lines[i + 1]?.startsWith('+++ ') === true);
    if (!starts) {
      i++;
      continue;
    }
    let end = i + 1;
    let inHunk = false;
    for (; end < lines.length; end++) {
      const l = lines[end]!;
      if (l.startsWith('diff --git ')) inHunk = false;
      else if (l.startsWith('@@')) inHunk = true;
      else if (inHunk ? !/^[ +\-\\]/.test(l) : !HEADER.test(l)) break;
    }
    const block = lines.slice(i, end);
    const em = diffEmphasis(block);
    let hunk = false;
    block.forEach((l, k) => {
      if (l.startsWith('diff --git ')) hunk = false;
      if (l.startsWith('@@')) hunk = true;
      lines[i + k] = paint(l, hunk && !l.startsWith('@@'), em[k] ?? null);
    });
    i = end;
  }
  return lines.join('\n');
}

function paint(l: string, inHunk: boolean, em: Array<[number, number]> | null): string {
  if (l.startsWith('@@')) return CYAN + l + RESET;
  if (!inHunk) return BOLD + l + RESET;
  const colour = l.startsWith('+') ? GREEN : l.startsWith('-') ? RED : null;
  if (!colour) return l;
  if (!em) return colour + l + RESET;
  // the ranges are of the line without its marker
  let out = colour + l[0]!;
  let at = 1;
  for (const [s, e] of em) {
    out += l.slice(at, s + 1) + REVERSE + l.slice(s + 1, e + 1) + NO_REVERSE;
    at = e + 1;
  }
  return out + l.slice(at) + RESET;
}
