import type { Db } from '../../index/index.js';
import { indexedNotes, lsaBag, readNoteInputs } from './inputs.js';
import { notesFingerprint } from './notes-fingerprint.js';
import { addNote, columnsOf, DEFAULT_LSA_PARAMS, emptyCorpus, LsaProjector, noteBag, trainLsa, type LsaCorpus, type LsaModel, type LsaParams } from './lsa.js';
import { decodeLsaModel, encodeLsaModel } from './lsa-model-codec.js';
import { aggregateDense } from './note-aggregate.js';
import { encodeSparse } from './sparse.js';
import { dropProviderNotes, getMeta, noteWriter, setMeta, type VectorDb } from './vector-store.js';

/**
 * Keep the LSA vectors of a vault in step with its index, incrementally:
 * notes whose hash changed (or that are new) are read from the index and
 * folded into the current model (their sections projected with its
 * vocabulary, idf and basis); deleted notes are dropped. The model is
 * retrained from scratch — and every vector recomputed — when there is none,
 * when its parameters changed, or when the notes folded in since training
 * pass a share of the vault ({@link RETRAIN_SHARE}): a basis learnt on a vault
 * that has since changed by a quarter no longer describes it.
 *
 * Memory stays bounded by the vault's bags, not its text or vectors: notes are
 * read from the index a batch at a time and kept only as packed term bags
 * (bag-pool.ts); each note's vectors are computed and written one note at a
 * time, never all held at once.
 */
export const RETRAIN_SHARE = 0.25;
/** Below this many changed notes a retrain is never triggered by drift. */
export const RETRAIN_MIN_NOTES = 50;
const PROVIDER = 'lsa';
/** Meta key: the LSA model and the index notes' fingerprint (notes-fingerprint.ts) the store was last brought up to date with. */
const NOTES_META = 'lsa_notes';

export interface RefreshOutcome {
  provider: string;
  model: string;
  dims: number;
  retrained: boolean;
  /** Notes (re)embedded by this refresh. */
  embedded: number;
  /** Notes dropped (deleted from the vault). */
  dropped: number;
  notes: number;
  took_ms: number;
}

export interface LsaRefreshOptions {
  params?: LsaParams;
  /** Below this many changed notes drift never retrains (default {@link RETRAIN_MIN_NOTES}). */
  retrainMinNotes?: number;
  onProgress?: (p: { phase: string; done: number; total: number }) => void;
}

export function refreshLsaVectors(index: Db, store: VectorDb, opts: LsaRefreshOptions = {}): RefreshOutcome {
  const t0 = performance.now();
  const params = opts.params ?? DEFAULT_LSA_PARAMS;
  const currentId = getMeta(store, 'lsa_model');
  const modelRow = currentId
    ? (store.prepare('SELECT dims, trained_notes, folded_notes, params FROM models WHERE provider = ? AND model = ?').get(PROVIDER, currentId) as
        | { dims: number; trained_notes: number; folded_notes: number; params: string }
        | undefined)
    : undefined;
  const driftRetrains = (drift: number) => drift > (opts.retrainMinNotes ?? RETRAIN_MIN_NOTES) && drift > RETRAIN_SHARE * Math.max(modelRow!.trained_notes, 1);
  // The fingerprint and the notes from one snapshot of the index: the store claims the
  // fingerprint only of the notes it was brought up to date with.
  const snapshot = index.transaction(() => {
    const fingerprint = notesFingerprint(index);
    // Nothing changed since the store was last brought up to date (the same notes, the
    // same model and parameters, no drift to retrain on): no note list to compare.
    const unchanged = modelRow !== undefined && modelRow.params === JSON.stringify(params) && getMeta(store, NOTES_META) === `${currentId!} ${fingerprint}` && !driftRetrains(modelRow.folded_notes);
    return { fingerprint, notes: unchanged ? null : indexedNotes(index) };
  })();
  const { fingerprint } = snapshot;
  if (snapshot.notes === null) {
    const count = store.prepare('SELECT count(*) FROM notes WHERE provider = ? AND model = ?').pluck().get(PROVIDER, currentId) as number;
    return { provider: PROVIDER, model: currentId!, dims: modelRow!.dims, retrained: false, embedded: 0, dropped: 0, notes: count, took_ms: Math.round(performance.now() - t0) };
  }
  const notes = snapshot.notes;
  const stored = new Map<string, string>();
  if (modelRow) for (const r of store.prepare('SELECT path, sha256 FROM notes WHERE provider = ? AND model = ?').iterate(PROVIDER, currentId) as Iterable<{ path: string; sha256: string }>) stored.set(r.path, r.sha256);
  const live = new Set(notes.map((n) => n.path));
  const changed = notes.filter((n) => stored.get(n.path) !== n.sha256);
  const dropped = [...stored.keys()].filter((p) => !live.has(p));
  const paramsChanged = modelRow !== undefined && modelRow.params !== JSON.stringify(params);
  const drift = modelRow ? modelRow.folded_notes + changed.length + dropped.length : Infinity;
  const retrain = !modelRow || paramsChanged || driftRetrains(drift);

  if (retrain) {
    const { corpus, meta } = readCorpus(index, notes);
    opts.onProgress?.({ phase: 'similar', done: 0, total: notes.length });
    const model = trainLsa(corpus, params);
    store.transaction(() => {
      store.prepare('DELETE FROM vectors WHERE provider = ?').run(PROVIDER);
      dropProviderNotes(store, PROVIDER);
      store.prepare('DELETE FROM models WHERE provider = ?').run(PROVIDER);
      writeNotes(store, model, corpus, meta, [], opts.onProgress);
      // The model's body (~20 MB at 10k notes, copied once more by SQLite) after the notes: by
      // then the SVD's work arrays have been collected, and the two do not add up at the peak.
      store
        .prepare('INSERT INTO models(provider, model, dims, created_at, trained_notes, folded_notes, params, body) VALUES (?, ?, ?, ?, ?, 0, ?, ?)')
        .run(PROVIDER, model.id, model.dims, new Date().toISOString(), notes.length, JSON.stringify(params), encodeLsaModel(model));
      setMeta(store, 'lsa_model', model.id);
      setMeta(store, NOTES_META, `${model.id} ${fingerprint}`);
    })();
    return { provider: PROVIDER, model: model.id, dims: model.dims, retrained: true, embedded: notes.length, dropped: 0, notes: notes.length, took_ms: Math.round(performance.now() - t0) };
  }

  if (changed.length || dropped.length) {
    const model = decodeLsaModel(store.prepare('SELECT body FROM models WHERE provider = ? AND model = ?').pluck().get(PROVIDER, currentId) as Buffer);
    const { corpus, meta } = readCorpus(index, changed);
    store.transaction(() => {
      writeNotes(store, model, corpus, meta, dropped, opts.onProgress);
      store.prepare('UPDATE models SET folded_notes = folded_notes + ? WHERE provider = ? AND model = ?').run(changed.length + dropped.length, PROVIDER, model.id);
      setMeta(store, NOTES_META, `${model.id} ${fingerprint}`);
    })();
  } else if (getMeta(store, NOTES_META) !== `${currentId!} ${fingerprint}`) {
    setMeta(store, NOTES_META, `${currentId!} ${fingerprint}`);
  }
  return { provider: PROVIDER, model: currentId!, dims: modelRow!.dims, retrained: false, embedded: changed.length, dropped: dropped.length, notes: notes.length, took_ms: Math.round(performance.now() - t0) };
}

/** Notes read from the index per batch: their text is dropped once their bags are packed. */
const READ_BATCH = 256;
const BULK_READ_CACHE_KIB = 4096;

interface NoteMeta {
  path: string;
  sha256: string;
  /** JSON of the sections' heading paths and lines (note_sections). */
  sections: string;
}

/** The given notes' bags (packed) and what their rows need besides vectors, read a batch of notes at a time. */
function readCorpus(index: Db, notes: readonly { id: number; path: string; sha256: string }[]): { corpus: LsaCorpus; meta: NoteMeta[] } {
  const corpus = emptyCorpus();
  const meta: NoteMeta[] = [];
  // Every section is read once: the index's page cache (64 MB) would only fill with pages
  // read once, and stay in this process's memory. A small cache while reading a whole vault.
  const cacheSize = index.pragma('cache_size', { simple: true }) as number;
  if (notes.length > READ_BATCH) index.pragma(`cache_size = -${BULK_READ_CACHE_KIB}`);
  try {
    for (let i = 0; i < notes.length; i += READ_BATCH) {
      for (const n of readNoteInputs(index, notes.slice(i, i + READ_BATCH))) {
        addNote(corpus, n.sections.map(lsaBag));
        meta.push({ path: n.path, sha256: n.sha256, sections: JSON.stringify(n.sections.map((s) => ({ heading_path: s.heading_path, lines: s.lines }))) });
      }
    }
  } finally {
    if (notes.length > READ_BATCH) index.pragma(`cache_size = ${cacheSize}`);
  }
  return { corpus, meta };
}

/** Project every note of `corpus` into `model` and write its rows, one note at a time; drop `dropped`. */
function writeNotes(store: VectorDb, model: LsaModel, corpus: LsaCorpus, meta: NoteMeta[], dropped: readonly string[], onProgress: LsaRefreshOptions['onProgress']): void {
  const writer = noteWriter(store, PROVIDER, model.id, model.dims);
  for (const p of dropped) writer.drop(p);
  const project = new LsaProjector(model, columnsOf(model, corpus.dict));
  meta.forEach((note, n) => {
    const secs: { dense: Float32Array; len: number; known: boolean }[] = [];
    for (let b = corpus.noteSections[n]!; b < corpus.noteSections[n + 1]!; b++) {
      const dense = project.dense(corpus.sections, b);
      secs.push({ dense, len: corpus.sections.lengths[b]!, known: dense.some((x) => x !== 0) });
    }
    writer.put({
      path: note.path,
      sha256: note.sha256,
      dense: aggregateDense(secs.filter((s) => s.known), model.dims),
      // Sections keep only their dense vector: the note's sparse vector comes from its whole bag.
      sparse: encodeSparse(project.sparse(noteBag(corpus, n))),
      lengths: secs.map((s) => (s.known ? s.len : 0)),
      sections: secs.map((s) => (s.known ? s.dense : null)),
      sectionsJson: note.sections,
    });
    if (onProgress && (n % 200 === 0 || n === meta.length - 1)) onProgress({ phase: 'similar', done: n + 1, total: meta.length });
  });
}
