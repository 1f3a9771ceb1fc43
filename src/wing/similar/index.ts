/**
 * similar: candidate pairs of notes that look alike (DESIGN §5.3) — candidates,
 * never verdicts.
 *
 * - Offline default (`lsa`): each section of each note is a bag of its words
 *   (the index's text pipeline, {@link textTermCounts}) plus link and tag
 *   pseudo-terms ({@link lsaBag}); {@link trainLsa} learns a truncated SVD
 *   ({@link truncatedSvd}: randomized range finder, in-process) of the notes'
 *   BM25-weighted bags; sections are projected into it, and notes keep a
 *   TF-IDF sparse vector too. {@link refreshLsaVectors} keeps the vectors in
 *   step with the index, incrementally (fold-in), retraining past a share of change.
 * - Providers: {@link refreshProviderVectors} embeds sections through Ollama or an
 *   OpenAI-compatible endpoint, in batches, resumable, behind the consent rule.
 * - Vectors live in `vectors.sqlite` beside the index ({@link openVectorStore}),
 *   keyed by (provider, model, input hash).
 * - {@link pairScore}: note-level sparse and dense cosines and section-level
 *   coverage; {@link similarNotes}, {@link pairSimilarity}, {@link duplicateGroups}:
 *   the `similar` verb.
 */

export { textTermCounts } from './terms.js';
export { DEFAULT_LSA_PARAMS } from './lsa.js';
export { embedInput } from './inputs.js';
export { VECTOR_SCHEMA_VERSION, openVectorStore, vectorStoreFile } from './vector-store.js';
export { refreshLsaVectors } from './lsa-refresh.js';
export { loadNoteVectors, loadSectionRefs } from './load-vectors.js';
export { pairScore } from './score.js';
export { refreshProviderVectors } from './embed-provider.js';
export { duplicateGroups, pairSimilarity, similarNotes } from './similar.js';

