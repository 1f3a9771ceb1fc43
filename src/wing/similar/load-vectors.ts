import type { NoteVectors, SectionVector } from './score.js';
import { decodeSparse, type SparseVec } from './sparse.js';
import type { VectorDb } from './vector-store.js';

/**
 * Notes' vectors for one (provider, model), as scoring needs them: note-level
 * dense (and sparse) vectors, and each section's normalised dense vector with
 * its length — one row per note, no JSON (a section's heading path and lines
 * are read apart, {@link loadSectionRefs}, for the notes a command shows).
 * A section without a vector (no known term, or empty) has length 0.
 */
export function forEachNoteVectors(store: VectorDb, provider: string, model: string, fn: (v: NoteVectors) => void, only?: readonly string[]): void {
  forEachNoteRow(
    store,
    provider,
    model,
    (r) => {
      const { lens, all, dims } = r;
      const sections: SectionVector[] = new Array(lens.length);
      for (let i = 0; i < lens.length; i++) sections[i] = { dense: lens[i] ? all.subarray(i * dims, (i + 1) * dims) : EMPTY, len: lens[i]! };
      fn({ path: r.path, dense: r.dense, sparse: r.sparse, sections });
    },
    only,
  );
}

/** A note's row as stored: its sections' lengths and vectors packed (`dims` floats each), not yet split into objects. */
export interface NoteRow {
  path: string;
  dense: Float32Array;
  sparse: SparseVec | null;
  lens: Int32Array;
  all: Float32Array;
  dims: number;
}

/** Every note's row, packed: what a scan of the whole vault reads without building a {@link NoteVectors} per note. */
export function forEachNoteRow(store: VectorDb, provider: string, model: string, fn: (r: NoteRow) => void, only?: readonly string[]): void {
  const sql = 'SELECT path, dense, sparse, section_len, section_dense FROM notes WHERE provider = ? AND model = ?';
  const rows = (only ? store.prepare(`${sql} AND path IN (SELECT value FROM json_each(?))`).iterate(provider, model, JSON.stringify(only)) : store.prepare(sql).iterate(provider, model)) as Iterable<{
    path: string;
    dense: Buffer;
    sparse: Buffer | null;
    section_len: Buffer;
    section_dense: Buffer;
  }>;
  for (const r of rows) {
    const lens = i32(r.section_len);
    const all = f32(r.section_dense);
    fn({ path: r.path, dense: f32(r.dense), sparse: r.sparse ? sparseView(r.sparse) : null, lens, all, dims: lens.length ? all.length / lens.length : 0 });
  }
}

/** A note's row without its sections: what a scan reads first (the section blobs lie after it in the row). */
export interface NoteHead {
  rowid: number;
  path: string;
  dense: Float32Array;
  sparse: SparseVec | null;
}

/** A note's sections, packed: what {@link scanNoteHeads} hands a scan that asks for them. */
export type PackedSections = Omit<NoteRow, keyof NoteHead>;

/**
 * Notes scanned before {@link scanNoteHeads} judges whether its scan skips
 * enough notes' sections to be worth reading them one by one.
 */
const JUDGE_AFTER = 256;
/** Past this share of notes whose sections were read, the rest of the scan reads every note's sections with its head. */
const MOSTLY_READ = 0.75;

/**
 * Every note's head, in rowid order, each with `sections()` to read its
 * sections (the blobs after the head in the same row) only when the scan
 * needs them. A scan that can rule out most notes by their heads reads little
 * else; one that needs nearly every note's sections (a note unlike the rest of
 * the vault keeps the bar to beat low) pays a second lookup per row for them:
 * once {@link MOSTLY_READ} of the first {@link JUDGE_AFTER} notes asked, the
 * rest are read whole in the same pass (10k notes: ~220 → ~150 ms of reads).
 * The order is the table's, not the paths': scoring every note does not
 * depend on it, and reading the table in order costs least.
 */
export function scanNoteHeads(store: VectorDb, provider: string, model: string, fn: (h: NoteHead, sections: () => PackedSections) => void): void {
  // `+provider`: the table in rowid order, not the notes_hash index (a table lookup per note).
  const heads = store.prepare('SELECT rowid, path, dense, sparse FROM notes WHERE +provider = ? AND +model = ? ORDER BY rowid');
  const one = store.prepare('SELECT section_len, section_dense FROM notes WHERE rowid = ?');
  let seen = 0;
  let read = 0;
  let last: number | null = null;
  let whole = false;
  for (const r of heads.iterate(provider, model) as Iterable<HeadColumns>) {
    const head = headOf(r);
    last = r.rowid;
    seen++;
    fn(head, () => {
      read++;
      return packed(one.get(r.rowid) as SectionColumns);
    });
    // Leaving the loop ends the statement (better-sqlite3 resets it).
    if (seen === JUDGE_AFTER && read >= MOSTLY_READ * seen) {
      whole = true;
      break;
    }
  }
  if (!whole) return;
  const rest = store.prepare('SELECT rowid, path, dense, sparse, section_len, section_dense FROM notes WHERE +provider = ? AND +model = ? AND rowid > ? ORDER BY rowid');
  for (const r of rest.iterate(provider, model, last) as Iterable<HeadColumns & SectionColumns>) {
    const sections = packed(r);
    fn(headOf(r), () => sections);
  }
}

interface HeadColumns {
  rowid: number;
  path: string;
  dense: Buffer;
  sparse: Buffer | null;
}

interface SectionColumns {
  section_len: Buffer;
  section_dense: Buffer;
}

function headOf(r: HeadColumns): NoteHead {
  return { rowid: r.rowid, path: r.path, dense: f32(r.dense), sparse: r.sparse ? sparseView(r.sparse) : null };
}

function packed(r: SectionColumns): PackedSections {
  const lens = i32(r.section_len);
  const all = f32(r.section_dense);
  return { lens, all, dims: lens.length ? all.length / lens.length : 0 };
}

const EMPTY = new Float32Array(0);

// Views on the blobs SQLite handed over (each its own allocation), copied only when not 4-byte aligned.
const f32 = (b: Buffer) => (b.byteOffset % 4 === 0 ? new Float32Array(b.buffer, b.byteOffset, b.byteLength >> 2) : new Float32Array(Uint8Array.from(b).buffer));
const i32 = (b: Buffer) => (b.byteOffset % 4 === 0 ? new Int32Array(b.buffer, b.byteOffset, b.byteLength >> 2) : new Int32Array(Uint8Array.from(b).buffer));

/** sparse.ts encodeSparse's layout (n, ids, values), as views. */
function sparseView(b: Buffer): SparseVec {
  if (b.byteOffset % 4 !== 0) return decodeSparse(b);
  const n = b.readUInt32LE(0);
  return { idx: new Int32Array(b.buffer, b.byteOffset + 4, n), val: new Float32Array(b.buffer, b.byteOffset + 4 + n * 4, n) };
}

/** Every note's vectors (or only those of `only`), by path. */
export function loadNoteVectors(store: VectorDb, provider: string, model: string, only?: readonly string[]): Map<string, NoteVectors> {
  const out = new Map<string, NoteVectors>();
  forEachNoteVectors(store, provider, model, (v) => out.set(v.path, v), only);
  return out;
}

/** Notes stored for (provider, model). */
export function countNoteVectors(store: VectorDb, provider: string, model: string): number {
  return store.prepare('SELECT count(*) FROM notes WHERE provider = ? AND model = ?').pluck().get(provider, model) as number;
}

/** A section as shown: its heading path and lines. */
export interface SectionRef {
  heading_path: string[];
  lines: [number, number];
}

/** The given notes' sections (heading paths and lines), in section order. */
export function loadSectionRefs(store: VectorDb, provider: string, model: string, paths: readonly string[]): Map<string, SectionRef[]> {
  const out = new Map<string, SectionRef[]>();
  const rows = store
    .prepare('SELECT path, sections FROM note_sections WHERE provider = ? AND model = ? AND path IN (SELECT value FROM json_each(?))')
    .all(provider, model, JSON.stringify([...new Set(paths)])) as { path: string; sections: string }[];
  for (const r of rows) out.set(r.path, (JSON.parse(r.sections) as SectionRef[]).map((s) => ({ heading_path: s.heading_path, lines: s.lines })));
  return out;
}
