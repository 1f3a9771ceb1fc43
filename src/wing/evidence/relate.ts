import { VaultgateError } from '../../errors.js';
import { checkConsent, endpointOf, headersOf, modelFor, postToProvider, resolveProvider, type ConsentGate, type ConsentGrant, type PlanSummary } from '../providers/index.js';
import { assertCatalogFresh, prepareCatalog, type PrepareOptions } from './catalog.js';
import { loadCatalog, saveAnswer, saveCatalog } from './catalog-store.js';
import { chatAnswerContent, chatRequestBody } from './chat-request.js';
import type { AcceptedRecommendation, Catalog, Refusal } from './types.js';
import { validateAnswer } from './validate-answer.js';

type Env = Record<string, string | undefined>;

/** `relate prepare A B`: build the catalog and store it under the data root. */
export function relatePrepare(root: string, env: Env, a: string, b: string, opts: PrepareOptions = {}): Catalog {
  const catalog = prepareCatalog(root, a, b, opts);
  saveCatalog(root, env, catalog);
  return catalog;
}

export interface AcceptedAnswer {
  catalog_id: string;
  answer_id: number;
  accepted: true;
  recommendations: AcceptedRecommendation[];
}

/**
 * Validate answer bytes against a stored catalog and keep the answer (accepted
 * or not) for the record. A stale catalog is refused before the answer is read
 * (CATALOG_STALE, exit 75); any refusal is ANSWER_REFUSED (exit 2) listing
 * every refusal; only a fully accepted answer returns.
 */
export function acceptAnswer(
  at: { root: string; env: Env },
  catalog: Catalog,
  answer: { raw: Uint8Array; source: { kind: 'file' | 'provider'; provider?: string; rawResponse?: string } },
): AcceptedAnswer {
  const { root, env } = at;
  const { raw, source } = answer;
  const result = validateAnswer(catalog, raw);
  const rawText = Buffer.from(raw).toString('utf8');
  const answerId = saveAnswer(root, env, {
    catalogId: catalog.catalog_id,
    source: source.kind,
    provider: source.provider,
    raw: rawText,
    rawResponse: source.rawResponse,
    refusals: result.refusals,
    recommendations: result.accepted,
  });
  if (result.refusals.length > 0) throw refused({ catalogId: catalog.catalog_id, answerId }, result);
  return { catalog_id: catalog.catalog_id, answer_id: answerId, accepted: true, recommendations: result.accepted };
}

/** ANSWER_REFUSED for a stored answer, listing every refusal and the recommendations that were accepted. */
function refused(ids: { catalogId: string; answerId: number }, result: { refusals: Refusal[]; accepted: AcceptedRecommendation[]; total: number }): VaultgateError {
  const { catalogId, answerId } = ids;
  const { refusals, total } = result;
  const accepted = result.accepted.map((r) => r.index);
  const whole = refusals.some((r) => r.recommendation === null);
  const badRecs = new Set(refusals.map((r) => r.recommendation)).size;
  return new VaultgateError(
    'ANSWER_REFUSED',
    whole ? `the answer was refused as a whole (${refusals.map((r) => r.code).join(', ')})` : `${badRecs} of ${total} recommendations refused (${refusals.length} refusals)`,
    {
      details: { catalog_id: catalogId, answer_id: answerId, refusals, accepted_recommendations: accepted },
      hint: 'Each refusal names its recommendation, field and id. Fix them all (cite only ids from this catalog, on the right side) and validate again; nothing is planned from a refused answer.',
    },
  );
}

/** `relate validate CATALOG_ID ANSWER.json`: the answer's bytes, as read by the face (a file, stdin). */
export function relateValidate(root: string, env: Env, catalogId: string, answer: Uint8Array): AcceptedAnswer {
  const catalog = loadCatalog(root, env, catalogId);
  assertCatalogFresh(root, catalog);
  return acceptAnswer({ root, env }, catalog, { raw: answer, source: { kind: 'file' } });
}

export interface SendResult extends AcceptedAnswer {
  /** What was sent, where (always stated, loopback or not). */
  sent: PlanSummary;
  /** The consent used (its record and face), or null for a loopback provider. */
  consent: ConsentGrant | null;
}

/**
 * `relate send CATALOG_ID --provider P [--model M] [--consent]`: send the
 * catalog's exact request to a chat provider, keep the raw answer, validate it.
 * The consent rule runs before anything is sent (providers/consent.ts).
 */
export async function relateSend(root: string, env: Env, catalogId: string, opts: { provider: string; model?: string; gate: ConsentGate }): Promise<SendResult> {
  const catalog = loadCatalog(root, env, catalogId);
  assertCatalogFresh(root, catalog);
  const spec = resolveProvider(env, opts.provider);
  const model = modelFor(spec, 'chat', opts.model);
  const body = chatRequestBody(catalog, spec, model);
  const destination = endpointOf(spec, 'chat');
  const files = (['A', 'B'] as const).map((s) => ({ path: catalog.sides[s].path, bytes: Buffer.byteLength(catalog.sides[s].text) }));
  const headers = headersOf(spec, env);
  const consent = checkConsent(root, env, { purpose: 'relate', provider: spec.name, kind: spec.kind, destination, model, files, requests: [body], texts: files.length }, opts.gate);
  const { grant, summary } = consent;
  const response = await postToProvider(spec, destination, body, headers, consent);
  const content = chatAnswerContent(spec, response.json);
  if (content === null) {
    saveAnswer(root, env, {
      catalogId,
      source: 'provider',
      provider: `${spec.name}/${model}`,
      raw: '',
      rawResponse: response.text,
      refusals: [{ code: 'not_json', recommendation: null, message: 'the provider response has no message content' }],
      recommendations: null,
    });
    throw new VaultgateError('PROVIDER_FAILED', `provider ${spec.name} answered without a message content at ${destination}`, {
      details: { url: destination, response_start: response.text.slice(0, 300) },
      hint: spec.kind === 'ollama' ? 'Check that the url points at Ollama (`/api/chat`).' : 'Check that the url is an OpenAI-compatible base ending in /v1.',
    });
  }
  const accepted = acceptAnswer({ root, env }, catalog, { raw: Buffer.from(content, 'utf8'), source: { kind: 'provider', provider: `${spec.name}/${model}`, rawResponse: response.text } });
  return { ...accepted, sent: summary, consent: grant };
}
