import { VaultgateError } from '../../errors.js';
import type { IndexReader } from '../../index/index.js';
import { checkConsent, embedConventions, embedRequestBody, endpointOf, headersOf, postToProvider, storedModelKey, type ConsentGate, type ConsentGrant, type PlanSummary, type ProviderSpec } from '../providers/index.js';
import { embedInput, indexedNotes, inputHash, readNoteInputs, type NoteInputs } from './inputs.js';
import { aggregateDense } from './note-aggregate.js';
import { decodeDense, encodeDense } from './sparse.js';
import type { RefreshOutcome } from './lsa-refresh.js';
import { noteWriter, type VectorDb } from './vector-store.js';

type Env = Record<string, string | undefined>;

/**
 * Section vectors from an embedding provider: Ollama `/api/embed` or an
 * OpenAI-compatible `/embeddings`. Only sections whose input hash has no
 * stored vector are sent, in batches; each batch's vectors are stored as soon
 * as they arrive, so a run that is killed (or fails half way) keeps what it
 * embedded and the next run sends only the rest. Everything to be sent is a
 * consent plan first (providers/consent.ts): a provider off this machine gets
 * nothing without the token of exactly these requests.
 */

export interface ProviderRefresh extends RefreshOutcome {
  /** The name the vectors are stored under: the model, plus its document convention when it has one (providers/embed-conventions.ts). */
  storedModel: string;
  /** Notes whose vectors are still missing or stale when the run returned (`maxNotes`, `signal`); 0 when it finished. */
  pendingNotes: number;
  /** Notes whose vectors were completed and stored by this run. */
  writtenNotes: number;
  /** What was sent where (null when nothing needed embedding). */
  sent: PlanSummary | null;
  /** The consent used (null: loopback, or nothing sent). */
  consent: ConsentGrant | null;
}

export async function refreshProviderVectors(
  reader: IndexReader,
  store: VectorDb,
  env: Env,
  root: string,
  spec: ProviderSpec,
  model: string,
  opts: {
    gate: ConsentGate;
    onProgress?: (p: { phase: string; done: number; total: number }) => void;
    /** Embed at most this many notes' sections, then store them and return: a background run's bounded slice. */
    maxNotes?: number;
    /** Stop between batches when aborted (a server closing); what arrived is kept. */
    signal?: AbortSignal;
  },
): Promise<ProviderRefresh> {
  const t0 = performance.now();
  const conventions = embedConventions(spec, model);
  // Vectors made with another document convention describe other input: they are stored (and looked up) apart.
  const key = storedModelKey(model, conventions);
  const stored = new Map<string, string>();
  for (const r of store.prepare('SELECT path, sha256 FROM notes WHERE provider = ? AND model = ?').iterate(spec.name, key) as Iterable<{ path: string; sha256: string }>) stored.set(r.path, r.sha256);
  const { notes, pending, inputs } = reader.read((h) => {
    const all = indexedNotes(h.db);
    const pending = all.filter((n) => stored.get(n.path) !== n.sha256);
    return { notes: all, pending: pending.length, inputs: readNoteInputs(h.db, opts.maxNotes === undefined ? pending : pending.slice(0, opts.maxNotes)) };
  }).result;
  const live = new Set(notes.map((n) => n.path));
  const dropped = [...stored.keys()].filter((p) => !live.has(p));

  // What is missing, once per distinct input.
  const have = store.prepare('SELECT 1 FROM vectors WHERE provider = ? AND model = ? AND hash = ?').pluck();
  const todo = new Map<string, { text: string; path: string }>();
  for (const n of inputs) {
    for (const s of n.sections) {
      const text = embedInput(s, conventions.maxChars);
      if (text.trim() === '') continue;
      const hash = inputHash('embed', s);
      if (!todo.has(hash) && !have.get(spec.name, key, hash)) todo.set(hash, { text, path: n.path });
    }
  }
  const items = [...todo.entries()];
  const batches: { hashes: string[]; body: Uint8Array }[] = [];
  for (let i = 0; i < items.length; i += spec.batchSize) {
    const chunk = items.slice(i, i + spec.batchSize);
    batches.push({ hashes: chunk.map((c) => c[0]), body: embedRequestBody(model, chunk.map((c) => c[1].text), 'document', conventions) });
  }
  const destination = endpointOf(spec, 'embed');
  let sent: PlanSummary | null = null;
  let consent: ConsentGrant | null = null;
  if (batches.length > 0) {
    const bytesByPath = new Map<string, number>();
    for (const [, { text, path }] of items) bytesByPath.set(path, (bytesByPath.get(path) ?? 0) + Buffer.byteLength(text));
    const headers = headersOf(spec, env);
    const plan = checkConsent(root, env, { purpose: 'embed', provider: spec.name, kind: spec.kind, destination, model, files: [...bytesByPath].map(([path, bytes]) => ({ path, bytes })), requests: batches.map((b) => b.body), texts: items.length }, opts.gate);
    sent = plan.summary;
    consent = plan.grant;
    const put = store.prepare('INSERT OR IGNORE INTO vectors(provider, model, hash, dense, sparse) VALUES (?, ?, ?, ?, NULL)');
    let dims = (store.prepare('SELECT dims FROM models WHERE provider = ? AND model = ?').pluck().get(spec.name, key) as number | undefined) ?? null;
    let done = 0;
    for (const b of batches) {
      if (opts.signal?.aborted) break;
      const res = await postToProvider(spec, destination, b.body, headers, plan);
      const vectors = parseEmbeddings(spec, res.json, b.hashes.length, destination);
      dims ??= vectors[0]!.length;
      if (vectors.some((v) => v.length !== dims)) {
        throw new VaultgateError('PROVIDER_FAILED', `provider ${spec.name} returned vectors of another length than ${dims} at ${destination}`, { details: { url: destination, dims } });
      }
      store.transaction(() => {
        store.prepare('INSERT OR IGNORE INTO models(provider, model, dims, created_at, trained_notes) VALUES (?, ?, ?, ?, 0)').run(spec.name, key, dims, new Date().toISOString());
        b.hashes.forEach((h, k) => put.run(spec.name, key, h, encodeDense(Float32Array.from(vectors[k]!))));
      })();
      done += b.hashes.length;
      opts.onProgress?.({ phase: 'embedding', done, total: items.length });
    }
  }
  const dims = (store.prepare('SELECT dims FROM models WHERE provider = ? AND model = ?').pluck().get(spec.name, key) as number | undefined) ?? 0;
  const written = writeProviderNotes(store, spec.name, key, dims, inputs, dropped, conventions.maxChars);
  return {
    provider: spec.name,
    model,
    storedModel: key,
    pendingNotes: pending - written,
    writtenNotes: written,
    dims,
    retrained: false,
    embedded: inputs.length,
    dropped: dropped.length,
    notes: notes.length,
    took_ms: Math.round(performance.now() - t0),
    sent,
    consent,
  };
}

/** Ollama `{embeddings: [[…]]}`; OpenAI `{data: [{index, embedding}]}` (ordered by `index`). */
function parseEmbeddings(spec: ProviderSpec, json: unknown, count: number, url: string): number[][] {
  const bad = (why: string) => new VaultgateError('PROVIDER_FAILED', `provider ${spec.name} answered without usable embeddings at ${url}: ${why}`, { details: { url } });
  let out: unknown;
  if (spec.kind === 'ollama') out = (json as { embeddings?: unknown })?.embeddings;
  else {
    const data = (json as { data?: unknown })?.data;
    if (!Array.isArray(data)) throw bad('no `data` list');
    out = [...data].sort((a, b) => (a as { index: number }).index - (b as { index: number }).index).map((d) => (d as { embedding?: unknown }).embedding);
  }
  if (!Array.isArray(out) || out.length !== count) throw bad(`expected ${count} vectors`);
  for (const v of out) if (!Array.isArray(v) || v.length === 0 || !v.every((x) => typeof x === 'number' && Number.isFinite(x))) throw bad('a vector is not a list of finite numbers');
  return out as number[][];
}

/** Note rows for the notes whose every non-empty section has a vector; the others wait for the next run. */
/** Returns how many notes got their row. */
function writeProviderNotes(store: VectorDb, provider: string, model: string, dims: number, inputs: NoteInputs[], dropped: string[], maxChars: number): number {
  let written = 0;
  const get = store.prepare('SELECT dense FROM vectors WHERE provider = ? AND model = ? AND hash = ?').pluck();
  const writer = noteWriter(store, provider, model, dims);
  store.transaction(() => {
    for (const p of dropped) writer.drop(p);
    for (const n of inputs) {
      const secs: { heading_path: string[]; lines: [number, number]; hash: string; len: number; dense: Float32Array }[] = [];
      let complete = true;
      for (const s of n.sections) {
        const text = embedInput(s, maxChars);
        const hash = inputHash('embed', s);
        if (text.trim() === '') {
          secs.push({ heading_path: s.heading_path, lines: s.lines, hash, len: 0, dense: new Float32Array(dims) });
          continue;
        }
        const v = get.get(provider, model, hash) as Buffer | undefined;
        if (!v) {
          complete = false;
          break;
        }
        secs.push({ heading_path: s.heading_path, lines: s.lines, hash, len: Math.max(1, Math.round(text.length / 50)), dense: decodeDense(v) });
      }
      if (!complete || dims === 0) continue;
      writer.put({
        path: n.path,
        sha256: n.sha256,
        dense: aggregateDense(secs.filter((s) => s.len > 0), dims),
        sparse: null,
        // A section without a vector (no text, or the provider's all-zero answer) has no weight.
        lengths: secs.map((s) => (s.len > 0 && s.dense.some((x) => x !== 0) ? s.len : 0)),
        sections: secs.map((s) => (s.len > 0 ? s.dense : null)),
        sectionsJson: JSON.stringify(secs.map(({ dense: _d, ...s }) => s)),
      });
      written++;
    }
  })();
  return written;
}
