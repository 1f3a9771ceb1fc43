/**
 * inbox/web: the local web inbox (`vaultgate serve`), a thin face over the
 * operation table. {@link startWebInbox} serves the page (assets.ts) and the
 * JSON API (api.ts: each route one operation) under the rules of security.ts.
 */
export { startWebInbox, DEFAULT_HOST, type WebInbox, type WebInboxOptions } from './server.js';
export { ROUTES, PROPOSAL_ACTIONS, matchRoute, httpStatus } from './api.js';
export { ASSETS } from './assets.js';
export { allowedHosts, hostAllowed, originAllowed, isLoopbackAddress, cookieName, readCookie, bearer, sameSecret, SECURITY_HEADERS } from './security.js';
