import { bundleFromValue, MAX_BUNDLE_BYTES, type Bundle } from '../txn/index.js';
import type { StoredChange } from './types.js';

/**
 * The transaction a proposal becomes. Built through the engine's own parser
 * (`parseBundle`), so every rule the engine applies to a bundle — portable NFC
 * paths, reserved folders, case-fold collisions inside the change, a file that
 * is also a folder, size and count limits — applies to a proposal unchanged,
 * with the engine's error codes. `operation_id` is the proposal's own
 * (deterministic), so an interrupted apply maps back to its proposal.
 */
export const PROPOSAL_OPERATION_TYPE = 'generic';

/**
 * `readPreconditions`: files the change does not write but depends on, pinned to
 * their hash — the targets of the links it adds (issue 22 §1): the engine checks
 * them under the vault lock right before it writes, and they are part of the
 * approval hash.
 */
export function proposalBundle(operationId: string, changes: readonly StoredChange[], readPreconditions: Record<string, string> = {}, operationType: string = PROPOSAL_OPERATION_TYPE): Bundle {
  // a capture's bytes may be any file's (a PDF): they are not JSON text, so the write
  // is validated with an empty placeholder and given its exact bytes after (capture.ts)
  const captured: Array<[number, Buffer]> = [];
  const writes = changes.flatMap((c): Array<Record<string, unknown>> => {
    switch (c.action) {
      case 'write':
        if (c.capture) return [{ path: c.path, mode: 'create', content: '' }];
        return [{ path: c.path, mode: c.base_sha256 === null ? 'create' : 'replace', content: c.new_text }];
      case 'delete':
        return [{ path: c.path, mode: 'delete' }];
      case 'move':
        // A move that rewrites links inside the moved note is the old file deleted and
        // the new text created at the destination, in the same transaction.
        return c.new_text === null ? [{ path: c.path, mode: 'move', to: c.to }] : [{ path: c.path, mode: 'delete' }, { path: c.to, mode: 'create', content: c.new_text }];
    }
  });
  const expected: Record<string, string | null> = {};
  for (const c of changes) {
    expected[c.path] = c.base_sha256;
    if (c.action === 'move') expected[c.to!] = null;
  }
  let at = 0;
  for (const c of changes) {
    if (c.capture) captured.push([at, c.capture.bytes]);
    at += c.action === 'move' && c.new_text !== null ? 2 : 1;
  }
  const doc = { schema: 'vaultgate.transaction.v1', operation_id: operationId, operation_type: operationType, writes, expected_hashes: expected, read_preconditions: readPreconditions };
  // No content_file is ever named, so the base folder is never read. Validated as a value (the
  // engine's strict parser reads character by character, seconds for a 12 MB proposal). The value
  // is already what a bundle file would hold: plain objects of strings and nulls, which a native
  // JSON round trip gives back unchanged — it used to be made anyway, a copy of every text each
  // time (propose, review, apply; issue 20 §8). The encoding's length is only held against
  // MAX_BUNDLE_BYTES: an upper bound does when it is under it, the exact length is made otherwise.
  const extra = captured.reduce((n, [, b]) => n + b.byteLength, 0);
  const bound = jsonBytesBound(doc);
  const byteLength = (bound <= MAX_BUNDLE_BYTES ? bound : Buffer.byteLength(JSON.stringify(doc), 'utf8')) + extra;
  // built here, of strings and nulls: its shape is checked by hand (src/txn: the schema only for a value that fails)
  const bundle = bundleFromValue(doc, { baseDir: '/', byteLength, built: true });
  for (const [i, bytes] of captured) {
    const w = bundle.writes[i];
    if (w?.mode !== 'create') throw new Error('internal: a capture is one create');
    w.content = bytes;
  }
  return bundle;
}

/**
 * At least the UTF-8 length of `JSON.stringify(v)` for plain JSON values: a
 * UTF-16 unit escapes to at most 6 bytes (`\u001f`), and every mark of
 * structure is counted generously.
 */
function jsonBytesBound(v: unknown): number {
  if (typeof v === 'string') return 6 * v.length + 2;
  if (Array.isArray(v)) return v.reduce((n: number, x) => n + jsonBytesBound(x) + 1, 2);
  if (v !== null && typeof v === 'object') return Object.entries(v).reduce((n, [k, x]) => n + jsonBytesBound(k) + jsonBytesBound(x) + 2, 2);
  return 32; // a number, a boolean, null
}
