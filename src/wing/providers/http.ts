import crypto from 'node:crypto';
import { VaultgateError } from '../../errors.js';
import { isIssuedConsent, type ConsentOutcome } from './consent.js';
import { embedLocally, LOCAL_SCHEME } from './local-embed.js';
import type { ProviderSpec } from './provider-config.js';

/** What came back from a provider: the HTTP body as text (kept as the raw answer) and its JSON, if it parses. */
export interface ProviderResponse {
  status: number;
  text: string;
  json: unknown;
}

/** The most of a response body vaultgate reads: a provider cannot make it hold unbounded memory. */
export const MAX_RESPONSE_BYTES = 64 * 1024 * 1024;

/**
 * POST exact bytes to a provider with Node's fetch (dependencies.md §16): a
 * timeout per attempt, and retries with exponential backoff on what may pass
 * (a refused or reset connection, a timeout, 429, 5xx). A provider that never
 * answered is PROVIDER_UNAVAILABLE naming the URL tried; one that answered with
 * another error status is PROVIDER_FAILED with the status and the start of the body.
 *
 * `consent` is what checkConsent returned for the plan these bytes belong to:
 * nothing is sent unless it was issued by checkConsent, names this URL, and
 * lists this body's hash — a caller that skipped the consent rule fails here
 * (INTERNAL: a bug) before any byte leaves.
 */
export async function postToProvider(
  spec: Pick<ProviderSpec, 'name' | 'timeoutMs' | 'attempts' | 'backoffMs'>,
  url: string,
  body: Uint8Array,
  headers: Record<string, string>,
  consent: ConsentOutcome,
): Promise<ProviderResponse> {
  assertCovered(consent, url, body);
  // A model run in this process: nothing to fetch, and nothing to retry.
  if (url.startsWith(LOCAL_SCHEME)) return embedLocally(spec.name, body);
  let lastCause: unknown;
  let lastStatus: { status: number; text: string } | null = null;
  for (let attempt = 1; attempt <= spec.attempts; attempt++) {
    if (attempt > 1) await sleep(spec.backoffMs * 2 ** (attempt - 2));
    let res: Response;
    try {
      res = await fetch(url, { method: 'POST', body, headers, signal: AbortSignal.timeout(spec.timeoutMs), redirect: 'error' });
    } catch (e) {
      lastCause = e;
      lastStatus = null;
      continue;
    }
    const text = await readBounded(res, url);
    if (res.status === 429 || res.status >= 500) {
      lastStatus = { status: res.status, text };
      continue;
    }
    if (res.status < 200 || res.status >= 300) throw failed(spec.name, url, res.status, text);
    return { status: res.status, text, json: safeJson(text) };
  }
  if (lastStatus) throw failed(spec.name, url, lastStatus.status, lastStatus.text, spec.attempts);
  throw new VaultgateError('PROVIDER_UNAVAILABLE', `provider ${spec.name} is not reachable at ${url}: ${describe(lastCause)}`, {
    cause: lastCause,
    details: { url, attempts: spec.attempts },
    hint: 'Start the provider (e.g. `ollama serve`) or fix its url in the machine config, then run the command again.',
  });
}

function assertCovered(consent: ConsentOutcome, url: string, body: Uint8Array): void {
  const s = consent?.summary;
  const covered =
    isIssuedConsent(consent) &&
    s.destination === url &&
    (s.loopback || consent.grant !== null) &&
    s.request_sha256.includes(crypto.createHash('sha256').update(body).digest('hex'));
  if (!covered) {
    throw new VaultgateError('INTERNAL', `refusing to send to ${url}: the request is not covered by a consent plan`, {
      hint: 'Nothing was sent. This is a bug in vaultgate: every request must pass the consent rule (providers/consent.ts) first.',
    });
  }
}

function failed(name: string, url: string, status: number, text: string, attempts = 1): VaultgateError {
  return new VaultgateError('PROVIDER_FAILED', `provider ${name} answered HTTP ${status} at ${url}${attempts > 1 ? ` (${attempts} attempts)` : ''}: ${text.slice(0, 300)}`, {
    details: { url, status, attempts },
    hint: status === 401 || status === 403 ? 'Check the API key variable named by api_key_env.' : status === 404 ? 'Check the url and the model name.' : 'Retry later, or check the provider’s log.',
  });
}

/** Read a response body up to {@link MAX_RESPONSE_BYTES}; beyond that the provider is misbehaving. */
async function readBounded(res: Response, url: string): Promise<string> {
  const reader = res.body?.getReader();
  if (!reader) return '';
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > MAX_RESPONSE_BYTES) {
      await reader.cancel();
      throw new VaultgateError('PROVIDER_FAILED', `the response from ${url} is over ${MAX_RESPONSE_BYTES} bytes`, { details: { url } });
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/** `ECONNREFUSED`, `timeout after 500 ms`, …: the useful part of fetch's `TypeError: fetch failed`. */
function describe(e: unknown): string {
  const err = e as { name?: string; message?: string; cause?: { code?: string; message?: string } };
  if (err?.name === 'TimeoutError') return 'timed out';
  return err?.cause?.code ?? err?.cause?.message ?? err?.message ?? String(e);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
