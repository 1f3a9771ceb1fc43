/**
 * vault: everything that touches the vault folder for reading, and the path rules
 * the transaction engine reuses for writing.
 *
 * - {@link selectVault}: which vault (option, env, machine config).
 * - {@link filesystemFoldKey}: the key of names a case-insensitive disk stores as one.
 * - {@link normalizeVaultPath} / {@link locateOnDisk} / {@link assertNoSymlinkComponents}: confined paths.
 * - {@link scanVault}: the files Obsidian sees (no dot-folders, no symlinks);
 *   {@link statVaultPath}: one path as the walk would see it.
 * - {@link VaultWatcher}: a folder watch (chokidar) that says which paths may
 *   have changed, or that a reader must walk; {@link watchUnsoundReason}: where
 *   a watcher cannot see every change (network and FUSE filesystems).
 * - {@link readNoteFile}: safe, size-bounded, strict UTF-8 reads with the byte hash.
 * - {@link readVaultConfig}: per-vault settings (exclusions, captures folder, areas and owners, managed-block markers).
 * - {@link vaultIdentity} / {@link predictVaultId}: the vault identity approvals and caches bind to.
 * - {@link compilePathGlob}: globs over vault paths (`Books/**`), as config names parts of the vault.
 */
export { dataRoots, privateDir, privateFile, writePrivateFile } from './dirs.js';
export { filesystemFoldKey } from './case-fold.js';
export { MAX_COMPONENT_BYTES, MAX_PATH_BYTES, assertNoSymlinkComponents, isHiddenPath, isReservedPath, locateOnDisk, normalizeVaultPath, toVaultRelative } from './vault-path.js';
export { RACY_MS, isMarkdownPath, scanVault, statWalk, type ScanTree, type ScanWarning, type StatWalk, type VaultFile } from './scan.js';
export { fileStamp, statVaultPath } from './stat-path.js';
export { VaultWatcher, type ChangeFeed, type WatchDelta, type WatchStatus } from './vault-watcher.js';
export { watchUnsoundReason } from './watch-soundness.js';
export { decodeUtf8, noteReader, readNoteFile, readOpen, readVaultBytes, readWalkedBytes, sha256Hex, type NoteFile, type WalkedFile } from './read-file.js';
export { machineConfigPath, readMachineConfig, selectVault, type VaultSelection } from './select-vault.js';
export { areaRuleFor, exclusionKey, isExcluded, readVaultConfig, vaultConfigPath, type ManagedMarker, type VaultConfig, type VaultConfigCache } from './vault-config.js';
export { predictVaultId, readVaultId, vaultCacheKey, vaultIdentity, vaultgateDir } from './vault-id.js';
export { compilePathGlob, matchesAnyGlob, type PathGlob, type GlobOptions } from './path-glob.js';
