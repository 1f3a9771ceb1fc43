import { isVaultgateError } from '../../errors.js';
import { checkConsent, embedConventions, embedRequestBody, endpointOf, headersOf, postToProvider, type ConsentGate, type ProviderSpec } from '../providers/index.js';
import { normalize } from '../similar/sparse.js';
import type { DenseConfig } from './config.js';

type Env = Record<string, string | undefined>;

/** Why a query got no vector: each is a warning beside the lexical answer, never a failed search. */
export type QueryVectorProblem =
  | { status: 'consent_required' | 'consent_declined'; message: string; hint: string; destination: string; host: string; request_bytes: number; consent_request: string | null }
  | { status: 'unavailable' | 'failed'; message: string };

export type QueryVectors = { status: 'ok'; vectors: Float32Array[]; destination: string; loopback: boolean } | QueryVectorProblem;

/**
 * Embed a search's texts (the query; for `context` the question and each extra
 * query) in one request to the configured provider, under the same consent rule
 * as `similar --provider` (providers/consent.ts): a loopback destination needs
 * no consent; any other gets nothing unless the person consented to exactly this
 * request (the query text is in the body, so every new query is a new request).
 * The purpose in the plan is `embed`; the files list is empty — no note text is
 * sent, only the query. Every problem comes back as a value: the caller answers
 * lexically with a warning.
 */
export async function embedQueryTexts(root: string, env: Env, cfg: DenseConfig, texts: string[], gate: ConsentGate): Promise<QueryVectors> {
  const { spec, model } = cfg;
  const destination = endpointOf(spec, 'embed');
  const body = embedRequestBody(model, texts, 'query', embedConventions(spec, model));
  try {
    const headers = headersOf(spec, env);
    const outcome = checkConsent(root, env, { purpose: 'embed', provider: spec.name, kind: spec.kind, destination, model, files: [], requests: [body], texts: texts.length }, gate);
    const res = await postToProvider(spec, destination, body, headers, outcome);
    const vectors = parseVectors(spec.kind, res.json, texts.length);
    if (vectors === null) return { status: 'failed', message: `provider ${spec.name} answered without ${texts.length} usable embedding${texts.length === 1 ? '' : 's'} at ${destination}` };
    return { status: 'ok', vectors: vectors.map((v) => normalize(Float32Array.from(v))), destination, loopback: outcome.summary.loopback };
  } catch (e) {
    if (!isVaultgateError(e)) throw e;
    if (e.code === 'CONSENT_REQUIRED' || e.code === 'CONSENT_DECLINED') {
      const d = e.details as { host: string; request_bytes: number; consent_request: string | null };
      return { status: e.code === 'CONSENT_REQUIRED' ? 'consent_required' : 'consent_declined', message: e.message, hint: e.hint ?? '', destination, host: d.host, request_bytes: d.request_bytes, consent_request: d.consent_request };
    }
    if (e.code === 'PROVIDER_UNAVAILABLE') return { status: 'unavailable', message: e.message };
    return { status: 'failed', message: e.message };
  }
}

/** Ollama `{embeddings: [[…]]}` or OpenAI `{data: [{index, embedding}]}`; null unless there are `count` non-empty finite vectors of one length. */
export function parseVectors(kind: ProviderSpec['kind'], json: unknown, count: number): number[][] | null {
  let out: unknown;
  if (kind === 'ollama') out = (json as { embeddings?: unknown } | null)?.embeddings;
  else {
    const data = (json as { data?: unknown } | null)?.data;
    if (!Array.isArray(data) || !data.every((d) => typeof d === 'object' && d !== null && typeof (d as { index?: unknown }).index === 'number')) return null;
    out = [...data].sort((a, b) => (a as { index: number }).index - (b as { index: number }).index).map((d) => (d as { embedding?: unknown }).embedding);
  }
  if (!Array.isArray(out) || out.length !== count) return null;
  const dims = Array.isArray(out[0]) ? out[0].length : 0;
  for (const v of out) if (!Array.isArray(v) || v.length === 0 || v.length !== dims || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) return null;
  return out as number[][];
}
