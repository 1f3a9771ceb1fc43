import { isVaultgateError } from '../errors.js';
import { parseNote } from '../markdown/index.js';
import type { NoteModel } from '../markdown/index.js';
import { isExcluded, isMarkdownPath, readNoteFile, readVaultConfig, scanVault } from '../vault/index.js';
import { buildFileIndex, type FileIndex } from './file-index.js';
import type { AnchorLookup } from './resolve-link.js';

/** A per-file problem met while reading the whole vault: reported, never fatal (reads go on). */
export interface LinkWarning {
  path: string;
  code: string;
  message: string;
}

/**
 * The vault as link commands see it: the file index plus lazily read and parsed
 * notes. This is the seam the SQLite index will replace: everything above it
 * (vault-links.ts, check-vault.ts) asks only for `index`, `notePaths()` and `note()`.
 * Read-only: nothing here writes, in the vault or anywhere else.
 */
export interface VaultView {
  root: string;
  index: FileIndex;
  /** Every file the scanner saw, with its on-disk name (for NFC collision checks). */
  scanned: readonly { path: string; diskPath: string }[];
  /** Scan and read problems so far (symlinks skipped, non-UTF-8 or oversized notes). */
  warnings: LinkWarning[];
  /** Indexed Markdown notes (not excluded), sorted by path. */
  notePaths(): string[];
  /** The parsed note, or null (with a warning) when it cannot be read. Cached. */
  note(path: string): NoteModel | null;
  anchors: AnchorLookup;
}

export interface VaultViewOptions {
  /** Notes larger than this (bytes) are skipped with a FILE_TOO_LARGE warning. Default: the vault read limit. */
  maxNoteBytes?: number;
}

export function openVaultView(root: string, opts: VaultViewOptions = {}): VaultView {
  const config = readVaultConfig(root);
  const scan = scanVault(root);
  const warnings: LinkWarning[] = scan.warnings.map((w) => ({ path: w.path, code: w.code, message: w.message }));
  const index = buildFileIndex(scan.files.map((f) => ({ path: f.path, indexed: !isExcluded(config, f.path) })));
  const cache = new Map<string, NoteModel | null>();
  const note = (path: string): NoteModel | null => {
    if (cache.has(path)) return cache.get(path)!;
    let model: NoteModel | null = null;
    try {
      model = parseNote(readNoteFile(root, path, opts.maxNoteBytes).text);
    } catch (e) {
      if (!isVaultgateError(e)) throw e;
      warnings.push({ path, code: e.code, message: e.message });
    }
    cache.set(path, model);
    return model;
  };
  return {
    root,
    index,
    scanned: scan.files,
    warnings,
    notePaths: () => index.files.filter((f) => f.indexed && isMarkdownPath(f.path)).map((f) => f.path),
    note,
    anchors: note,
  };
}
