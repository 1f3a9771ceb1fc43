/**
 * links: Obsidian link resolution, exactly as the app resolves links
 * (../shared/obsidian-links.md is the spec; every rule we had to decide is written
 * next to the code that applies it and tested in test/conformance/links.test.ts).
 *
 * Pure core (no I/O):
 * - {@link buildFileIndex} → {@link FileIndex}: the vault's file list with
 *   case-folded NFC lookups by path and by file name; excluded files flagged.
 * - {@link resolveLinkPath} → {@link PathResolution}: the path part of a link:
 *   `resolved` | `ambiguous` | `unresolved` | `unindexed`, target and candidates.
 * - {@link stripHeading}, {@link resolveSubpath} → {@link SubpathResult}: headings
 *   (nested `#A#B`) and blocks (`#^id`) inside a parsed note.
 * - {@link resolveLink}: both together, for one link.
 *
 * Vault operations (read-only I/O, the seam the SQLite index will replace):
 * - {@link openVaultView}: scan + lazily parse the vault.
 * - {@link resolveInVault}, {@link noteLinks}, {@link backlinks}, {@link checkVault}:
 *   what the `resolve`, `links`, `backlinks` and `check` commands return.
 * - {@link readLinkFormat}: the vault's `.obsidian/app.json` settings for new links
 *   (plan, proposals and atomize write links the way Obsidian would).
 */
export { basenameOf, cleanLinkPath, hasMdExtension, linkFoldKey } from './fold.js';
export { buildFileIndex, type FileIndex } from './file-index.js';
export { resolveLinkPath, type LinkStatus, type PathResolution } from './resolve-path.js';
export { headingKey, stripHeading } from './strip-heading.js';
export { matchHeadingPath, parseSubpath, resolveSubpath, type AnchorSource } from './resolve-subpath.js';
export { isExternalLink, resolveLink, type AnchorLookup, type LinkResolution } from './resolve-link.js';
export { DEFAULT_LINK_FORMAT, encodeMarkdownPath, linkPathCandidates, linkTextFor, noLinkText, type LinkFormat } from './link-text.js';
export { readLinkFormat } from './link-format.js';
export { openVaultView, type VaultView } from './vault-view.js';
export { checkFileArg, readLinkArgs, readNoteArg } from './note-args.js';
export { backlinks, noteLinks, resolveInVault, type BacklinkReport, type NoteLinkReport, type ResolveResult } from './vault-links.js';
export { checkVault, type VaultHealth } from './check-vault.js';
export { retargetLinkHeading, retargetLinkPath } from './retarget-link.js';
