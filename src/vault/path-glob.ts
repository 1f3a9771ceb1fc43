import { VaultgateError, type ErrorCode } from '../errors.js';

/**
 * Globs over vault paths, for the places config names parts of the vault (the
 * vault config's `areas`; a scenario's areas). Small on purpose, so a glob means
 * exactly one thing:
 *
 * - `*` matches any run of characters inside one path segment (never `/`);
 * - `?` matches one character, not `/`;
 * - `**` as a whole segment matches zero or more segments: `Books/**` matches
 *   `Books/a.md` and `Books/x/y.md`; `**\/Index.md` matches `Index.md` at any depth;
 * - everything else is literal, compared after NFC.
 *
 * Braces and character classes are refused, not read literally: a glob that
 * silently matched nothing would leave an area unprotected with no word about why.
 *
 * Why not `path.matchesGlob`: on Node 20 it is experimental (it prints a warning
 * on stderr, which agents parse) and it has no case-insensitive mode.
 */
export interface PathGlob {
  /** The glob as given (NFC). */
  readonly glob: string;
  test(path: string): boolean;
}

export interface GlobOptions {
  /**
   * Compare case-insensitively (Unicode-aware). Areas use it: on macOS and
   * Windows `imported/x.md` *is* the file under `Imported/`, so a protected area
   * must not be escaped by spelling its folder in another case.
   */
  caseInsensitive?: boolean;
}

/** Why a glob is not valid, or null. */
function globProblem(glob: string): string | null {
  if (glob.length === 0) return 'is empty';
  if (glob.includes('\\')) return 'has a backslash; use `/` between folders';
  if (glob.startsWith('/')) return 'is absolute; write it relative to the vault root';
  if (/[{}[\]]/.test(glob)) return 'uses braces or a character class, which are not supported; write one glob per alternative';
  for (const seg of glob.split('/')) {
    if (seg === '') return 'has an empty segment (`//` or a trailing `/`); write `Folder/**` for everything under a folder';
    if (seg === '.' || seg === '..') return `has a \`${seg}\` segment`;
    if (seg.includes('**') && seg !== '**') return '`**` must be a whole segment (`Folder/**`, `**/Note.md`)';
  }
  return null;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** The regular expression source of a valid glob (anchored). */
function globSource(glob: string): string {
  const segs = glob.split('/');
  let re = '^';
  segs.forEach((seg, i) => {
    const last = i === segs.length - 1;
    if (seg === '**') {
      // zero or more whole segments; as the last one, at least one (something under the folder)
      re += last ? '.+' : '(?:[^/]+/)*';
      return;
    }
    re += seg
      .split(/([*?])/)
      .map((part) => (part === '*' ? '[^/]*' : part === '?' ? '[^/]' : escapeRegex(part)))
      .join('');
    if (!last) re += '/';
  });
  return re + '$';
}

/**
 * Compile a glob, or throw `errorCode` (the caller's: CONFIG_INVALID for the
 * vault config) with a message naming `where` (the file and key it came from).
 */
export function compilePathGlob(input: string, where: string, errorCode: ErrorCode, opts: GlobOptions = {}): PathGlob {
  const glob = input.normalize('NFC');
  const problem = globProblem(glob);
  if (problem) {
    throw new VaultgateError(errorCode, `${where}: glob ${JSON.stringify(input)} ${problem}`, {
      hint: 'Globs are vault-relative: `*` within a folder name, `?` one character, `**` any number of folders (e.g. `Books/**`).',
      details: { glob: input },
    });
  }
  const regex = new RegExp(globSource(glob), opts.caseInsensitive ? 'iu' : 'u');
  return { glob, test: (p: string) => regex.test(p.normalize('NFC')) };
}

/** Whether a vault path matches any of the globs. */
export function matchesAnyGlob(globs: readonly PathGlob[], path: string): boolean {
  return globs.some((g) => g.test(path));
}
