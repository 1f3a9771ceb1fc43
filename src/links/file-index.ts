import { basenameOf, dirnameOf, linkFoldKey } from './fold.js';

/** One vault file as link resolution needs it. */
export interface IndexedFile {
  /** Canonical vault-relative path (NFC, `/`-separated). */
  path: string;
  /**
   * False for files under the vault's configured exclusions (`index.exclude`).
   * Obsidian still sees them, so they take part in tie-breaks; a link whose pick
   * is such a file is reported `unindexed` (see resolve-path.ts).
   */
  indexed: boolean;
}

/** A file with its precomputed comparison keys. */
export interface FileEntry extends IndexedFile {
  /** linkFoldKey(path). */
  key: string;
  /** linkFoldKey(folder of path). */
  folderKey: string;
}

/**
 * Lookup tables over the vault's file list. Pure data: build it once per scan
 * (or from the SQLite index later) and resolve any number of links against it.
 *
 * Files in dot-folders must not be in the list at all: Obsidian does not see them
 * (obsidian-links.md rule 10), and the scanner already skips them. The builder drops
 * any that slip through, so a caller cannot make `.trash/x.md` resolvable by mistake.
 */
export interface FileIndex {
  readonly files: readonly FileEntry[];
  /** linkFoldKey(path) → files with that key (more than one only for case/NFC collisions). */
  readonly byKey: ReadonlyMap<string, readonly FileEntry[]>;
  /** linkFoldKey(basename with extension) → files with that name anywhere in the vault. */
  readonly byName: ReadonlyMap<string, readonly FileEntry[]>;
  /** Exact canonical path → file. */
  readonly byPath: ReadonlyMap<string, FileEntry>;
}

function isHidden(p: string): boolean {
  return p.split('/').some((seg) => seg.startsWith('.'));
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

export function buildFileIndex(files: Iterable<IndexedFile>): FileIndex {
  const entries: FileEntry[] = [];
  const byKey = new Map<string, FileEntry[]>();
  const byName = new Map<string, FileEntry[]>();
  const byPath = new Map<string, FileEntry>();
  for (const f of files) {
    const path = f.path.normalize('NFC');
    if (path === '' || isHidden(path) || byPath.has(path)) continue;
    const entry: FileEntry = { path, indexed: f.indexed, key: linkFoldKey(path), folderKey: linkFoldKey(dirnameOf(path)) };
    entries.push(entry);
    byPath.set(path, entry);
    push(byKey, entry.key, entry);
    push(byName, linkFoldKey(basenameOf(path)), entry);
  }
  return { files: entries, byKey, byName, byPath };
}

/**
 * Groups of distinct files whose paths fold to the same key: same text up to case
 * (`Note.md` / `note.md`) or, via the scanner, up to Unicode normalisation. On a
 * case-insensitive disk (macOS, Windows) they cannot coexist; in Obsidian they are
 * one link target, so every bare link to them is ambiguous.
 */
export function pathCollisions(index: FileIndex): FileEntry[][] {
  return [...index.byKey.values()].filter((g) => g.length > 1).map((g) => [...g]);
}
