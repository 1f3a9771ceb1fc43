import type { LinkKind } from '../markdown/index.js';
import type { FileIndex } from './file-index.js';
import { resolveLinkPath, type PathResolution } from './resolve-path.js';
import { parseSubpath, resolveSubpath, type AnchorSource, type SubpathResult } from './resolve-subpath.js';

/** The parts of a link resolution needs: what `Link` and `LinkSyntax` both carry. */
export interface LinkRef {
  kind: LinkKind;
  path: string;
  subpath: string | null;
}

export interface LinkResolution extends PathResolution {
  subpath: SubpathResult | null;
}

/** Returns a note's headings and block ids, or null when it cannot be read (a caller's warning). */
export type AnchorLookup = (path: string) => AnchorSource | null;

/**
 * A Markdown link with a URL scheme (`https:`, `mailto:`, `obsidian:`, `file:`) is
 * an external link, not a vault link: Obsidian opens it outside the vault. Only
 * Markdown links are tested: `[[https://x]]` stays an (unresolved) note link,
 * as Obsidian treats it (obsidian-links.md "What counts as a link").
 * Two letters at least, so a Windows drive letter (`C:`) is not mistaken for one.
 */
export function isExternalLink(link: Pick<LinkRef, 'kind' | 'path'>): boolean {
  return link.kind === 'markdown' && /^[a-z][a-z0-9+.-]+:/i.test(link.path);
}

/**
 * Resolve a whole link: the path part (resolve-path.ts), then the subpath in the
 * target note when there is exactly one Markdown target.
 *
 * Decided: a subpath is checked only in a `.md` target that is indexed. On an
 * attachment, canvas or base (`![[X.base#View]]`), on an `unindexed` target, or
 * when the path is ambiguous or unresolved, the subpath is reported with
 * `exists: null` (not checked) rather than guessed.
 */
export function resolveLink(index: FileIndex, link: LinkRef, fromPath: string, anchors: AnchorLookup): LinkResolution {
  const path = resolveLinkPath(index, link.path, fromPath);
  const parsed = parseSubpath(link.subpath);
  if (parsed === null) return { ...path, subpath: null };
  const unchecked: SubpathResult = { kind: parsed.kind, value: parsed.value, exists: null };
  if (path.status !== 'resolved' || path.target === null || !/\.md$/i.test(path.target)) {
    return { ...path, subpath: unchecked };
  }
  const note = anchors(path.target);
  return { ...path, subpath: note === null ? unchecked : resolveSubpath(note, link.subpath) };
}

/** A resolved link whose heading or block is missing: the file is right, the anchor is not. */
export function isBrokenAnchor(r: LinkResolution): boolean {
  return r.status === 'resolved' && r.subpath !== null && r.subpath.exists === false;
}
