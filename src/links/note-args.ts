import fs from 'node:fs';
import { VaultgateError } from '../errors.js';
import { parseLinkSyntax, type LinkSyntax } from '../markdown/index.js';
import { isExternalLink } from './resolve-link.js';
import { isHiddenPath, isMarkdownPath, locateOnDisk, readNoteFile, toVaultRelative, type NoteFile } from '../vault/index.js';

/*
 * The NOTE arguments of the link commands. Bad input is refused before any
 * vault-wide work, each time with a typed error, the place and a next step
 * (exit 2): outside the vault (after resolving `..`), a symlink on the path, a folder, a dot-folder,
 * a missing file, a non-UTF-8 or oversized note.
 */

/**
 * Validate a NOTE argument and read it: vault-relative (or absolute inside the
 * vault; `.` and `..` resolved first), a `.md` note (`impliedMd`: `.md` may be omitted), not in a dot-folder, a regular UTF-8 file without symlinks on its path.
 * Every refusal is a typed error with a hint (exit 2).
 */
export function readNoteArg(root: string, input: string, opts: { impliedMd?: boolean } = {}): NoteFile {
  let rel = checkedRelative(root, input);
  // After normalising, so a refusal quotes what was typed, not `passwd.md`.
  if (opts.impliedMd && !/\.md$/i.test(rel)) rel += '.md';
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

/**
 * The LINK and NOTE arguments of `resolve LINK --from NOTE`: the link as written
 * (`[[A#B|c]]`, `[t](a%20b.md)`, a bare target), parsed as a note would parse
 * it, and the checked source file. An empty link or a URL is refused (exit 2).
 * Without a source (`from` undefined) the link is resolved as written in a note
 * at the vault root (`source` is `''`): what people mean by "what does [[T]]
 * name", and what a note at the top of the vault sees.
 */
export function readLinkArgs(root: string, linkText: string, from: string | undefined): { source: string; syntax: LinkSyntax } {
  if (linkText.trim() === '') {
    throw new VaultgateError('LINK_EMPTY', 'the link is empty', {
      hint: 'Give the link as written in a note, e.g. `[[Note#Heading]]`, or a bare target such as `Note`.',
    });
  }
  // Any vault file may be the source (a canvas links too); only its folder matters.
  const source = from === undefined ? '' : checkFileArg(root, from);
  const syntax = parseLinkSyntax(linkText);
  if (isExternalLink(syntax)) {
    throw new VaultgateError('LINK_INVALID', `${linkText} is an external URL, not a link into the vault`, {
      details: { path: syntax.path },
      hint: 'Give a wikilink or a Markdown link to a vault file.',
    });
  }
  return { source, syntax };
}

function assertRegularFile(root: string, rel: string): void {
  const abs = locateOnDisk(root, rel);
  if (abs === null) {
    throw new VaultgateError('NOT_FOUND', `${rel} does not exist in the vault`, {
      path: rel,
      hint: 'Check the path (vault-relative, with its extension); `vaultgate search` finds notes by their content.',
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
