import crypto from 'node:crypto';
import { putMeta, storedMeta, type Db } from './db.js';
import { isStopWord } from './stop-words.js';
import { DEFAULT_TERM_ASSOC_PARAMS, trainTermAssociations, type Neighbour, type TermAssocParams } from './term-assoc.js';
import { lineWords, normalizeText, stemWord } from './text-pipeline.js';

/**
 * The term-association model of a vault (term-assoc.ts), kept in the index:
 * only each word's few neighbours, one row per word in `term_neighbours`, so a
 * query reads the rows of its own words by primary key (a few small rows)
 * instead of loading a matrix.
 *
 * The model is trained at the end of a refresh (in its write transaction, so
 * the rows and the model always describe the same index) when there is none,
 * when its parameters changed, or when the notes added, changed or deleted
 * since training pass {@link TERM_MODEL_RETRAIN_SHARE} of those it was trained
 * on (and at least {@link TERM_MODEL_RETRAIN_MIN_NOTES}). In between it is not
 * updated: a new word has no neighbours yet, and a word gone from the vault
 * leaves neighbours that match nothing — both harmless, unlike retraining on
 * every small change, which would make the first read after an edit pay for a
 * whole training.
 */
export const TERM_MODEL_RETRAIN_SHARE = 0.2;
export const TERM_MODEL_RETRAIN_MIN_NOTES = 50;

/** Characters of one section read for training (a giant pasted section says little more past this). */
const MAX_SECTION_CHARS = 20_000;

/**
 * `enabled`: whether a refresh trains the model at all. Off: the associated
 * words did not win on the eval's holdout and lost fresh Russian questions
 * (blind2: bridge.ts, eval/README.md), and training costs
 * seconds per cold index (9.9 s at 10k notes: eval/README.md); `npm run eval
 * -- --param enabled=true --param assocWeight=0.2 --param assocCredit=0.3` tries it.
 * @internal Mutable only so the eval can try values in-process (`--param`).
 */
export const TERM_MODEL_PARAMS: TermAssocParams & { maxChars: number; enabled: boolean } = { ...DEFAULT_TERM_ASSOC_PARAMS, maxChars: 4_000_000, enabled: false };

interface ModelState {
  /** Hash of the parameters the model was trained with. */
  params: string;
  /** Notes in the index when it was trained. */
  notes: number;
  /** Notes added, changed or deleted since. */
  drift: number;
  terms: number;
  tokens: number;
  took_ms: number;
}

const paramsKey = (p: typeof TERM_MODEL_PARAMS) => crypto.createHash('sha256').update(JSON.stringify(p)).digest('hex').slice(0, 16);

/** The content tokens of a text as the model counts them: stemmed, without stop words, one-letter words or bare numbers. */
export function contentTokens(text: string): string[] {
  const out: string[] = [];
  for (const w of lineWords(normalizeText(text))) {
    if (w.length < 2 || isStopWord(w) || /^\d+$/.test(w)) continue;
    out.push(stemWord(w));
  }
  return out;
}

function readState(db: Db): ModelState | null {
  const raw = storedMeta(db, 'term_model');
  return raw ? (JSON.parse(raw) as ModelState) : null;
}

function writeState(db: Db, s: ModelState): void {
  putMeta(db, 'term_model', JSON.stringify(s));
}

/**
 * Bring the model up to date after a refresh that touched `changedNotes`
 * notes: count them as drift, and retrain when due. Returns whether it trained.
 * Call inside the refresh's write transaction.
 */
export function updateTermModel(db: Db, changedNotes: number): boolean {
  if (!TERM_MODEL_PARAMS.enabled) {
    // A model left by an enabled run would go stale unseen: drop it (nothing to do in the usual case).
    if (storedMeta(db, 'term_model') !== undefined) {
      db.prepare('DELETE FROM term_neighbours').run();
      db.prepare(`DELETE FROM meta WHERE key = 'term_model'`).run();
    }
    return false;
  }
  const state = readState(db);
  const key = paramsKey(TERM_MODEL_PARAMS);
  if (state && state.params === key) {
    const drift = state.drift + changedNotes;
    if (drift <= TERM_MODEL_RETRAIN_MIN_NOTES || drift <= TERM_MODEL_RETRAIN_SHARE * state.notes) {
      if (changedNotes > 0) writeState(db, { ...state, drift });
      return false;
    }
  }
  trainTermModel(db, key);
  return true;
}

/** Train from the index's sections (an even sample of them past {@link TERM_MODEL_PARAMS}.maxChars) and replace the stored neighbours. */
function trainTermModel(db: Db, key: string): void {
  const t0 = performance.now();
  const p = TERM_MODEL_PARAMS;
  const notes = db.prepare(`SELECT count(*) FROM files WHERE kind = 'note'`).pluck().get() as number;
  const chars = (db.prepare(`SELECT sum(min(length(text), ${MAX_SECTION_CHARS})) FROM sections WHERE empty = 0`).pluck().get() as number | null) ?? 0;
  // Every step-th section (by id: notes in index order), so the sample spans the whole vault.
  const step = Math.max(1, Math.ceil(chars / p.maxChars));
  const texts = db
    .prepare(`SELECT substr(text, 1, ${MAX_SECTION_CHARS}) FROM sections WHERE empty = 0 ORDER BY id`)
    .pluck()
    .all() as string[];
  const sample: string[][] = [];
  for (let i = 0; i < texts.length; i += step) sample.push(contentTokens(texts[i]!));
  const model = trainTermAssociations(sample, p);
  db.prepare('DELETE FROM term_neighbours').run();
  const put = db.prepare('INSERT INTO term_neighbours(term, neighbours) VALUES (?, ?)');
  for (const [term, list] of model.neighbours) put.run(term, encodeNeighbours(list));
  writeState(db, { params: key, notes, drift: 0, terms: model.terms, tokens: model.tokens, took_ms: Math.round(performance.now() - t0) });
}

/** `term sim term sim …` (similarity to 3 decimals): a short row, parsed without JSON. */
function encodeNeighbours(list: readonly Neighbour[]): string {
  return list.map((n) => `${n.term} ${n.similarity.toFixed(3)}`).join(' ');
}

function decodeNeighbours(s: string): Neighbour[] {
  const parts = s.split(' ');
  const out: Neighbour[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) out.push({ term: parts[i]!, similarity: Number(parts[i + 1]) });
  return out;
}

/** The stored neighbours of these tokens (tokens without any are absent). One primary-key lookup each. */
export function termNeighbours(db: Db, tokens: readonly string[]): Map<string, Neighbour[]> {
  const out = new Map<string, Neighbour[]>();
  if (tokens.length === 0) return out;
  const rows = db
    .prepare('SELECT term, neighbours FROM term_neighbours WHERE term IN (SELECT value FROM json_each(?))')
    .raw()
    .all(JSON.stringify(tokens)) as [string, string][];
  for (const [term, list] of rows) out.set(term, decodeNeighbours(list));
  return out;
}

/** What the stored model says about itself (for `index` output and the bench), or null before the first training. */
export function termModelInfo(db: Db): { terms: number; tokens: number; took_ms: number; drift: number } | null {
  const s = readState(db);
  return s && { terms: s.terms, tokens: s.tokens, took_ms: s.took_ms, drift: s.drift };
}
