/**
 * session: one vault as every face sees it ({@link VaultSession}): root,
 * identity, config and index, opened once per CLI process or once per
 * long-lived server.
 */
export { VaultSession, type VaultSessionOptions } from './vault-session.js';
export { DEFAULT_WALK_INTERVAL_MS, type Freshness, type WatchRefreshStatus } from '../index/index.js';
