import type { ReviewCheck } from '../policy/index.js';

/**
 * The proposal model. A proposal is a list of exact file changes, each with the
 * hash of the version the agent read (`base_sha256`). Whatever form the agent
 * used (full text, a replacement, a section, an append), what is stored and
 * reviewed is the exact new text: review and apply never see an edit form.
 *
 * States (docs/proposals.md): `pending` (review found nothing blocking),
 * `blocked` (a check blocks), `applied`, `declined`, `recovery` (an apply
 * started and has not been seen to finish: a crash, or one in flight),
 * `undone` (applied, then its transaction was undone with `vaultgate undo`:
 * the vault no longer holds its change; `reopen` makes it reviewable again).
 */
export const PROPOSAL_STATES = ['pending', 'blocked', 'applied', 'declined', 'recovery', 'undone'] as const;
export type ProposalState = (typeof PROPOSAL_STATES)[number];
/** The open proposals: what waits for a person's decision (the inbox's queue, `proposals --state open`). */
export const OPEN_STATES: readonly ProposalState[] = ['pending', 'blocked'];

export type ChangeAction = 'write' | 'delete' | 'move';

/** One stored file change: an exact full-text change against a known base. */
export interface StoredChange {
  /** Vault-relative path (NFC, `/`); for a move, the source. */
  path: string;
  action: ChangeAction;
  /** Destination of a move, else null. */
  to: string | null;
  /** SHA-256 of the bytes the change is based on; null: the file must not exist (a new note). */
  base_sha256: string | null;
  /**
   * Text of that base version (a leading U+FEFF stands for a byte-order mark),
   * kept for diffs and rollback; null when there was no file or it was not UTF-8.
   */
  old_text: string | null;
  /**
   * The exact new text of a write (U+FEFF first when the bytes start with a BOM);
   * for a move, the moved note's new text when the move rewrites links inside it
   * (else null: the bytes move unchanged); null for a delete.
   */
  new_text: string | null;
  /** SHA-256 of the bytes after the change: the new text's for a write (and a move that rewrites), the base for a plain move, null for a delete. */
  new_sha256: string | null;
  /**
   * A capture (issue 22 §3): a create of a source's exact bytes at
   * `<captured folder>/<sha256>.<ext>` (`new_text` is null: the bytes may be
   * any file's). `source` is the file they were read from, as named when
   * proposed; review checks it still holds these bytes (the `source` check).
   */
  capture?: { source: string; bytes: Buffer };
}

/**
 * A folder a proposal moves whole (`propose --move Dir New`, `--rename Dir New`):
 * its changes list one move per file found when it was proposed, and review
 * blocks when the folder holds other files by then (issue 20): applying would
 * leave the newcomers behind and split the folder.
 */
export interface FolderMove {
  from: string;
  to: string;
}

/** Where a proposal came from. */
export type ProposalOrigin = 'propose' | 'rollback';

/** A proposal as the verbs report it. store.ts's ProposalRow repeats these fields in storage form (flags 0/1, JSON text) on purpose: the public type never follows a column's encoding. */
export interface ProposalRecord {
  /** `p-1`, `p-2`, …: short, stable, unique per vault. */
  id: string;
  state: ProposalState;
  title: string;
  summary: string | null;
  agent: string | null;
  session: string | null;
  scenario: string | null;
  allow_shrink: boolean;
  /** Existing links may change their target (link_stability warns instead of blocking). */
  allow_relink: boolean;
  /** Links to a deleted note may be left dangling (link_stability warns instead of blocking). */
  allow_broken_links: boolean;
  origin: ProposalOrigin;
  /** For a rollback proposal: the proposal it undoes. */
  rollback_of: string | null;
  /** The transaction's operation id (deterministic per proposal, so recovery maps back). */
  operation_id: string;
  created_at: string;
  updated_at: string;
  changes: StoredChange[];
  /** The folders moved whole (empty for anything else). */
  folder_moves: FolderMove[];
  /** The last review, or null before the first one finished. */
  review: StoredReview | null;
  /** The key of what the last review read (review-inputs.ts); null: it cannot be reused. */
  review_inputs: string | null;
  applied_at: string | null;
  changed_paths: string[] | null;
  declined_reason: string | null;
  /**
   * What every link the change adds opened when it was proposed (issue 22 §1):
   * a read precondition review and apply check again. null: proposed before
   * vaultgate recorded them (nothing to check).
   */
  link_targets: LinkTarget[] | null;
  /**
   * The claim a proposal made by `plan --propose` rests on, with every fragment
   * it cites as verified when proposed (issue 22 §2); null for any other proposal.
   */
  claim: ProposalClaim | null;
  /** While undone: when, and the engine operation that undid it (`_undo-<operation_id>`); else null. */
  undone_at: string | null;
  undone_by: string | null;
  /** Where the proposal's text came from, when a tool made it from a source (atomize); null otherwise. */
  provenance: Provenance | null;
  /** The operation type whose scope the change must stay in (`propose --type T`; default `generic`). */
  operation_type: string;
}

/**
 * A proposal made by `atomize promote` (issue 24): the source the notes were
 * cut from, its text kept by hash in the store (so review can check every
 * sentence against it even when the work folder is gone), and whether the
 * person allowed novel sentences (`--allow-novel`). Review's `verbatim` check runs on it.
 */
export interface Provenance {
  kind: 'atomize';
  /** The source's vault path, or its file name when it is outside the vault. */
  source: string;
  source_sha256: string;
  allow_novel: boolean;
  /**
   * Every note of the same atomize run (its final path → sha256 of its text),
   * across all its proposals: a link to one of them that opened nothing when
   * this proposal was made (its batch was not applied yet) may open it later,
   * with exactly those bytes, without failing link_target.
   */
  notes?: Record<string, string>;
  /** The source's text (null when the store no longer holds it). */
  source_text: string | null;
}

/**
 * A new link's target as recorded at propose time: the link as written in the
 * note it goes into, and the file it opened with the SHA-256 of that file's
 * bytes (after the change, when the proposal writes it). Review resolves the
 * link text again and blocks (`link_target`) when it no longer opens that
 * file with those bytes; apply refuses (LINK_TARGET_CHANGED, 75).
 */
export interface LinkTarget {
  /** The note the link is written into (where it is after the change). */
  source: string;
  /** Line in the new text (for people; links are matched by kind and text). */
  line: number;
  kind: string;
  raw: string;
  /** resolved | unindexed | unresolved | ambiguous, when proposed. */
  status: string;
  /** The file it opened (null: it opened none). */
  target: string | null;
  /** SHA-256 of that file's bytes (null: no file). */
  target_sha256: string | null;
}

/**
 * The claim behind a proposal made from a plan (issue 22 §2): the accepted
 * recommendation it carries out, and the catalog fragments it cites.
 */
export interface ProposalClaim {
  text: string;
  /** The recommendation's kind (`link_a_to_b`, `link_b_to_a`). */
  kind: string;
  catalog_id: string;
  answer_id: number;
  /** Index of the recommendation in that answer. */
  recommendation: number;
  /** evidence_a, then evidence_b, then the anchor when it is not already cited. */
  evidence: EvidenceFragment[];
}

/** One cited fragment as it was verified when the proposal was made: exact text of its note. */
export interface EvidenceFragment {
  /** The catalog's fragment id. */
  id: string;
  side: 'A' | 'B';
  /** The note it is in (vault path). */
  note: string;
  /** Heading path of its section. */
  heading: string[];
  /** 1-based inclusive lines in the note. */
  lines: [number, number];
  text: string;
  /** It is where the link goes (the recommendation's anchor). */
  anchor: boolean;
  /** SHA-256 of the note's bytes it was verified against. */
  note_sha256: string;
}

/**
 * What review found of a cited fragment: `ok` (its text is still in the
 * section of its lines), `moved` (still in the note, elsewhere: `found_lines`),
 * `changed` (no longer in the note), `note_gone` (no note at its path: deleted
 * or moved away, or unreadable).
 */
export type EvidenceStatus = 'ok' | 'moved' | 'changed' | 'note_gone';

/** A cited fragment as show and review list it (docs/json.md): the stored fragment, without its note hash, with what review found. */
export interface EvidenceView extends Omit<EvidenceFragment, 'note_sha256'> {
  status: EvidenceStatus | 'unchecked';
  found_lines?: [number, number];
}

/** A link named in a review (links_added, and links_removed with `status: null`). */
export interface ReviewLink {
  line: number;
  kind: string;
  raw: string;
  /** resolved | ambiguous | unresolved | unindexed | external; null for a removed link. */
  status: string | null;
  target: string | null;
  candidates: string[] | null;
  /** The heading or block part: `{kind, value, exists}` (`exists: null` when it cannot be checked). */
  subpath: { kind: string; value: string; exists: boolean | null } | null;
}

/** A link that resolves today and will not after the change. */
export interface BrokenLink {
  /** The note holding the link. */
  source: string;
  line: number;
  raw: string;
  /** unresolved | ambiguous | missing_anchor */
  reason: string;
  /** Where it points now (before the change). */
  target: string | null;
}

/** A link the proposal rewrites so it keeps opening the same file (a move) or heading (a heading rename). */
export interface RewrittenLink {
  /** Line in the new text. */
  line: number;
  kind: string;
  /** The link as written before and after. */
  before: string;
  after: string;
  /** The file it opens after the change. */
  target: string | null;
}

/**
 * Why an existing link's answer moves. Intended (never blocks): `rewritten`,
 * `follows_move` (its text still names the moved file), `now_resolves` (it
 * dangled, the change creates what it names), `was_ambiguous` (a tie that now
 * opens one of its candidates). `target_deleted`:
 * the note it opens is deleted and it dangles (blocks unless
 * `--allow-broken-links`). Unintended (block unless `--allow-relink`):
 * `retargeted` (it opens another file), `unresolved`, `ambiguous`.
 */
export type LinkChangeReason = 'rewritten' | 'follows_move' | 'now_resolves' | 'was_ambiguous' | 'target_deleted' | 'retargeted' | 'unresolved' | 'ambiguous';

/** An existing link whose resolution the proposal would move (link_stability). */
export interface LinkChange {
  /** The note holding the link (where it is after the change). */
  source: string;
  /** Line of the link (in the note after the change). */
  line: number;
  kind: string;
  /** The link as written now. */
  raw: string;
  /** The link as the proposal rewrites it. */
  raw_after?: string;
  /** Inside a `%%comment%%`: not rewritten by a move, never blocks. */
  in_comment: boolean;
  before: { status: string; target: string | null };
  after: { status: string; target: string | null; candidates: string[] | null };
  reason: LinkChangeReason;
  intended: boolean;
}

export interface ReviewFile {
  path: string;
  action: ChangeAction;
  to?: string;
  /** The base the change applies to (null: a new file). */
  old_sha256: string | null;
  /** The bytes after the change (null: deleted). */
  new_sha256: string | null;
  /** Unified diff of this file (git style); empty for a pure move. */
  diff: string;
  links_added: ReviewLink[];
  links_removed: ReviewLink[];
  /** Links the proposal rewrites to keep their target (a move, a heading rename). */
  links_rewritten: RewrittenLink[];
  links_broken: BrokenLink[];
  /** Share of the old text the change removes, 0–1 (1 for a delete; 0 when the note grows). */
  shrink: number;
}

export interface StoredReview {
  /** pending or blocked: what the checks say. */
  verdict: 'pending' | 'blocked';
  checks: ReviewCheck[];
  files: ReviewFile[];
  diff: string;
  /** Every existing link whose resolution the proposal moves, intended or not (link_stability). */
  link_changes: LinkChange[];
  /**
   * What the person approves: a hash over the transaction engine's approval
   * hash of the exact bundle (`approval_sha256`) and the set of link changes
   * (`link_changes`, issue 20 class 6); null when the bundle could not be
   * planned (base, path or link_target failed).
   */
  review_hash: string | null;
  /** Each cited fragment as this review found it (only for a proposal with a claim). */
  evidence?: EvidenceView[];
  /** The engine's approval hash of the bundle (absent in reviews stored before issue 20: their review_hash was it). */
  approval_sha256?: string | null;
  reviewed_at: string;
}

/** Whether an event says a rollback was proposed: `rollback_proposed`, or a `rolled_back` a log before issue 21 wrote at proposal time (it carries `details.state`). */
export function isRollbackProposed(e: Pick<AuditEvent, 'event' | 'details'>): boolean {
  return e.event === 'rollback_proposed' || (e.event === 'rolled_back' && typeof e.details?.state === 'string');
}

/** One event of the append-only audit log. */
export interface AuditEvent {
  seq: number;
  at: string;
  /**
   * `rollback_proposed` (on an applied proposal, when `rollback` proposed its inverse) and
   * `rolled_back` (on it, when that inverse was applied). Logs written before issue 21 have
   * `rolled_back` with `details.state` at proposal time: that one means `rollback_proposed`
   * ({@link isRollbackProposed}).
   */
  event: 'proposed' | 'reviewed' | 'applied' | 'declined' | 'reopened' | 'rollback_proposed' | 'rolled_back' | 'recovery' | 'undone';
  /** The agent's name, or `operator`. */
  actor: string;
  proposal: string | null;
  operation_id: string | null;
  review_hash: string | null;
  details: Record<string, unknown>;
}
