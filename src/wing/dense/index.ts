/**
 * dense: optional fusion of embedding similarity into `search` and `context`
 * (issue 9). Off unless the machine config has `search.embeddings`; then the
 * query is embedded by the configured provider (the consent rule of
 * src/wing/providers applies), section vectors are read from the store
 * `similar --provider` fills (src/wing/similar), and dense ranks are fused with the
 * lexical ones by reciprocal rank — gated by the query's script and by how
 * well the two rankings agree.
 *
 * - {@link startDense} / {@link prepareDense} → {@link DenseRun} (or null: not configured, nothing changes);
 * - {@link DenseRun.searchRead}: a search whose query embedding overlaps its lexical ranking (long-lived faces);
 * - {@link DenseRun.search} / {@link DenseRun.contextCandidates}: the fused rankings;
 * - {@link fuseRanks}, {@link scriptGate}, {@link agreement}: the pure rules;
 * - {@link BackgroundEmbedder}: a long-lived face keeps the section vectors fresh (loopback providers only),
 *   and holds them in memory for the scan (live-vectors.ts).
 */
export { prepareDense, startDense, DenseRun, type DenseReport, SEARCH_POOL, CONTEXT_POOL, SCAN_TOP } from './dense-run.js';
export { readDenseSetting, DENSE_DEFAULTS, KNOWN_SCRIPTS, type DenseConfig, type DenseSetting } from './config.js';
export { fuseRanks, scriptGate, scriptsOf, agreement, RRF_K, AGREEMENT_DEPTH, type Fused } from './fuse.js';
export { embedQueryTexts, parseVectors, type QueryVectors } from './query-vectors.js';
export { openStoredVectors, scanSections, noteVectors, SCAN_NOTE_POOL, type StoredVectors } from './stored-vectors.js';
export { BackgroundEmbedder, type BackgroundEmbedStatus, type BackgroundEmbedOptions } from './background-embed.js';
