import { VaultgateError } from '../errors.js';
import { parseLinkSyntax } from '../markdown/index.js';
import type { FileIndex } from './file-index.js';
import { basenameOf, dirnameOf } from './fold.js';
import { resolveLinkPath } from './resolve-path.js';

/**
 * How Obsidian writes new links (`.obsidian/app.json`): `newLinkFormat`
 * (`shortest` | `relative` | `absolute`) and `useMarkdownLinks`. Obsidian's
 * defaults are `shortest` and wikilinks.
 */
export interface LinkFormat {
  newLinkFormat: 'shortest' | 'relative' | 'absolute';
  useMarkdownLinks: boolean;
}

export const DEFAULT_LINK_FORMAT: LinkFormat = { newLinkFormat: 'shortest', useMarkdownLinks: false };

export interface LinkText {
  /** The link as written into the note: `[[vaultgate/Decisions]]`, `[Decisions](../Projects/vaultgate/Decisions.md)`. */
  text: string;
  /** The link's path part as written (before percent-encoding, for Markdown links). */
  path: string;
  /** The resolution rule that picks the target from the source (`unique`, `own-folder`, `exact`, …). */
  rule: string;
}

/**
 * The link text, written into `from`, that names exactly `target`: generated
 * in the vault's link format and checked by parsing it back and resolving it
 * from `from` with Obsidian's rules (resolve-path.ts). Pure.
 *
 * - `shortest`: the shortest path suffix that resolves to the target — the bare
 *   name when it does (`[[Cache lifetime]]`), else one more folder at a time
 *   (`[[ops/Cache lifetime]]`), up to the whole path. Obsidian itself jumps from
 *   the bare name straight to the whole path; a suffix resolves identically in
 *   Obsidian (path-suffix rule) and is what the issue asks for: the shortest
 *   text that names exactly the chosen file.
 * - `relative`: `./Name` or `../folder/Name`, relative to the source note's folder.
 * - `absolute`: the whole vault path.
 *
 * Markdown targets drop `.md` in wikilinks and keep it in Markdown links (as
 * Obsidian writes them); Markdown link paths are percent-encoded where the
 * syntax needs it. When no candidate resolves to exactly the target (two files
 * differing only by case, a name wikilinks cannot carry) the format's other
 * forms are tried, then LINK_AMBIGUOUS.
 */
export function linkTextFor(index: FileIndex, target: string, from: string, format: LinkFormat = DEFAULT_LINK_FORMAT, display?: string): LinkText {
  const isNote = /\.md$/i.test(target);
  const bare = isNote ? target.slice(0, -3) : target;
  const ordered = linkPathCandidates(target, from, format);
  const forms: Array<'wiki' | 'markdown'> = format.useMarkdownLinks ? ['markdown', 'wiki'] : ['wiki', 'markdown'];
  for (const form of forms) {
    for (const p of ordered) {
      const text = form === 'wiki' ? wikilink(p, display) : markdownLink(isNote ? p + '.md' : p, display ?? basenameOf(bare));
      if (text === null) continue;
      let parsed: ReturnType<typeof parseLinkSyntax>;
      try {
        parsed = parseLinkSyntax(text);
      } catch {
        continue;
      }
      const r = resolveLinkPath(index, parsed.path, from);
      if ((r.status === 'resolved' || r.status === 'unindexed') && r.target === target && parsed.subpath === null) return { text, path: parsed.path, rule: r.rule };
    }
  }
  throw noLinkText(target, from);
}

/** LINK_AMBIGUOUS: no text written in `from` names exactly `target`. */
export function noLinkText(target: string, from: string): VaultgateError {
  return new VaultgateError('LINK_AMBIGUOUS', `no link written in ${from} names exactly ${target}`, {
    path: from,
    details: { target, from },
    hint: 'Another file has the same path up to case or Unicode normalisation, or the name has characters no link can carry; rename one of the files.',
  });
}

/**
 * The path parts a link written in `from` may use to name `target`, in the
 * order the vault's `newLinkFormat` prefers them, then the other forms as
 * fallbacks (a caller keeps the first that resolves to exactly the target in
 * its syntax). Notes without `.md`, other files with their extension.
 * - `shortest`: the bare name, then one more folder at a time, up to the whole path;
 * - `relative`: `./Name`, `../folder/Name`;
 * - `absolute`: the whole vault path.
 * Pure: resolving each candidate is the caller's (it knows the link's syntax).
 */
export function linkPathCandidates(target: string, from: string, format: LinkFormat = DEFAULT_LINK_FORMAT): string[] {
  const isNote = /\.md$/i.test(target);
  const bare = isNote ? target.slice(0, -3) : target;
  const suffixes = bare.split('/').map((_, i, parts) => parts.slice(i).join('/')).reverse();
  const relative = relativePath(dirnameOf(from), bare);
  const ordered: string[] =
    format.newLinkFormat === 'absolute' ? [bare] : format.newLinkFormat === 'relative' ? [relative, bare] : [...suffixes];
  // Fallbacks: the other forms, in case the preferred one cannot name the file.
  for (const p of [...suffixes, relative, bare, '/' + bare]) if (!ordered.includes(p)) ordered.push(p);
  return ordered;
}

/**
 * A path written as a Markdown link destination without angle brackets:
 * `%`, whitespace and the characters a destination cannot hold unescaped are
 * percent-encoded (`My Note.md` → `My%20Note.md`); with `nonAscii`, every
 * non-ASCII character too (UTF-8, as `encodeURI` does), for links written that
 * way. `parseMarkdownDestination` decodes it back to the same path.
 */
export function encodeMarkdownPath(p: string, nonAscii = false): string {
  // `:` is encoded too: a file named `note: draft.md` written raw would read back as a URI scheme (an external link).
  const pattern = nonAscii ? /[%\s()<>#^[\]\\`:]|[^\x00-\x7f]/gu : /[%\s()<>#^[\]\\`:]/g;
  return p.replace(pattern, (c) => encodeURIComponent(c).replace(/[()]/g, (x) => `%${x.charCodeAt(0).toString(16).toUpperCase()}`));
}

/** `[[path]]` or `[[path|display]]`; null when the path holds characters a wikilink cannot carry. */
function wikilink(p: string, display?: string): string | null {
  if (/[|[\]#^\n\r]/.test(p) || (display !== undefined && /[[\]\n\r]/.test(display))) return null;
  return display === undefined ? `[[${p}]]` : `[[${p}|${display}]]`;
}

/** `[display](encoded path)`: spaces and the characters a destination cannot hold are percent-encoded. */
function markdownLink(p: string, display: string): string | null {
  if (/[\n\r]/.test(p + display)) return null;
  const dest = encodeMarkdownPath(p);
  // Brackets in the shown text would end it early: they are left out of it (the path keeps them, encoded).
  return `[${display.replace(/[[\]\\]/g, '').replace(/\s{2,}/g, ' ').trim() || 'link'}](${dest})`;
}

/** `to` (a vault path) relative to `folder`: `./Name`, `../x/Name`. */
function relativePath(folder: string, to: string): string {
  const from = folder === '' ? [] : folder.split('/');
  const parts = to.split('/');
  let common = 0;
  while (common < from.length && common < parts.length - 1 && from[common] === parts[common]) common++;
  const up = from.length - common;
  const rest = parts.slice(common).join('/');
  return up === 0 ? `./${rest}` : `${'../'.repeat(up)}${rest}`;
}
