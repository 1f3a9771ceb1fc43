/**
 * store: the user's history under the data root — proposals and audit log,
 * working state, consent records — in versioned SQLite files that are never
 * silently recreated ({@link openStore}).
 */
export { openStore, storeFile, STORE_BUSY_TIMEOUT_MS, type OpenStore, type StoreDb, type StoreSpec } from './data-store.js';
