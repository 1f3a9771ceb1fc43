/**
 * policy: what may be written at all. Review (src/proposals) hands policy the
 * proposed files ({@link ProposedFile}) and gets named checks back
 * ({@link ReviewCheck}); policy knows nothing of how proposals are stored.
 *
 * - {@link areaOf} / {@link checkOwners}: area owners from the vault config
 *   (first matching glob wins; only `human` areas are writable).
 * - {@link findManagedBlocks} / {@link checkManagedBlocks}: `%%NAME-managed%%`
 *   blocks (and configured markers) that belong to a plugin or importer.
 */
export type { ProposedFile, ReviewCheck, AreaOwner } from './types.js';
export { areaOf, checkOwners, touchedPaths, type AreaOf } from './areas.js';
export { findManagedBlocks, checkManagedBlocks, type ManagedBlock } from './managed-blocks.js';
