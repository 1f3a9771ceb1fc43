import { VaultgateError, isVaultgateError } from '../errors.js';
import { parseNote } from '../markdown/index.js';
import type { NoteModel } from '../markdown/types.js';
import {
  isExcluded,
  isHiddenPath,
  isMarkdownPath,
  locateOnDisk,
  readNoteFile,
  readVaultConfig,
  scanVault,
  toVaultRelative,
  type NoteFile,
} from '../vault/index.js';
import fs from 'node:fs';
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

/**
 * Validate a NOTE argument and read it: vault-relative (or absolute inside the
 * vault), a `.md` note, not in a dot-folder, a regular UTF-8 file without symlinks on its path.
 * Every refusal is a typed error with a hint (exit 2).
 */
export function readNoteArg(root: string, input: string): NoteFile {
  const rel = checkedRelative(root, input);
  if (!isMarkdownPath(rel)) {
    assertRegularFile(root, rel); // a missing file or a folder says so first
    throw new VaultgateError('INVALID_INPUT', `${rel} is not a Markdown note`, {
      path: rel,
      hint: 'Name a .md note; `vaultgate backlinks` also accepts attachments.',
    });
  }
  return readNoteFile(root, rel);
}

/**
 * Like {@link readNoteArg}, but any vault file is accepted (`backlinks photo.png`):
 * only Markdown notes are read (so a non-UTF-8 note is still refused);
 * attachments are only checked to be regular files.
 */
export function checkFileArg(root: string, input: string): string {
  const rel = checkedRelative(root, input);
  if (isMarkdownPath(rel)) return readNoteFile(root, rel).path;
  assertRegularFile(root, rel);
  return rel;
}

function assertRegularFile(root: string, rel: string): void {
  const abs = locateOnDisk(root, rel);
  if (abs === null) {
    throw new VaultgateError('NOT_FOUND', `${rel} does not exist in the vault`, {
      path: rel,
      hint: 'Check the path; `vaultgate files` lists the files of the vault.',
    });
  }
  if (!fs.lstatSync(abs).isFile()) {
    throw new VaultgateError('NOT_A_FILE', `${rel} is a folder or special file, not a file`, { path: rel, hint: 'Name a file, not a folder.' });
  }
}

function checkedRelative(root: string, input: string): string {
  if (input.trim() === '') {
    throw new VaultgateError('PATH_INVALID', 'the note path is empty', { hint: 'Give a note path relative to the vault root, e.g. `notes/idea.md`.' });
  }
  const rel = toVaultRelative(root, input);
  if (isHiddenPath(rel)) {
    throw new VaultgateError('NOT_FOUND', `${rel} is inside a dot-folder, which is not part of the vault`, {
      path: rel,
      hint: 'Obsidian ignores dot-folders (.obsidian, .trash, .git, .vaultgate); name a note outside them.',
    });
  }
  return rel;
}
