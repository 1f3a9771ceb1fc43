import type { ProviderSpec } from '../providers/index.js';
import { providerJsonSchema } from './answer-schema.js';
import type { Catalog } from './types.js';

/**
 * The request body `relate send` POSTs for a catalog: the catalog's exact
 * messages, and the answer schema in the provider's structured-output form
 * (Ollama `format`, OpenAI `response_format`) when the provider is set to use it.
 * Deterministic from (catalog, provider, model), so the consent plan of a
 * send (what the person approves) is known before anything is sent.
 */
export function chatRequestBody(catalog: Pick<Catalog, 'answer_schema' | 'request'>, spec: ProviderSpec, model: string): Uint8Array {
  return chatBody(catalog.request.messages, { name: 'vaultgate_relation_v1', provider: providerJsonSchema(catalog.answer_schema, false), strict: providerJsonSchema(catalog.answer_schema, true) }, spec, model);
}

/**
 * A chat request body for any strict answer schema (relate's, atomize's):
 * the messages, temperature 0, and the schema in the provider's structured-output
 * form when the provider is set to use it (`provider`: Ollama's `format`;
 * `strict`: OpenAI's `response_format` in strict mode).
 */
export function chatBody(messages: readonly unknown[], schema: { name: string; provider: unknown; strict: unknown }, spec: ProviderSpec, model: string): Uint8Array {
  let body: Record<string, unknown>;
  if (spec.kind === 'ollama') {
    body = { model, messages, stream: false, options: { temperature: 0 } };
    if (spec.jsonMode === 'schema') body.format = schema.provider;
    else if (spec.jsonMode === 'object') body.format = 'json';
  } else {
    body = { model, messages, temperature: 0 };
    if (spec.jsonMode === 'schema') {
      body.response_format = { type: 'json_schema', json_schema: { name: schema.name, strict: true, schema: schema.strict } };
    } else if (spec.jsonMode === 'object') body.response_format = { type: 'json_object' };
  }
  return Buffer.from(JSON.stringify(body), 'utf8');
}

/** The model's message text from a chat response, or null when the response has no such field. */
export function chatAnswerContent(spec: ProviderSpec, json: unknown): string | null {
  const j = json as { message?: { content?: unknown }; choices?: { message?: { content?: unknown } }[] } | undefined;
  const content = spec.kind === 'ollama' ? j?.message?.content : j?.choices?.[0]?.message?.content;
  return typeof content === 'string' ? content : null;
}
