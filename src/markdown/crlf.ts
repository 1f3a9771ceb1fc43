/**
 * CRLF handling for lezer. Lezer splits lines on `\n` only and GFM's table
 * delimiter row (`|---|---|`) is not recognised with a trailing `\r`, so the body
 * is handed to lezer with every `\r\n` turned into `\n`, and node offsets are
 * mapped back. A position at a line end (where lezer saw `\n`) maps to the `\r`,
 * so a range never ends with a stray `\r`.
 *
 * The map is the sorted list of removed `\r`s (in LF coordinates); a lookup is a
 * binary search, and LF-only text (the usual case) skips all of it.
 */
export interface LfBody {
  /** The text lezer parses. */
  text: string;
  /** Maps an offset in `text` to an offset in the original note. */
  toOriginal(pos: number): number;
}

export function toLfBody(note: string, bodyStart: number): LfBody {
  const body = note.slice(bodyStart);
  if (!body.includes('\r\n')) return { text: body, toOriginal: (p) => p + bodyStart };
  // crAt[k]: the LF-coordinate of the `\n` that followed the k-th removed `\r`.
  const crAt: number[] = [];
  let i = body.indexOf('\r\n');
  while (i !== -1) {
    crAt.push(i - crAt.length);
    i = body.indexOf('\r\n', i + 2);
  }
  return {
    text: body.replace(/\r\n/g, '\n'),
    toOriginal(p) {
      // Count removed `\r`s strictly before `p`: those whose `\n` sits before it.
      let lo = 0;
      let hi = crAt.length;
      while (lo < hi) {
        const mid = (lo + hi) >> 1;
        if ((crAt[mid] as number) < p) lo = mid + 1;
        else hi = mid;
      }
      return p + lo + bodyStart;
    },
  };
}
