/**
 * The inside of a link, shared by every place links come from (note body,
 * `%%comments%%`, frontmatter values, the command line), so `[[A#B|c]]` means
 * the same thing wherever it is written. See shared/obsidian-links.md.
 */

export interface LinkParts {
  path: string;
  subpath: string | null;
  display: string | null;
  size: string | null;
}

/** `![[img.png|100]]`, `|100x145`: Obsidian reads a bare number (pair) as a size. */
const EMBED_SIZE = /^\d+(?:x\d+)?$/;

/** A URI scheme (`http:`, `mailto:`, `obsidian:`, `data:`) or `//host`: not a vault path. */
const EXTERNAL = /^(?:[a-zA-Z][a-zA-Z0-9+.-]*:|\/\/)/;

function dropTrailingBackslash(s: string): string {
  return s.endsWith('\\') ? s.slice(0, -1) : s;
}

/**
 * Split the text between `[[` and `]]`. The first `|` ends the target, and a
 * `\|` does too (Obsidian documents it for tables, vaults use it in prose): the
 * backslash never stays in the path. The subpath is kept as written after the
 * first `#` (`[[N##H]]` gives `#H`); resolution drops empty segments.
 */
export function parseWikilinkInner(inner: string, embed: boolean): LinkParts {
  let target = inner;
  let display: string | null = null;
  const bar = inner.indexOf('|');
  if (bar !== -1) {
    target = dropTrailingBackslash(inner.slice(0, bar));
    display = inner.slice(bar + 1);
  }
  let size: string | null = null;
  if (embed && display !== null) {
    // The size is the last `|` segment: `![[x.png|alt|100]]` keeps `alt` as display.
    const lastBar = display.lastIndexOf('|');
    const tail = display.slice(lastBar + 1).trim();
    if (EMBED_SIZE.test(tail)) {
      size = tail;
      display = lastBar === -1 ? null : dropTrailingBackslash(display.slice(0, lastBar));
    }
  }
  const hash = target.indexOf('#');
  return {
    path: (hash === -1 ? target : target.slice(0, hash)).trim(),
    subpath: hash === -1 ? null : target.slice(hash + 1),
    display,
    size,
  };
}

function percentDecode(s: string): string {
  if (!s.includes('%')) return s;
  try {
    return decodeURIComponent(s);
  } catch {
    // A stray `%` (`100%.md`) is a literal character, as Obsidian treats it.
    return s;
  }
}

/**
 * Path and subpath of a Markdown link destination (`a%20b.md#H`, `<a b.md>`), or
 * null when it is not a vault link: empty, or an external URL with a scheme.
 * `[t](#H)` is a same-note heading link (path '').
 */
export function parseMarkdownDestination(dest: string): { path: string; subpath: string | null } | null {
  let d = dest.trim();
  if (d.startsWith('<') && d.endsWith('>')) d = d.slice(1, -1);
  if (d === '' || EXTERNAL.test(d)) return null;
  const decoded = percentDecode(d);
  const hash = decoded.indexOf('#');
  return {
    path: (hash === -1 ? decoded : decoded.slice(0, hash)).trim(),
    subpath: hash === -1 ? null : decoded.slice(hash + 1),
  };
}

/**
 * Index of the `]]` closing the wikilink whose `[[` is at `open`, or -1.
 * A wikilink stays on one line and cannot contain another `[[`, so every scan
 * stops at the next `\n` or `[[`: scans from different openers never overlap,
 * which keeps a long line with many stray `[[` linear.
 */
export function findWikilinkClose(text: string, open: number, end: number = text.length): number {
  for (let j = open + 2; j < end - 1; j++) {
    const c = text.charCodeAt(j);
    if (c === 10 /* \n */) return -1;
    if (c === 93 /* ] */ && text.charCodeAt(j + 1) === 93) return j;
    if (c === 91 /* [ */ && text.charCodeAt(j + 1) === 91) return -1;
  }
  return -1;
}

export interface WikilinkHit {
  start: number;
  end: number;
  embed: boolean;
  inner: string;
}

/**
 * Plain scan for `[[…]]` / `![[…]]` in `text[from, to)`, for text lezer does not
 * parse inline: `%%comments%%` and frontmatter values.
 */
export function scanWikilinks(text: string, from: number, to: number): WikilinkHit[] {
  const hits: WikilinkHit[] = [];
  // Search a slice: indexOf on the whole note would look past `to` every time.
  const s = text.slice(from, to);
  let i = s.indexOf('[[');
  while (i !== -1) {
    const close = findWikilinkClose(s, i);
    if (close === -1) {
      i = s.indexOf('[[', i + 1);
      continue;
    }
    const inner = s.slice(i + 2, close);
    if (inner.trim() !== '') {
      const embed = i > 0 && s.charCodeAt(i - 1) === 33; /* ! */
      hits.push({ start: from + (embed ? i - 1 : i), end: from + close + 2, embed, inner });
    }
    i = s.indexOf('[[', close + 2);
  }
  return hits;
}

export interface MarkdownLinkHit {
  start: number;
  end: number;
  image: boolean;
  label: string;
  dest: string;
}

/** `[t](dest)` / `![t](dest)` / `[t](<a b> "title")` on one line; bounded classes keep it linear. */
const MARKDOWN_LINK = /(!?)\[([^\[\]\n]*)\]\((<[^<>\n]*>|[^()\s<>]*)(?:[ \t]+"[^"\n]*")?[ \t]*\)/g;

/** Plain scan for Markdown links in text lezer does not parse inline (comments). */
export function scanMarkdownLinks(text: string, from: number, to: number): MarkdownLinkHit[] {
  const hits: MarkdownLinkHit[] = [];
  const slice = text.slice(from, to);
  for (const m of slice.matchAll(MARKDOWN_LINK)) {
    const start = from + (m.index ?? 0);
    hits.push({ start, end: start + m[0].length, image: m[1] === '!', label: m[2] ?? '', dest: m[3] ?? '' });
  }
  return hits;
}

/** Split a Markdown image's alt text into display and size: `![alt|100](x.png)`, `![100x50](x.png)`. */
export function splitImageAlt(alt: string): { display: string | null; size: string | null } {
  const bar = alt.lastIndexOf('|');
  const tail = alt.slice(bar + 1).trim();
  if (EMBED_SIZE.test(tail)) return { display: bar === -1 ? null : alt.slice(0, bar), size: tail };
  return { display: alt === '' ? null : alt, size: null };
}
