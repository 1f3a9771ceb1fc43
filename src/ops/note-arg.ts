import { VaultgateError, isVaultgateError } from '../errors.js';
import type { VaultSession } from '../session/index.js';

/**
 * One way to read a NOTE argument, for every verb that takes one (`note`,
 * `links`, `backlinks`, `similar`, `relate prepare`): first as a vault path,
 * exactly as the verb always read it; when no file is there (NOT_FOUND), as the
 * name people type — `Name`, `Name.md` or `[[Name]]` — resolved as Obsidian
 * resolves `[[Name]]` in a note at the vault root. A name that fits several
 * notes is `NOTE_AMBIGUOUS` with the candidates; a name that fits none gives the
 * path's own NOT_FOUND, so a typo reads as it always did.
 */

/** `[[Name]]`, `[[Name|alias]]`, `[[Name#Heading]]` → `Name`; `Name.md` → `Name`. */
function linkName(arg: string): string {
  const wiki = /^\[\[([^\]|#]*)(?:[|#][^\]]*)?\]\]$/.exec(arg.trim());
  return (wiki ? wiki[1]!.trim() : arg).replace(/\.md$/i, '');
}

/**
 * The vault path a name resolves to from the vault root, or null. Ambiguous:
 * NOTE_AMBIGUOUS. `anyFile`: an attachment may be the answer (`backlinks`);
 * otherwise only a Markdown note is.
 */
async function pathOfName(session: VaultSession, arg: string, anyFile: boolean): Promise<string | null> {
  const name = linkName(arg);
  if (name === '') return null;
  const { resolveLinkPath } = await import('../links/index.js');
  const { fileIndexFromDb } = await import('../index/index.js');
  const r = session.read((h) => resolveLinkPath(fileIndexFromDb(h.db), name, '')).result;
  if (r.status === 'ambiguous' && r.candidates) {
    throw new VaultgateError('NOTE_AMBIGUOUS', `${JSON.stringify(arg)} names ${r.candidates.length} notes: ${r.candidates.join(', ')}`, {
      details: { candidates: r.candidates },
      hint: 'Give the path of the one you mean.',
    });
  }
  if (r.status !== 'resolved' || !r.target || (!anyFile && !/\.md$/i.test(r.target))) return null;
  return r.target;
}

export interface NoteArgRead<T> {
  value: T;
  /** The argument as given, when it was a name and not the note's path. */
  resolvedFrom?: string;
}

/**
 * Runs `read` on the note `arg` names: as a path first; on NOT_FOUND, on the
 * path its name resolves to (see the module comment).
 */
export async function readNoteByArg<T>(
  session: VaultSession,
  arg: string,
  read: (path: string) => T | Promise<T>,
  opts: { anyFile?: boolean } = {},
): Promise<NoteArgRead<T>> {
  try {
    return { value: await read(arg) };
  } catch (e) {
    if (!(isVaultgateError(e) && e.code === 'NOT_FOUND')) throw e;
    const target = await pathOfName(session, arg, opts.anyFile ?? false);
    if (target === null || target === arg) throw e;
    return { value: await read(target), resolvedFrom: arg };
  }
}
