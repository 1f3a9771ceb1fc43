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
export { type AcceptedRecommendation, type Catalog, type CitedFragment, type Side } from './types.js';
export { ANSWER_LIMITS, LINK_SIDE, RELATION_VERSION, answerJsonSchema } from './answer-schema.js';
export { noteFragments } from './fragments.js';
export { assertCatalogFresh, prepareCatalog } from './catalog.js';
export { latestAcceptedAnswer, loadCatalog, markCatalogUsed } from './catalog-store.js';
export { validateAnswer } from './validate-answer.js';
export { relatePrepare, relateSend, relateValidate } from './relate.js';
export { VERIFY_LIMITS, verifyAnswer } from './verify-answer.js';
