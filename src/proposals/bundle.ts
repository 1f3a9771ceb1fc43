import { bundleFromValue, type Bundle } from '../txn/index.js';
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
  // No content_file is ever named, so the base folder is never read. Round-tripped through
  // native JSON (exactly the value a bundle file would hold), then validated as a value:
  // the engine's strict parser reads character by character, seconds for a 12 MB proposal.
  const json = JSON.stringify(doc);
  const extra = captured.reduce((n, [, b]) => n + b.byteLength, 0);
  const bundle = bundleFromValue(JSON.parse(json), { baseDir: '/', byteLength: Buffer.byteLength(json, 'utf8') + extra });
  for (const [i, bytes] of captured) {
    const w = bundle.writes[i];
    if (w?.mode !== 'create') throw new Error('internal: a capture is one create');
    w.content = bytes;
  }
  return bundle;
}
