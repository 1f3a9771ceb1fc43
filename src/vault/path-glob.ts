import { VaultgateError, type ErrorCode } from '../errors.js';

/**
 * Globs over vault paths, for the places config names parts of the vault
 * (a scenario's `areas`, the vault config's areas). Deliberately small, so a
 * glob means exactly one thing:
 *
 * - `*` matches any run of characters inside one path segment (not `/`);
 * - `?` matches one character, not `/`;
 * - `**` as a whole segment matches zero or more segments: `Books/**` matches
 *   `Books/a.md` and `Books/x/y.md`, `**\/Index.md` matches `Index.md` at any depth;
 * - everything else is literal, compared case-sensitively after NFC.
 *
 * Braces (`{a,b}`) and classes (`[ab]`) are refused rather than read literally:
 * a glob that silently matched nothing would make a scenario search nothing and
 * block every write, with no word about why. List one glob per alternative.
 *
 * Case-sensitive by default: a scenario's glob grants writes, and the stricter
 * reading (fewer matches) can only block more, never allow more. The vault
 * config's areas ask for `caseInsensitive`: an area glob *protects* a folder,
 * and on macOS and Windows `imported/x.md` is the file under `Imported/`, so
 * there the wider reading is the safe one.
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
  /** Compare case-insensitively (Unicode-aware): the vault config's areas. */
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

function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Compile a glob, or throw `errorCode` (the caller's, e.g. SCENARIO_INVALID)
 * with a message naming `where` (the file and key the glob came from).
 */
export function compilePathGlob(input: string, where: string, errorCode: Extract<ErrorCode, 'SCENARIO_INVALID' | 'CONFIG_INVALID'>, opts: GlobOptions = {}): PathGlob {
  const glob = input.normalize('NFC');
  const problem = globProblem(glob);
  if (problem) {
    throw new VaultgateError(errorCode, `${where}: glob ${JSON.stringify(input)} ${problem}`, {
      hint: 'Globs are vault-relative: `*` within a folder name, `?` one character, `**` any number of folders (e.g. `Books/**`).',
      details: { glob: input },
    });
  }
  const segs = glob.split('/');
  let re = '^';
  segs.forEach((seg, i) => {
    const last = i === segs.length - 1;
    if (seg === '**') {
      // zero or more whole segments; as the last segment, at least one (a path under the folder)
      re += last ? '.+' : '(?:[^/]+/)*';
      return;
    }
    re += seg
      .split(/([*?])/)
      .map((part) => (part === '*' ? '[^/]*' : part === '?' ? '[^/]' : escapeRegex(part)))
      .join('');
    if (!last) re += '/';
  });
  const regex = new RegExp(re + '$', opts.caseInsensitive ? 'iu' : 'u');
  return { glob, test: (p: string) => regex.test(p.normalize('NFC')) };
}

/** Whether a vault path matches any of the globs. */
export function matchesAnyGlob(globs: readonly PathGlob[], path: string): boolean {
  return globs.some((g) => g.test(path));
}
