/**
 * ingest (optional wing, issue 22 §3): read a source to file it as one reviewed
 * proposal, and keep track of a drop folder. Depends on the core (proposals'
 * capture, the index's search); the core never on it.
 */
export { ingestSource, listDropFolder, fragmentsOf, statusOf, type IngestResult, type IngestState, type DropFolderEntry, type Fragment, type LinkSuggestion } from './ingest.js';
