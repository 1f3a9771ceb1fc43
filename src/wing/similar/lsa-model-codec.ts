import type { LsaModel, LsaParams } from './lsa.js';

/**
 * An LSA model as stored in `models.body`: a JSON header (parameters,
 * vocabulary in column order, mean length, training size, singular values),
 * then the idf over sections, the idf over notes and the projection, as
 * little-endian float32.
 */
export function encodeLsaModel(m: LsaModel): Buffer {
  const terms = new Array<string>(m.terms.size);
  for (const [t, i] of m.terms) terms[i] = t;
  const header = Buffer.from(JSON.stringify({ id: m.id, params: m.params, dims: m.dims, terms, avgLen: m.avgLen, trained: m.trained, sigma: [...m.sigma] }), 'utf8');
  const idf = Float32Array.from(m.idf);
  const noteIdf = Float32Array.from(m.noteIdf);
  const out = Buffer.alloc(4 + header.length + idf.byteLength * 2 + m.projection.byteLength);
  out.writeUInt32LE(header.length, 0);
  header.copy(out, 4);
  Buffer.from(idf.buffer).copy(out, 4 + header.length);
  Buffer.from(noteIdf.buffer).copy(out, 4 + header.length + idf.byteLength);
  Buffer.from(m.projection.buffer, m.projection.byteOffset, m.projection.byteLength).copy(out, 4 + header.length + idf.byteLength * 2);
  return out;
}

export function decodeLsaModel(buf: Buffer): LsaModel {
  const n = buf.readUInt32LE(0);
  const h = JSON.parse(buf.subarray(4, 4 + n).toString('utf8')) as { id: string; params: LsaParams; dims: number; terms: string[]; avgLen: number; trained: number; sigma: number[] };
  const rest = new Uint8Array(buf.subarray(4 + n)); // copy: float arrays need alignment
  const v = h.terms.length;
  const idf = Float64Array.from(new Float32Array(rest.buffer, 0, v));
  const noteIdf = Float64Array.from(new Float32Array(rest.buffer, v * 4, v));
  const projection = new Float32Array(rest.buffer, v * 8, v * h.dims);
  return { id: h.id, params: h.params, dims: h.dims, terms: new Map(h.terms.map((t, i) => [t, i])), idf, noteIdf, avgLen: h.avgLen, sigma: Float64Array.from(h.sigma), projection, trained: h.trained };
}
