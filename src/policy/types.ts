/**
 * The contract between review (src/proposals) and the write policy
 * (src/policy): what a proposed change looks like to a policy check, and what
 * a check answers. Policy knows nothing of how proposals are stored; review
 * knows nothing of how areas, managed blocks or scenarios are configured.
 */

/** One file of a proposal, as review sees it after every edit form became an exact full-text change. */
export interface ProposedFile {
  /** Vault-relative path (NFC, `/`). For a move: the source. */
  path: string;
  action: 'write' | 'delete' | 'move';
  /** Destination of a move. */
  to?: string;
  /** Text now on disk (null: the file does not exist). */
  old_text: string | null;
  /** Text after the change (null for a delete; for a move, the moved text). */
  new_text: string | null;
  old_sha256: string | null;
  new_sha256: string | null;
}

/** One named check of a review (DESIGN §5.2). A check with `ok: false` and severity `block` makes the proposal `blocked`. */
export interface ReviewCheck {
  /** Stable name: base, path, owner, managed_blocks, frontmatter, links, scenario, validator, shrink, … */
  name: string;
  ok: boolean;
  severity: 'block' | 'warn';
  message: string;
  path?: string;
  /** Machine-readable specifics (e.g. the offending keys, lines, links). */
  details?: Record<string, unknown>;
}

/** Who owns a part of the vault (DESIGN §5.2): only `human` areas are writable by proposals. */
export type AreaOwner = 'human' | 'imported' | 'repo_mirror' | 'compiled' | 'unknown';
