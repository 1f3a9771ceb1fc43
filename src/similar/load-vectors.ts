import type { NoteVectors } from './score.js';
import { decodeDense, decodeSparse } from './sparse.js';
import type { VectorDb } from './vector-store.js';

/**
 * Every note's vectors for one (provider, model), as scoring needs them:
 * note-level dense (and sparse) vectors, and each section's normalised dense
 * vector with its length — one row per note. A section without a vector (no
 * known term, or empty) gets length 0.
 */
export function loadNoteVectors(store: VectorDb, provider: string, model: string, only?: ReadonlySet<string>): Map<string, NoteVectors> {
  const out = new Map<string, NoteVectors>();
  const rows = store.prepare('SELECT path, sections, dense, sparse, section_dense FROM notes WHERE provider = ? AND model = ?').iterate(provider, model) as Iterable<{
    path: string;
    sections: string;
    dense: Buffer;
    sparse: Buffer | null;
    section_dense: Buffer;
  }>;
  for (const r of rows) {
    if (only && !only.has(r.path)) continue;
    const meta = JSON.parse(r.sections) as { heading_path: string[]; lines: [number, number]; len: number }[];
    const all = decodeDense(r.section_dense);
    const dims = meta.length ? all.length / meta.length : 0;
    const sections = meta.map((s, i) => {
      const v = all.subarray(i * dims, (i + 1) * dims);
      const zero = v.every((x) => x === 0);
      return { heading_path: s.heading_path, lines: s.lines, dense: zero ? new Float32Array(0) : v, len: zero ? 0 : s.len };
    });
    out.set(r.path, { path: r.path, dense: decodeDense(r.dense), sparse: r.sparse ? decodeSparse(r.sparse) : null, sections });
  }
  return out;
}
