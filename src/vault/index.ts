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
export * from './dirs.js';
export * from './case-fold.js';
export * from './vault-path.js';
export * from './scan.js';
export * from './stat-path.js';
export * from './list-dirs.js';
export * from './vault-watcher.js';
export * from './watch-soundness.js';
export * from './read-file.js';
export * from './select-vault.js';
export * from './vault-config.js';
export * from './vault-id.js';
export { compilePathGlob, matchesAnyGlob, type PathGlob, type GlobOptions } from './path-glob.js';
