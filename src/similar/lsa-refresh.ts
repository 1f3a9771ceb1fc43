import type { Db } from '../index/index.js';
import { indexedNotes, inputHash, lsaBag, readNoteInputs, type NoteInputs } from './inputs.js';
import { DEFAULT_LSA_PARAMS, mergeByNote, noteSparseRow, projectBag, trainLsa, type LsaModel, type LsaParams, type TermBag } from './lsa.js';
import { decodeLsaModel, encodeLsaModel } from './lsa-model-codec.js';
import { aggregateDense } from './note-aggregate.js';
import { decodeDense, encodeDense, encodeSectionVectors, encodeSparse, sparseFromMap } from './sparse.js';
import { getMeta, setMeta, type VectorDb } from './vector-store.js';

/**
 * Keep the LSA vectors of a vault in step with its index, incrementally:
 * notes whose hash changed (or that are new) are read from the index and
 * folded into the current model (their sections projected with its
 * vocabulary, idf and basis); deleted notes are dropped. The model is
 * retrained from scratch — and every vector recomputed — when there is none,
 * when its parameters changed, or when the notes folded in since training
 * pass a share of the vault ({@link RETRAIN_SHARE}): a basis learnt on a vault
 * that has since changed by a quarter no longer describes it.
 */
export const RETRAIN_SHARE = 0.25;
/** Below this many changed notes a retrain is never triggered by drift. */
export const RETRAIN_MIN_NOTES = 50;
const PROVIDER = 'lsa';

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
  const notes = indexedNotes(index);
  const currentId = getMeta(store, 'lsa_model');
  const modelRow = currentId
    ? (store.prepare('SELECT dims, trained_notes, folded_notes, body FROM models WHERE provider = ? AND model = ?').get(PROVIDER, currentId) as
        | { dims: number; trained_notes: number; folded_notes: number; body: Buffer }
        | undefined)
    : undefined;
  const stored = new Map<string, string>();
  if (modelRow) for (const r of store.prepare('SELECT path, sha256 FROM notes WHERE provider = ? AND model = ?').iterate(PROVIDER, currentId) as Iterable<{ path: string; sha256: string }>) stored.set(r.path, r.sha256);
  const live = new Set(notes.map((n) => n.path));
  const changed = notes.filter((n) => stored.get(n.path) !== n.sha256);
  const dropped = [...stored.keys()].filter((p) => !live.has(p));
  const paramsChanged = modelRow !== undefined && JSON.stringify(decodeParams(modelRow.body)) !== JSON.stringify(params);
  const drift = modelRow ? modelRow.folded_notes + changed.length + dropped.length : Infinity;
  const retrain = !modelRow || paramsChanged || (drift > (opts.retrainMinNotes ?? RETRAIN_MIN_NOTES) && drift > RETRAIN_SHARE * Math.max(modelRow.trained_notes, 1));

  if (retrain) {
    const inputs = readNoteInputs(index, notes);
    const bags = inputs.flatMap((n) => n.sections.map(lsaBag));
    const noteOf = Int32Array.from(inputs.flatMap((n, i) => n.sections.map(() => i)));
    opts.onProgress?.({ phase: 'similar', done: 0, total: notes.length });
    const model = trainLsa(bags, noteOf, params);
    store.transaction(() => {
      store.prepare('DELETE FROM vectors WHERE provider = ?').run(PROVIDER);
      store.prepare('DELETE FROM notes WHERE provider = ?').run(PROVIDER);
      store.prepare('DELETE FROM models WHERE provider = ?').run(PROVIDER);
      store.prepare('INSERT INTO models(provider, model, dims, created_at, trained_notes, folded_notes, body) VALUES (?, ?, ?, ?, ?, 0, ?)').run(PROVIDER, model.id, model.dims, new Date().toISOString(), notes.length, encodeLsaModel(model));
      setMeta(store, 'lsa_model', model.id);
      writeNotes(store, model, inputs, bags, opts.onProgress);
    })();
    return { provider: PROVIDER, model: model.id, dims: model.dims, retrained: true, embedded: notes.length, dropped: 0, notes: notes.length, took_ms: Math.round(performance.now() - t0) };
  }

  if (changed.length || dropped.length) {
    const model = decodeLsaModel(modelRow!.body);
    const inputs = readNoteInputs(index, changed);
    store.transaction(() => {
      const del = store.prepare('DELETE FROM notes WHERE provider = ? AND model = ? AND path = ?');
      for (const p of dropped) del.run(PROVIDER, model.id, p);
      writeNotes(store, model, inputs, inputs.flatMap((n) => n.sections.map(lsaBag)), opts.onProgress);
      store.prepare('UPDATE models SET folded_notes = folded_notes + ? WHERE provider = ? AND model = ?').run(changed.length + dropped.length, PROVIDER, model.id);
    })();
  }
  return { provider: PROVIDER, model: currentId!, dims: modelRow!.dims, retrained: false, embedded: changed.length, dropped: dropped.length, notes: notes.length, took_ms: Math.round(performance.now() - t0) };
}

function decodeParams(body: Buffer): LsaParams {
  const n = body.readUInt32LE(0);
  return (JSON.parse(body.subarray(4, 4 + n).toString('utf8')) as { params: LsaParams }).params;
}

/** Embed the sections of `inputs` (bags in the same order) under `model`, reusing stored vectors by input hash. */
function writeNotes(store: VectorDb, model: LsaModel, inputs: NoteInputs[], bags: TermBag[], onProgress: LsaRefreshOptions['onProgress']): void {
  // Sections keep only their dense vector: the notes' sparse vectors come from their whole bags.
  const getVec = store.prepare('SELECT dense FROM vectors WHERE provider = ? AND model = ? AND hash = ?').pluck();
  const putVec = store.prepare('INSERT OR IGNORE INTO vectors(provider, model, hash, dense, sparse) VALUES (?, ?, ?, ?, NULL)');
  const putNote = store.prepare('INSERT OR REPLACE INTO notes(provider, model, path, sha256, sections, dense, sparse, section_dense) VALUES (?, ?, ?, ?, ?, ?, ?, ?)');
  let k = 0;
  inputs.forEach((note, n) => {
    const secs: { heading_path: string[]; lines: [number, number]; hash: string; len: number; dense: Float32Array; known: boolean }[] = [];
    for (const s of note.sections) {
      const bag = bags[k++]!;
      const hash = inputHash('lsa', s);
      const row = getVec.get(PROVIDER, model.id, hash) as Buffer | undefined;
      let dense: Float32Array;
      if (row) dense = decodeDense(row);
      else {
        dense = projectBag(model, bag);
        putVec.run(PROVIDER, model.id, hash, encodeDense(dense));
      }
      secs.push({ heading_path: s.heading_path, lines: s.lines, hash, len: bag.length, dense, known: dense.some((x) => x !== 0) });
    }
    const usable = secs.filter((s) => s.known);
    const noteBag = mergeByNote(bags.slice(k - note.sections.length, k), new Int32Array(note.sections.length))[0]!;
    putNote.run(
      PROVIDER,
      model.id,
      note.path,
      note.sha256,
      JSON.stringify(secs.map(({ heading_path, lines, hash, len }) => ({ heading_path, lines, hash, len }))),
      encodeDense(aggregateDense(usable, model.dims)),
      encodeSparse(sparseFromMap(noteSparseRow(model, noteBag))),
      encodeSectionVectors(secs.map((x) => (x.known ? x.dense : null)), model.dims),
    );
    if (onProgress && (n % 200 === 0 || n === inputs.length - 1)) onProgress({ phase: 'similar', done: n + 1, total: inputs.length });
  });
}
