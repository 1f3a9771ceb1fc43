import type { FileEntry, FileIndex } from './file-index.js';
import { basenameOf, cleanLinkPath, dirnameOf, linkFoldKey, hasMdExtension, joinRelative } from './fold.js';

/**
 * - `resolved`: the file Obsidian opens (`target`); `candidates` lists every
 *   matching file when more than one matched, else null.
 * - `ambiguous`: several files matched and Obsidian's pick is not determined
 *   (equal-length tie); `target` null, all `candidates`.
 * - `unresolved`: no file in the vault matches (Obsidian would create a new note).
 * - `unindexed`: the file Obsidian opens exists, but lies under the vault's
 *   configured exclusions; `target` names it so a reader knows why.
 */
export type LinkStatus = 'resolved' | 'ambiguous' | 'unresolved' | 'unindexed';

/** Which rule decided the pick: for debugging and for the conformance suite. */
export type ResolutionRule =
  | 'self' // empty path part: the source note itself
  | 'relative' // `./x`, `../x`
  | 'absolute' // `/x`
  | 'exact' // the link is a full vault path
  | 'unique' // exactly one path-suffix match
  | 'own-folder' // several matches, one in the source note's folder
  | 'shortest' // several matches, one strictly shortest path
  | 'tie' // several matches of equal shortest length: undetermined
  | 'none'; // nothing matched

export interface PathResolution {
  status: LinkStatus;
  target: string | null;
  candidates: string[] | null;
  rule: ResolutionRule;
}

const NONE: PathResolution = { status: 'unresolved', target: null, candidates: null, rule: 'none' };

/**
 * Resolve the path part of a link as Obsidian does (obsidian-links.md, "Resolving
 * the path part"). Pure: consults only the index.
 *
 * Decided rules, beyond the spec text (each tested in test/conformance/links.test.ts):
 * - `.md` is optional: `[[N]]` looks for `N.md` and for a file literally named `N`;
 *   both sets of matches compete under the same tie-breaks (so `[[v1.2 notes]]`
 *   finds `v1.2 notes.md`, `[[a.png]]` finds `a.png`). `[[N.md]]` looks only for `N.md`.
 * - `./`, `../` and `/` paths are paths, not names: they match only the exact file
 *   (case-insensitively), never a suffix elsewhere. A `../` that climbs above the
 *   vault root matches nothing.
 * - Among several files whose paths fold to the same key (`Note.md` and `note.md`),
 *   the one spelled exactly like the link wins; otherwise the normal tie-breaks apply.
 * - Own folder is compared case-insensitively, like every other path comparison.
 * - Exclusions are vaultgate's, not Obsidian's: tie-breaks run over every file
 *   Obsidian sees, and the status becomes `unindexed` when the pick is excluded.
 * - A link to a dot-folder never resolves: those files are not in the index.
 */
export function resolveLinkPath(index: FileIndex, linkPath: string, fromPath: string): PathResolution {
  const cleaned = cleanLinkPath(linkPath);
  if (cleaned === '') {
    // Rule 2: `[[#H]]` points into the source note itself.
    const self = index.byPath.get(fromPath.normalize('NFC'));
    return self ? finish([self], self, 'self') : { ...NONE, rule: 'self' };
  }
  const forms = hasMdExtension(cleaned) ? [cleaned] : [cleaned + '.md', cleaned];

  if (cleaned.startsWith('./') || cleaned.startsWith('../') || cleaned === '.' || cleaned === '..') {
    const folder = dirnameOf(fromPath.normalize('NFC'));
    const joined = forms.map((f) => joinRelative(folder, f)).filter((f): f is string => f !== null && f !== '');
    return exactOnly(index, joined, 'relative');
  }
  if (cleaned.startsWith('/')) {
    return exactOnly(index, forms.map((f) => f.replace(/^\/+/, '')), 'absolute');
  }

  // Rule 7: every file whose path ends with the link's path at a `/` boundary
  // (a bare name matches every file with that name); an exact vault path is one of
  // them and wins outright, but the others are still listed as candidates.
  const matches: FileEntry[] = [];
  for (const form of forms) {
    const want = linkFoldKey(form);
    const suffix = '/' + want;
    for (const f of index.byName.get(linkFoldKey(basenameOf(form))) ?? []) {
      if (!matches.includes(f) && (f.key === want || f.key.endsWith(suffix))) matches.push(f);
    }
  }
  if (matches.length === 0) return { ...NONE };
  const wantKeys = forms.map(linkFoldKey);
  const exact = matches.filter((f) => wantKeys.includes(f.key));
  if (exact.length > 0) return pickAmongExact(matches, exact, forms, 'exact');
  if (matches.length === 1) return finish(matches, matches[0]!, 'unique');
  return tieBreak(matches, linkFoldKey(dirnameOf(fromPath)));
}

function lookupExact(index: FileIndex, paths: string[]): FileEntry[] {
  const out: FileEntry[] = [];
  for (const p of paths) for (const f of index.byKey.get(linkFoldKey(p)) ?? []) if (!out.includes(f)) out.push(f);
  return out;
}

/** Relative and root-anchored links are paths: only the exact file matches. */
function exactOnly(index: FileIndex, paths: string[], rule: ResolutionRule): PathResolution {
  const found = lookupExact(index, paths);
  if (found.length === 0) return { ...NONE };
  return pickAmongExact(found, found, paths, rule);
}

/**
 * Several files with the same folded path (`Note.md`, `note.md`): the one spelled
 * exactly as the link wins, else the pick is undetermined. `all` is what the
 * caller reports as candidates.
 */
function pickAmongExact(all: FileEntry[], exact: FileEntry[], forms: string[], rule: ResolutionRule): PathResolution {
  if (exact.length === 1) return finish(all, exact[0]!, rule);
  const spelled = exact.filter((f) => forms.includes(f.path));
  if (spelled.length === 1) return finish(all, spelled[0]!, rule);
  return shortest(all, exact);
}

/**
 * Rule 8, as observed in the running app: the file in the source note's own folder
 * (ancestors do not count), else the strictly shortest path in UTF-16 units, else
 * undetermined. The reverse-engineered "anywhere under the source folder" rule of
 * older app code is deliberately not followed.
 */
function tieBreak(matches: FileEntry[], fromFolderKey: string): PathResolution {
  const own = matches.filter((f) => f.folderKey === fromFolderKey);
  if (own.length === 1) return finish(matches, own[0]!, 'own-folder');
  return shortest(matches, own.length > 1 ? own : matches);
}

function shortest(all: FileEntry[], pool: FileEntry[]): PathResolution {
  const min = Math.min(...pool.map((f) => f.path.length));
  const best = pool.filter((f) => f.path.length === min);
  if (best.length === 1) return finish(all, best[0]!, 'shortest');
  return { status: 'ambiguous', target: null, candidates: sortedPaths(all), rule: 'tie' };
}

function finish(all: FileEntry[], pick: FileEntry, rule: ResolutionRule): PathResolution {
  return {
    status: pick.indexed ? 'resolved' : 'unindexed',
    target: pick.path,
    candidates: all.length > 1 ? sortedPaths(all) : null,
    rule,
  };
}

function sortedPaths(files: FileEntry[]): string[] {
  return files.map((f) => f.path).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}
