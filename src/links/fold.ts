/**
 * Path comparison keys for link resolution.
 *
 * Obsidian matches link paths case-insensitively (Latin and Cyrillic alike) and
 * compares NFC forms (obsidian-links.md "Resolving the path part" rule 4). A key is
 * therefore `NFC → toLowerCase → NFC`: lower-casing can in rare cases produce a
 * decomposed sequence (e.g. `İ` → `i̇`), so we normalise again to keep keys
 * comparable with other keys built the same way. We do not use `toLocaleLowerCase`:
 * the result must not depend on the machine's locale.
 *
 * This is *not* the fold the transaction engine uses to find names a case-insensitive
 * filesystem would store as one (`filesystemFoldKey` in the vault module, which also
 * maps `ß` to `ss` and `ſ` to `s`): Obsidian's link lookup does not fold those, so
 * `[[Straße]]` does not find `STRASSE.md`. Two folds, two names.
 */
export function linkFoldKey(s: string): string {
  // ASCII is its own NFC form: two ICU calls saved on most paths (~270 ns a key;
  // a cold index of 10k notes folds ~250k of them resolving links).
  return ASCII.test(s) ? s.toLowerCase() : s.normalize('NFC').toLowerCase().normalize('NFC');
}

const ASCII = /^[\x00-\x7f]*$/;

/**
 * Clean a link path the way Obsidian's `normalizePath` does before looking it up
 * (documented in the API typings): NFC, non-breaking spaces become spaces, runs of
 * `/` collapse to one. Surrounding whitespace is trimmed: `[[ Note ]]` links to
 * `Note` (decided; Obsidian's wikilink parser trims the target).
 * A leading `/` is kept: it marks a root-anchored path (rule 6).
 */
export function cleanLinkPath(linkPath: string): string {
  return linkPath
    .normalize('NFC')
    .replace(/\u00a0/g, ' ')
    .replace(/\/{2,}/g, '/')
    .trim();
}

/** The folder part of a vault path (`a/b/c.md` → `a/b`, `c.md` → ``). */
export function dirnameOf(p: string): string {
  const i = p.lastIndexOf('/');
  return i < 0 ? '' : p.slice(0, i);
}

/** The last segment of a path (`a/b/c.md` → `c.md`). */
export function basenameOf(p: string): string {
  return p.slice(p.lastIndexOf('/') + 1);
}

/**
 * Join a `./` or `../` link path onto a folder, lexically. Returns null when the
 * path climbs above the vault root: such a link cannot name a vault file.
 */
export function joinRelative(folder: string, rel: string): string | null {
  const out = folder === '' ? [] : folder.split('/');
  for (const seg of rel.split('/')) {
    if (seg === '' || seg === '.') continue;
    if (seg === '..') {
      if (out.length === 0) return null;
      out.pop();
    } else out.push(seg);
  }
  return out.join('/');
}

/** Whether a link path ends in `.md` (case-insensitive): then `.md` is not appended again. */
export function hasMdExtension(p: string): boolean {
  return /\.md$/i.test(p);
}
