import crypto from 'node:crypto';
import canonicalizeModule from 'canonicalize';

// canonicalize ships CommonJS with an ESM-style `export default` declaration: at
// run time the default import is the function itself; the cast tells TypeScript so.
const canonicalize = canonicalizeModule as unknown as (input: unknown) => string | undefined;
import { unreachable } from '../errors.js';
import type { Bundle, BundleWrite } from './bundle-schema.js';

/**
 * The approval hash: SHA-256 over the RFC 8785 canonical JSON of everything a
 * person approves when they approve a bundle (DESIGN §5.1). Any difference at
 * apply time (another vault, a file changed, a mode changed, other new bytes)
 * gives another hash, and apply refuses.
 */
export interface ApprovalInput {
  vault_id: string;
  /** Device and inode of the vault root, as decimal strings (bigint-safe). */
  vault_root: { dev: string; ino: string };
  bundle: Bundle;
  writes: Array<{
    path: string;
    to?: string;
    old_sha256: string | null;
    new_sha256: string | null;
    old_mode: number | null;
    new_mode: number | null;
  }>;
  /** Read preconditions with the hash found on disk (equal to the pinned one, or inspect fails). */
  read_preconditions: Record<string, string>;
}

/** The bundle with content replaced by its hash and size: what the bytes are, not the bytes. */
export function expandedBundle(b: Bundle): Record<string, unknown> {
  return {
    schema: b.schema,
    operation_id: b.operation_id,
    operation_type: b.operation_type,
    writes: b.writes.map(expandedWrite),
    expected_hashes: b.expected_hashes,
    read_preconditions: b.read_preconditions,
  };
}

function expandedWrite(w: BundleWrite): Record<string, unknown> {
  switch (w.mode) {
    case 'create':
    case 'replace':
      return { path: w.path, mode: w.mode, content_sha256: sha(w.content), content_bytes: w.content.byteLength };
    case 'delete':
      return { path: w.path, mode: w.mode };
    case 'move':
      return { path: w.path, mode: w.mode, to: w.to };
    default:
      return unreachable(w, 'write mode');
  }
}

/** Identity of a bundle for replay: same expanded bundle → same hash, whatever the JSON formatting. */
export function bundleSha256(b: Bundle): string {
  return sha(canonicalize(expandedBundle(b))!);
}

export function approvalSha256(input: ApprovalInput): string {
  return sha(
    canonicalize({
      schema: 'vaultgate.approval.v1',
      vault_id: input.vault_id,
      vault_root: input.vault_root,
      bundle: expandedBundle(input.bundle),
      writes: input.writes,
      read_preconditions: input.read_preconditions,
    })!,
  );
}

function sha(data: string | Uint8Array): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}
