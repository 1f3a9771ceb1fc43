/**
 * evidence: evidence catalogs and strict answers (DESIGN §5.3).
 *
 * - {@link prepareCatalog} → {@link Catalog}: both notes whole, their exact fragments
 *   ({@link noteFragments}: sentences, list items, table rows, never across protected
 *   structures) with ids `<nonce>:A:<n>`, the answer schema and the exact request.
 * - {@link validateAnswer} (pure): an answer (`vaultgate.relation.v1`) against a catalog —
 *   accepted recommendations with the fragment texts substituted by the code, or every
 *   {@link Refusal} with its code, recommendation index and offending field or id.
 * - {@link relatePrepare}, {@link relateValidate}, {@link relateSend}: the `relate` verbs,
 *   with the catalogs and answers kept in `evidence.sqlite` under the data root.
 */
export * from './types.js';
export * from './answer-schema.js';
export * from './fragments.js';
export * from './prompt.js';
export * from './catalog.js';
export * from './catalog-store.js';
export * from './chat-request.js';
export * from './validate-answer.js';
export * from './relate.js';
export * from './verify-answer.js';
