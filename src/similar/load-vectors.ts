import type { NoteVectors } from './score.js';
import { decodeDense, decodeSparse, normalize } from './sparse.js';
import type { VectorDb } from './vector-store.js';

/**
 * Every note's vectors for one (provider, model), as scoring needs them:
 * note-level dense (and sparse) vectors, and each section's normalised dense
 * vector with its length. A section with no vector (no known term) gets length 0.
 */
export function loadNoteVectors(store: VectorDb, provider: string, model: string, only?: ReadonlySet<string>): Map<string, NoteVectors> {
  const dense = new Map<string, Float32Array>();
  for (const r of store.prepare('SELECT hash, dense FROM vectors WHERE provider = ? AND model = ?').iterate(provider, model) as Iterable<{ hash: string; dense: Buffer }>) {
    dense.set(r.hash, decodeDense(r.dense));
  }
  const out = new Map<string, NoteVectors>();
  for (const r of store.prepare('SELECT path, sections, dense, sparse FROM notes WHERE provider = ? AND model = ?').iterate(provider, model) as Iterable<{ path: string; sections: string; dense: Buffer; sparse: Buffer | null }>) {
    if (only && !only.has(r.path)) continue;
    const sections = (JSON.parse(r.sections) as { heading_path: string[]; lines: [number, number]; hash: string; len: number }[]).map((s) => {
      const v = dense.get(s.hash);
      const zero = !v || v.every((x) => x === 0);
      return { heading_path: s.heading_path, lines: s.lines, dense: zero ? new Float32Array(0) : normalize(v!), len: zero ? 0 : s.len };
    });
    out.set(r.path, { path: r.path, dense: decodeDense(r.dense), sparse: r.sparse ? decodeSparse(r.sparse) : null, sections });
  }
  return out;
}
