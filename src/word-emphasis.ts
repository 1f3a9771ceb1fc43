/**
 * Word-level emphasis inside the changed lines of a unified diff (issue 21
 * §4): a one-cell change in a table row shows the cell, not just the row. The
 * web inbox, the terminal inbox and the CLI's terminal diff all take it from
 * this one function (the web page embeds its source, like visibleText).
 *
 * Which lines: inside a hunk, a run of k removed lines directly followed by a
 * run of k added lines; line i of one is paired with line i of the other (as
 * git's diff-highlight does). Runs of different lengths get no emphasis: a
 * guessed pairing would point at the wrong words.
 *
 * What is emphasised: the tokens (a word, a run of spaces, or one other
 * character) not in the longest common subsequence of the two lines' tokens,
 * after their common start and end are set aside. Display only: the diff, the
 * review hash and what is applied never depend on it.
 *
 * Bounded work (issue 20 §8: linear in the change, bounded per line): a side
 * longer than MAX_LINE characters gets none (the whole line is the change); a
 * middle whose token grid is larger than MAX_CELLS is emphasised as a whole
 * (its common start and end still stand out). A pair whose every character
 * changed gets none either: emphasis would add nothing.
 *
 * Self-contained on purpose (no reference outside its body): the web page runs
 * this function's own source text.
 *
 * Returns, for each line, null or the [start, end) ranges (UTF-16 offsets into
 * the line without its first, marker character) to emphasise.
 */
export function diffEmphasis(lines: readonly string[]): Array<Array<[number, number]> | null> {
  const MAX_LINE = 1000;
  const MAX_CELLS = 10000;
  const out: Array<Array<[number, number]> | null> = lines.map(function () {
    return null;
  });
  function tokens(s: string): string[] {
    return s.match(/\s+|[\p{L}\p{N}_]+|[\s\S]/gu) || [];
  }
  /** Changed [start, end) ranges of each side, or null when nothing (or everything) would be emphasised. */
  function pair(a: string, b: string): [Array<[number, number]>, Array<[number, number]>] | null {
    if (a.length > MAX_LINE || b.length > MAX_LINE || a === b) return null;
    const ta = tokens(a);
    const tb = tokens(b);
    let pre = 0;
    while (pre < ta.length && pre < tb.length && ta[pre] === tb[pre]) pre++;
    let suf = 0;
    while (suf < ta.length - pre && suf < tb.length - pre && ta[ta.length - 1 - suf] === tb[tb.length - 1 - suf]) suf++;
    const ma = ta.slice(pre, ta.length - suf);
    const mb = tb.slice(pre, tb.length - suf);
    const keepA: boolean[] = ma.map(function () {
      return false;
    });
    const keepB: boolean[] = mb.map(function () {
      return false;
    });
    if (ma.length > 0 && mb.length > 0 && ma.length * mb.length <= MAX_CELLS) {
      // longest common subsequence of the middles, by a table of suffix lengths
      const w = mb.length + 1;
      const len = new Uint16Array((ma.length + 1) * w);
      for (let i = ma.length - 1; i >= 0; i--) {
        for (let j = mb.length - 1; j >= 0; j--) {
          len[i * w + j] = ma[i] === mb[j] ? len[(i + 1) * w + j + 1]! + 1 : Math.max(len[(i + 1) * w + j]!, len[i * w + j + 1]!);
        }
      }
      let i = 0;
      let j = 0;
      while (i < ma.length && j < mb.length) {
        if (ma[i] === mb[j]) {
          keepA[i++] = true;
          keepB[j++] = true;
        } else if (len[(i + 1) * w + j]! >= len[i * w + j + 1]!) i++;
        else j++;
      }
    }
    function ranges(all: string[], keep: boolean[]): Array<[number, number]> {
      const r: Array<[number, number]> = [];
      let at = 0;
      for (let k = 0; k < pre; k++) at += all[k]!.length;
      for (let k = 0; k < keep.length; k++) {
        const t = all[pre + k]!;
        if (!keep[k]) {
          const last = r[r.length - 1];
          if (last && last[1] === at) last[1] = at + t.length;
          else r.push([at, at + t.length]);
        }
        at += t.length;
      }
      return r;
    }
    const ra = ranges(ta, keepA);
    const rb = ranges(tb, keepB);
    const covered = function (s: string, r: Array<[number, number]>) {
      return r.length === 1 && r[0]![0] === 0 && r[0]![1] === s.length;
    };
    if ((covered(a, ra) || a === '') && (covered(b, rb) || b === '')) return null;
    return [ra, rb];
  }
  let inHunk = false;
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (line.startsWith('diff --git ')) {
      inHunk = false;
      i++;
      continue;
    }
    if (line.startsWith('@@')) {
      inHunk = true;
      i++;
      continue;
    }
    if (!inHunk || line.charAt(0) !== '-') {
      i++;
      continue;
    }
    // `\ No newline at end of file` may follow the last line of either run
    const dels: number[] = [];
    while (i < lines.length && (lines[i]!.charAt(0) === '-' || lines[i]!.charAt(0) === '\\')) if (lines[i++]!.charAt(0) === '-') dels.push(i - 1);
    const adds: number[] = [];
    while (i < lines.length && (lines[i]!.charAt(0) === '+' || lines[i]!.charAt(0) === '\\')) if (lines[i++]!.charAt(0) === '+') adds.push(i - 1);
    if (dels.length !== adds.length) continue;
    for (let k = 0; k < dels.length; k++) {
      const r = pair(lines[dels[k]!]!.slice(1), lines[adds[k]!]!.slice(1));
      if (!r) continue;
      if (r[0].length) out[dels[k]!] = r[0];
      if (r[1].length) out[adds[k]!] = r[1];
    }
  }
  return out;
}
