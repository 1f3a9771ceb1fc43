import type { Link } from '../markdown/index.js';
import { encodeMarkdownPath } from './link-text.js';

/**
 * A link's text with its path part, or one heading of its subpath, replaced —
 * and nothing else: display text (`|alias`), subpath, embed `!` and size
 * (`|100`), the escaped `\|` of tables, surrounding spaces, and the link's
 * style (wikilink or Markdown; `.md` as the caller writes it; a Markdown
 * destination percent-encoded or in `<…>`, and whether it encodes non-ASCII
 * characters) stay as written. Pure; what the new text resolves to is the
 * caller's to check (it parses the note back).
 */

/** The parts of a link's raw text, as offsets into it. */
interface Anatomy {
  /** The path part as written (before any `#`), between these offsets. */
  pathStart: number;
  pathEnd: number;
  /** The subpath as written, `#` included (empty when none), ends here. */
  subpathEnd: number;
  style: 'wiki' | 'angle' | 'encoded';
}

/** A path a wikilink can carry: no `|`, `#`, `^`, brackets or line breaks (Obsidian's own rule for link names). */
const WIKI_UNSAFE = /[|#^[\]\r\n]/;
/** Inside a YAML string a frontmatter link lives in, quotes, backslashes and `: `/` #` could end or change the value. */
const YAML_UNSAFE = /["'\\]|: | #/;

function wikiAnatomy(raw: string): Anatomy | null {
  const open = raw.startsWith('![[') ? 3 : raw.startsWith('[[') ? 2 : -1;
  if (open < 0 || !raw.endsWith(']]')) return null;
  const innerEnd = raw.length - 2;
  const bar = raw.indexOf('|', open);
  let targetEnd = bar === -1 || bar >= innerEnd ? innerEnd : bar;
  if (targetEnd > open && raw[targetEnd - 1] === '\\' && targetEnd !== innerEnd) targetEnd--; // `\|` in tables
  const hash = raw.indexOf('#', open);
  const pathEnd = hash !== -1 && hash < targetEnd ? hash : targetEnd;
  return { pathStart: open, pathEnd, subpathEnd: targetEnd, style: 'wiki' };
}

/** `[label](dest "title")`: where the destination is. Labels may hold balanced brackets and escapes. */
function markdownAnatomy(raw: string): Anatomy | null {
  let i = raw.startsWith('![') ? 2 : raw.startsWith('[') ? 1 : -1;
  if (i < 0) return null;
  let depth = 1;
  for (; i < raw.length; i++) {
    const c = raw[i];
    if (c === '\\') {
      i++;
      continue;
    }
    if (c === '[') depth++;
    else if (c === ']' && --depth === 0) break;
  }
  if (raw[i] !== ']' || raw[i + 1] !== '(') return null;
  i += 2;
  while (raw[i] === ' ' || raw[i] === '\t') i++;
  if (raw[i] === '<') {
    const close = raw.indexOf('>', i + 1);
    if (close === -1) return null;
    const hash = raw.indexOf('#', i + 1);
    return { pathStart: i + 1, pathEnd: hash !== -1 && hash < close ? hash : close, subpathEnd: close, style: 'angle' };
  }
  let end = i;
  let parens = 0;
  for (; end < raw.length; end++) {
    const c = raw[end]!;
    if (c === '\\') {
      end++;
      continue;
    }
    if (/\s/.test(c)) break;
    if (c === '(') parens++;
    if (c === ')') {
      if (parens === 0) break;
      parens--;
    }
  }
  const hash = raw.indexOf('#', i);
  return { pathStart: i, pathEnd: hash !== -1 && hash < end ? hash : end, subpathEnd: end, style: 'encoded' };
}

function anatomy(link: Pick<Link, 'kind' | 'raw'>): Anatomy | null {
  if (link.kind === 'markdown') return markdownAnatomy(link.raw);
  if (link.kind === 'embed') return wikiAnatomy(link.raw) ?? markdownAnatomy(link.raw);
  return wikiAnatomy(link.raw);
}

/** Whether a Markdown destination was written with its non-ASCII characters percent-encoded (UTF-8 lead bytes). */
function encodesNonAscii(written: string): boolean {
  return /%[c-fC-F][0-9a-fA-F]%[89abAB][0-9a-fA-F]/.test(written);
}

/** How a new path is written in the link's syntax, or null when that syntax cannot carry it. */
function writePath(link: Pick<Link, 'kind'>, a: Anatomy, written: string, path: string): string | null {
  if (path === '') return null;
  if (a.style === 'wiki') {
    if (WIKI_UNSAFE.test(path) || path.includes(']]')) return null;
    if (link.kind === 'frontmatter' && YAML_UNSAFE.test(path)) return null;
    return path;
  }
  // a destination is decoded before it is split at its first `#`: no path part can hold one
  if (path.includes('#')) return null;
  if (a.style === 'angle') {
    // decoded when read, like any destination: a literal `%` is written %25
    if (/[<>\r\n]/.test(path)) return null;
    // …and a `:` is encoded so that `note: x.md` never reads as a URI scheme
    return path.replace(/[%:]/g, (c) => (c === '%' ? '%25' : '%3A'));
  }
  return encodeMarkdownPath(path, encodesNonAscii(written));
}

/**
 * The link with its path part replaced by `path` (the path as it should read
 * after parsing: decoded, `.md` as the caller wants it). Spaces around a
 * wikilink's path stay. Null when the link's syntax cannot carry that path.
 */
export function retargetLinkPath(link: Pick<Link, 'kind' | 'raw'>, path: string): string | null {
  const a = anatomy(link);
  if (a === null) return null;
  const written = link.raw.slice(a.pathStart, a.pathEnd);
  const lead = a.style === 'wiki' ? /^\s*/.exec(written)![0].length : 0;
  const trail = a.style === 'wiki' ? /\s*$/.exec(written.slice(lead))![0].length : 0;
  const out = writePath(link, a, written, path);
  if (out === null) return null;
  return link.raw.slice(0, a.pathStart + lead) + out + link.raw.slice(a.pathEnd - trail);
}

/**
 * The link with the heading segments of its subpath at `positions` (indexes
 * among the non-empty segments, as `parseSubpath` counts them) replaced by
 * `heading`. Empty segments (`[[N##H]]`) stay as written. Null when the link
 * has no such segment or its syntax cannot carry the heading.
 */
export function retargetLinkHeading(link: Pick<Link, 'kind' | 'raw'>, positions: readonly number[], heading: string): string | null {
  const a = anatomy(link);
  if (a === null || a.pathEnd === a.subpathEnd) return null;
  let text: string;
  if (a.style === 'wiki') {
    if (WIKI_UNSAFE.test(heading) || (link.kind === 'frontmatter' && YAML_UNSAFE.test(heading))) return null;
    text = heading;
  } else if (a.style === 'angle') {
    if (/[<>#\r\n]/.test(heading)) return null;
    text = heading.replace(/%/g, '%25');
  } else {
    if (heading.includes('#')) return null;
    text = encodeMarkdownPath(heading, encodesNonAscii(link.raw.slice(a.pathStart, a.subpathEnd)));
  }
  const segments = link.raw.slice(a.pathEnd + 1, a.subpathEnd).split('#');
  let n = -1;
  let hit = false;
  const out = segments.map((s) => {
    if (s === '') return s;
    n++;
    if (!positions.includes(n)) return s;
    hit = true;
    return text;
  });
  if (!hit) return null;
  return link.raw.slice(0, a.pathEnd + 1) + out.join('#') + link.raw.slice(a.subpathEnd);
}
