import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { loadScenario, type ReviewCheck } from '../policy/index.js';
import type { VaultSession } from '../session/index.js';
import { storeFile } from '../store/index.js';
import { applyBundle, checkScope, currentUndo, readDone, readLockOwner, realFsOps, txnLayout, UNDO_PREFIX } from '../txn/index.js';
import type { NoteModel } from '../markdown/index.js';
import { sha256Hex } from '../vault/index.js';
import { proposalBundle } from './bundle.js';
import { defaultTitle, resolveChanges } from './changes.js';
import type { ChangeRequest } from './requests.js';
import { asProposal, forProposal } from './engine-errors.js';
import { rewriteLinks, type LinkRewriter } from './link-rewrite.js';
import { readLinkFormat } from '../links/index.js';
import { type ExpectedLinkTarget } from './link-targets.js';
import { proposalPins, runReview, type ReviewReuse } from './review.js';
import type { CaptureOutcome } from './capture.js';
import { diffLinkEffects } from './review-hash.js';
import type { Bundle } from '../txn/index.js';
import { collectAfterBig } from './collect.js';
import { lazyProperty } from './lazy.js';
import { fileHashes, now, PROPOSAL_STORE, ProposalStore, unknownProposal, type ListFilter, type LogFilter, type ProposalSummary } from './store.js';
import type { AuditEvent, EvidenceView, FolderMove, ProposalClaim, ProposalRecord, ProposalState, Provenance, StoredChange, StoredReview } from './types.js';
import { uncheckedEvidence } from './evidence-check.js';
import { evidenceKeys } from './review-hash.js';

/**
 * The proposal loop (DESIGN §5.2, docs/proposals.md): propose → review →
 * apply | decline → reopen, rollback, history. Every face (CLI, MCP server,
 * inboxes) calls these and nothing else; none of them holds logic of its own.
 *
 * `actor` is who acts, for the audit log: the agent's name, or `operator`.
 */

export interface ProposeInput {
  title?: string;
  summary?: string;
  agent?: string;
  session?: string;
  scenario?: string;
  allow_shrink?: boolean;
  /** Existing links may change their target (the link_stability check warns instead of blocking). */
  allow_relink?: boolean;
  /** Links to a deleted note may dangle (the link_stability check warns instead of blocking). */
  allow_broken_links?: boolean;
  changes: ChangeRequest[];
  /**
   * The operation type whose scope every written path must stay in (`propose --type T`,
   * a changes document's `"type"`); the vault's table (`operations` in config.yaml). Default `generic`.
   */
  type?: string;
  /** @internal A plan's link as `plan` checked it: recorded as the link's target precondition as planned (issue 22 §1). */
  expect_link_targets?: ExpectedLinkTarget[];
  /** @internal A plan's claim and the fragments it cites, as verified when proposed (issue 22 §2). */
  claim?: ProposalClaim;
  /** @internal The source a tool made the text from (atomize): review's `verbatim` check reads it. */
  provenance?: Provenance;
}

/** The claim a plan's proposal carries out (issue 22 §2), shown beside its `evidence`. */
export type ClaimView = Omit<ProposalClaim, 'evidence'>;

/** What review reports (the `review` JSON without its `proposal`). */
export interface ReviewView {
  checks: ReviewCheck[];
  files: StoredReview['files'];
  diff: string;
  link_changes: StoredReview['link_changes'];
  review_hash: string | null;
  /** Only for a proposal made from a plan: the claim, and every fragment it cites with what the review found. */
  claim?: ClaimView;
  evidence?: EvidenceView[];
}

export interface ProposeResult {
  proposal: { id: string; state: ProposalState; title: string; files: ProposalFileView[]; rollback_of?: string; operation_type?: string };
  review: ReviewView;
  /** One entry per capture asked for: where its bytes are stored (`existing`: already there, not part of this proposal). */
  captures?: CaptureOutcome[];
}

export interface ProposalFileView {
  path: string;
  action: StoredChange['action'];
  to?: string;
  base_sha256: string | null;
  new_sha256: string | null;
  /** A capture: the source its bytes were read from. */
  captured_from?: string;
}

export interface ReviewResult extends ReviewView {
  proposal: { id: string; state: ProposalState };
}

export interface ApplyResultView {
  operation_id: string;
  changed_paths: string[];
  proposal: { id: string; state: 'applied' };
  /** True when the proposal had already been applied: its stored result. */
  replayed?: true;
}

/** Longest title, summary, and agent/session/scenario name, in characters. */
export const LIMITS = { title: 300, summary: 20_000, name: 200, reason: 2_000 } as const;

function checkText(what: string, value: string | undefined, max: number): string | null {
  if (value === undefined) return null;
  if (value.length > max) {
    throw new VaultgateError('INVALID_INPUT', `${what} is ${value.length} characters, over ${max}`, { details: { actual: value.length, limit: max }, hint: `Shorten ${what}.` });
  }
  return value;
}

/** The claim and its evidence beside the checks (issue 22 §2): as the review found them, or unchecked before one. */
function claimView(claim: ProposalClaim | null | undefined, r: StoredReview | null): Pick<ReviewView, 'claim' | 'evidence'> {
  if (!claim) return {};
  const { evidence, ...head } = claim;
  return { claim: head, evidence: r?.evidence ?? uncheckedEvidence({ ...head, evidence }) };
}

const view = (r: StoredReview | null, claim?: ProposalClaim | null): ReviewView => {
  if (r === null) return { checks: [], files: [], diff: '', link_changes: [], review_hash: null, ...claimView(claim, r) };
  // reviews stored before the link-stability check have no link_changes, nor links_rewritten
  const v: ReviewView = { checks: r.checks, files: r.files.map((f) => ({ ...f, links_rewritten: f.links_rewritten ?? [] })), diff: '', link_changes: r.link_changes ?? [], review_hash: r.review_hash, ...claimView(claim, r) };
  // the joined diff (as large as the change) is made when read, by whoever prints it, and not held
  lazyProperty(v, 'diff', () => r.diff, { keep: false });
  return v;
};

/** `{...head, ...view(r)}`, keeping the view's lazy diff lazy (a spread would make it at once, and hold it). */
function withView<H extends object>(head: H, r: StoredReview | null, claim?: ProposalClaim | null): H & ReviewView {
  return Object.defineProperties(head, Object.getOwnPropertyDescriptors(view(r, claim))) as H & ReviewView;
}

const filesView = (changes: readonly StoredChange[]): ProposalFileView[] =>
  changes.map((c) => ({ path: c.path, action: c.action, ...(c.to === null ? {} : { to: c.to }), base_sha256: c.base_sha256, new_sha256: c.new_sha256, ...(c.capture ? { captured_from: c.capture.source } : {}) }));

function withStore<T>(session: VaultSession, body: (store: ProposalStore) => T): T {
  const store = ProposalStore.open(session.root, session.env);
  try {
    return body(store);
  } finally {
    store.close();
  }
}

async function withStoreAsync<T>(session: VaultSession, body: (store: ProposalStore) => Promise<T>): Promise<T> {
  const store = ProposalStore.open(session.root, session.env);
  try {
    return await body(store);
  } finally {
    store.close();
  }
}

/** Like withStore, but a vault with no store yet is answered by `absent` (reads create nothing). */
function withExistingStore<T>(session: VaultSession, absent: () => T, body: (store: ProposalStore) => T): T {
  if (!fs.existsSync(storeFile(session.root, session.env, PROPOSAL_STORE.name))) return absent();
  return withStore(session, body);
}

/** The audit event of a review just saved: its verdict, what blocks it, how many warnings, and `extra` details. */
function reviewedEvent(p: ProposalRecord, review: StoredReview, what: { actor: string; event: AuditEvent['event']; extra?: Record<string, unknown> }): Omit<AuditEvent, 'seq' | 'at'> {
  const { actor, event, extra = {} } = what;
  const blocking = review.checks.filter((c) => !c.ok && c.severity === 'block').map((c) => c.name);
  return {
    event,
    actor,
    proposal: p.id,
    operation_id: p.operation_id,
    review_hash: review.review_hash,
    details: { state: review.verdict, blocking: [...new Set(blocking)], warnings: review.checks.filter((c) => !c.ok && c.severity === 'warn').length, ...extra },
  };
}

/** A proposal to store and review ({@link storeAndReview}), with what its making already knows. */
interface NewProposal {
  proposal: Parameters<ProposalStore['insert']>[0];
  actor: string;
  /** The notes parsed while making it (default: the store's kept parses). */
  parsed?: Map<string, NoteModel>;
  /** What the agent expects its links to open (`expect_link_targets`). */
  expected?: readonly ExpectedLinkTarget[];
  /** The same changes' bundle, validated before storing under a placeholder id. */
  checked?: Bundle;
  /** The changes were resolved from the vault a moment ago (propose): their bases are what the review reads. */
  resolved?: boolean;
}

/** Store a new proposal and review it at once, so the agent learns immediately whether it is pending or blocked. */
async function storeAndReview(session: VaultSession, store: ProposalStore, np: NewProposal): Promise<ProposeResult> {
  const { proposal: p, actor, parsed, expected = [], checked, resolved = false } = np;
  const rec = store.insert(p, actor);
  collectAfterBig(rec.changes); // the texts' encodings and their deflated copies are garbage now
  // the first review records what every new link opens: the precondition every later review checks;
  // `checked`: the same changes' bundle, validated before storing under a placeholder id; only the id differs
  const memo = parsed ?? store.parses();
  const inputs: ReviewReuse = { last: null };
  const review = await runReview(session, rec, {
    parsed: memo,
    knownKeys: store.knownTextKeys(),
    record: { expected, done: (targets) => store.setLinkTargets(rec.id, targets) },
    ...(checked ? { bundle: { ...checked, operation_id: rec.operation_id } } : {}),
    inputs,
    resolved,
  });
  // review and apply read these back instead of parsing the same texts again (issue 20 §8)
  store.keepParses(memo);
  const stored = store.saveReview(rec.id, review, { from: ['pending', 'blocked'], to: review.verdict, event: reviewedEvent(rec, review, { actor, event: 'reviewed' }), inputs: inputs.key ?? null });
  const saved = store.require(rec.id);
  return {
    proposal: {
      id: saved.id,
      state: saved.state,
      title: saved.title,
      files: filesView(saved.changes),
      ...(saved.rollback_of ? { rollback_of: saved.rollback_of } : {}),
      ...(saved.operation_type !== 'generic' ? { operation_type: saved.operation_type } : {}),
    },
    // the review just made when it was stored: the same as the stored copy, with its diffs already computed
    review: view(stored ? review : saved.review, saved.claim),
  };
}

/** `propose`: every form becomes exact changes; refused (nothing stored) on a stale base, a no-op, or anything the engine refuses. */
export async function propose(session: VaultSession, input: ProposeInput, actor: string, opts: { rewriter?: LinkRewriter; locate?: boolean } = {}): Promise<ProposeResult> {
  const title = checkText('the title', input.title, LIMITS.title);
  const summary = checkText('the summary', input.summary, LIMITS.summary);
  const agent = checkText('the agent name', input.agent, LIMITS.name);
  const sessionName = checkText('the session id', input.session, LIMITS.name);
  const scenario = checkText('the scenario name', input.scenario, LIMITS.name);
  // an unknown or broken scenario is refused now (exit 2), not stored to block forever
  if (scenario !== null) loadScenario(scenario, { root: session.root, env: session.env });
  // moves and heading renames bring the link rewrites that keep every link where it pointed;
  // the index (refreshed first) says which links can be affected
  const parsed = new Map<string, NoteModel>();
  const folderMoves: FolderMove[] = [];
  const captures: CaptureOutcome[] = [];
  const type = input.type ?? 'generic';
  const changes = session.read((h) => {
    const format = readLinkFormat(session.root).format;
    const rewriter: LinkRewriter = opts.rewriter ?? ((cs, hs) => rewriteLinks({ root: session.root, db: h.db, config: session.config(), format, parsed }, cs, hs));
    return resolveChanges(session.root, input.changes, rewriter, folderMoves, { locate: opts.locate ?? false, capture: { config: session.config(), outcomes: captures } });
  }).result;
  // The engine's own validation (paths, reserved folders, collisions, limits) before anything is stored.
  const checked = asProposal({ verb: 'propose' }, () => proposalBundle('proposal-check', changes, {}, type));
  // The operation type's scope, exactly as the engine holds a bundle to it: out of scope is 77, and nothing is stored.
  checkScope(type, checked.writes, session.config());
  collectAfterBig(changes); // the input document, the files read, the bundle's encoding
  return withStoreAsync(session, (store) =>
    storeAndReview(session, store, {
      proposal: {
        title: title?.trim() || defaultTitle(changes),
        summary,
        agent,
        session: sessionName,
        scenario,
        allow_shrink: input.allow_shrink === true,
        allow_relink: input.allow_relink === true,
        allow_broken_links: input.allow_broken_links === true,
        origin: 'propose',
        rollback_of: null,
        changes,
        folder_moves: folderMoves,
        ...(input.claim ? { claim: input.claim } : {}),
        ...(input.provenance ? { provenance: input.provenance } : {}),
        operation_type: type,
      },
      actor,
      parsed,
      expected: input.expect_link_targets ?? [],
      checked,
      resolved: true,
    }).then((r) => (captures.length > 0 ? { ...r, captures } : r)),
  );
}

/**
 * An apply that crashed leaves its proposal in `recovery`. Whoever looks next
 * settles it from the engine's record: applied (the operation's result record
 * exists), still interrupted (its journal is pending: `tx recover` or the next
 * apply finishes it), rolled back (neither: back to pending), or decided by
 * `tx resolve` (declined, saying so: its transaction id is spent).
 */
function settleRecovery(session: VaultSession, store: ProposalStore, p: ProposalRecord, actor: string): ProposalRecord {
  if (p.state !== 'recovery') return p;
  const root = session.root;
  const lock = readLockOwner(root);
  if (lock?.liveness === 'live') return p; // an apply is running right now
  const done = readDone(root, p.operation_id, realFsOps);
  const event = (outcome: string) => ({ event: 'recovery' as const, actor, proposal: p.id, operation_id: p.operation_id, review_hash: p.review?.review_hash ?? null, details: { outcome } });
  if (done?.outcome === 'applied') {
    store.transition(p.id, {
      from: ['recovery'],
      to: 'applied',
      event: [event('applied'), ...rolledBack(p, actor, { operation_id: p.operation_id, changed_paths: done.changed_paths })],
      set: { applied_at: done.completed_at, changed_paths: done.changed_paths },
    });
  } else if (done !== null) {
    // `tx resolve` settled it by hand: what is in the vault is the person's choice,
    // and the proposal's transaction id is spent (the engine would refuse it again)
    const reason = `its interrupted apply was settled with \`vaultgate tx resolve\` (${done.outcome.replace(/_/g, ' ')}); propose the change again if it is still wanted`;
    store.transition(p.id, { from: ['recovery'], to: 'declined', event: event(done.outcome), set: { declined_reason: reason } });
  } else if (!fs.existsSync(path.join(txnLayout(root).pending, p.operation_id))) {
    store.transition(p.id, { from: ['recovery'], to: 'pending', event: event('rolled_back') });
  }
  return store.require(p.id);
}

/**
 * An applied proposal's transaction can be undone behind its back (`vaultgate
 * undo OP`, from any face): whoever looks next moves it to `undone`, from the
 * engine's record (`_undo-OP` applied, and not itself undone), so no apply
 * answers "already applied" while the vault no longer holds the change. When
 * that undo is itself undone, the vault holds the change again: back to
 * `applied`. `vaultgate undo` settles at once (settleOperation), so the log
 * has the event when it happened.
 */
function settleUndo(session: VaultSession, store: ProposalStore, p: ProposalRecord, actor: string): ProposalRecord {
  if (p.state !== 'applied' && p.state !== 'undone') return p;
  const undo = currentUndo(session.root, p.operation_id, realFsOps);
  const base = { actor, proposal: p.id, operation_id: p.operation_id, review_hash: p.review?.review_hash ?? null };
  if (p.state === 'applied' && undo) {
    store.transition(p.id, {
      from: ['applied'],
      to: 'undone',
      event: { ...base, event: 'undone', details: { undone_by: undo.operation_id, undone_at: undo.completed_at, changed_paths: undo.changed_paths } },
      set: { undone: { at: undo.completed_at, by: undo.operation_id } },
    });
    return store.require(p.id);
  }
  if (p.state === 'undone' && !undo && readDone(session.root, p.operation_id, realFsOps)?.outcome === 'applied') {
    store.transition(p.id, { from: ['undone'], to: 'applied', event: { ...base, event: 'applied', details: { redone: true, undo_undone: p.undone_by } }, set: { undone: null } });
    return store.require(p.id);
  }
  return p;
}

/** Bring a proposal's state in line with the engine's record: an interrupted apply, or an undo. */
function settle(session: VaultSession, store: ProposalStore, p: ProposalRecord, actor: string): ProposalRecord {
  return settleUndo(session, store, settleRecovery(session, store, p, actor), actor);
}

/**
 * After `vaultgate undo OP`: the proposal whose transaction OP is (or, for an
 * undo of an undo, `_undo-…-OP`) learns of it now. Nothing to do in a vault
 * without proposals.
 */
export function settleOperation(session: VaultSession, operationId: string, actor: string): void {
  withExistingStore(
    session,
    () => undefined,
    (store) => {
      for (let op = operationId; ; op = op.slice(UNDO_PREFIX.length)) {
        const id = store.byOperation(op);
        if (id) settle(session, store, store.require(id), actor);
        if (!op.startsWith(UNDO_PREFIX)) break;
      }
    },
  );
}

/**
 * What a review may reuse: a pending proposal's last review and the key of what
 * it read (review-inputs.ts). A blocked or declined proposal is reviewed afresh.
 */
function reuseOf(p: ProposalRecord): ReviewReuse {
  return { last: p.state === 'pending' && p.review !== null && p.review_inputs !== null ? { review: p.review, key: p.review_inputs } : null };
}

/** `review ID`: run every check again; pending/blocked follow the vault. An applied proposal shows its stored review. */
export async function review(session: VaultSession, id: string, actor: string): Promise<ReviewResult> {
  return withStoreAsync(session, async (store) => {
    const p = settle(session, store, store.require(id), actor);
    // an undone proposal's review is its stored one too: `reopen` reviews it again under a new transaction id
    if (p.state === 'applied' || p.state === 'recovery' || p.state === 'undone') return withView({ proposal: { id: p.id, state: p.state } }, p.review, p.claim);
    const parses = store.parses();
    const inputs = reuseOf(p);
    const r = await runReview(session, p, { parsed: parses, knownKeys: store.knownTextKeys(), inputs });
    parses.keep();
    const next: ProposalState = p.state === 'declined' ? 'declined' : r.verdict;
    const stored = store.saveReview(p.id, r, { from: [p.state], to: next, event: reviewedEvent(p, r, { actor, event: 'reviewed' }), inputs: inputs.key ?? null });
    const saved = store.require(id);
    return withView({ proposal: { id: saved.id, state: saved.state } }, stored ? r : saved.review, saved.claim);
  });
}

export interface ShowResult extends ReviewView {
  proposal: Omit<ProposalRecord, 'changes' | 'review' | 'review_inputs' | 'claim' | 'provenance'> & {
    rolled_back_by: string | null;
    /** The state of the rollback `rolled_back_by` names (`applied`: rolled back; `pending`/`blocked`: only proposed), or null. */
    rollback_state: ProposalState | null;
    reviewed_at: string | null;
    /** Present for a proposal a tool made from a source (atomize); the source's text is not shown. */
    provenance?: Omit<Provenance, 'source_text'>;
  };
}

/** `show ID`: the stored proposal and its last review, without checking again. */
export function show(session: VaultSession, id: string, actor: string): ShowResult {
  return withExistingStore(
    session,
    () => {
      throw unknownProposal(id);
    },
    (store) => {
      const p = settle(session, store, store.require(id), actor);
      const rollback = store.rollbackOf(p.id);
      return withView({
        proposal: {
          id: p.id,
          state: p.state,
          title: p.title,
          summary: p.summary,
          agent: p.agent,
          session: p.session,
          scenario: p.scenario,
          allow_shrink: p.allow_shrink,
          allow_relink: p.allow_relink,
          allow_broken_links: p.allow_broken_links,
          folder_moves: p.folder_moves,
          origin: p.origin,
          rollback_of: p.rollback_of,
          rolled_back_by: rollback?.id ?? null,
          rollback_state: rollback?.state ?? null,
          operation_id: p.operation_id,
          created_at: p.created_at,
          updated_at: p.updated_at,
          reviewed_at: p.review?.reviewed_at ?? null,
          applied_at: p.applied_at,
          changed_paths: p.changed_paths,
          declined_reason: p.declined_reason,
          link_targets: p.link_targets,
          operation_type: p.operation_type,
          undone_at: p.undone_at,
          undone_by: p.undone_by,
          // where a tool's text came from (atomize), without the source's text
          ...(p.provenance ? { provenance: { kind: p.provenance.kind, source: p.provenance.source, source_sha256: p.provenance.source_sha256, allow_novel: p.provenance.allow_novel } } : {}),
        },
      }, p.review, p.claim);
    },
  );
}

/** Why a review stops an apply, as the error the exit code follows from. */
function blockedError(p: ProposalRecord, r: StoredReview): VaultgateError {
  const failing = r.checks.filter((c) => !c.ok && c.severity === 'block');
  const details = { id: p.id, checks: failing };
  const list = failing.map((c) => `${c.name}${c.path ? ` (${c.path})` : ''}`).join(', ');
  const base = failing.filter((c) => c.name === 'base' || c.name === 'transaction');
  if (base.length > 0) {
    return new VaultgateError(base[0]!.name === 'base' ? 'STALE_HASH' : 'QUARANTINED', `${p.id} cannot be applied: ${base.map((c) => c.message).join('; ')}`, {
      details,
      hint: base[0]!.name === 'base' ? 'The vault changed since the proposal was made; the agent should re-read the note and propose again.' : 'See `vaultgate tx status`.',
    });
  }
  const source = failing.filter((c) => c.name === 'source' && (c.details as { code?: string } | undefined)?.code === 'STALE_HASH');
  if (source.length > 0) {
    return new VaultgateError('STALE_HASH', `${p.id} cannot be applied: ${source.map((c) => c.message).join('; ')}`, {
      details,
      ...(source[0]!.path ? { path: source[0]!.path } : {}),
      hint: 'The captured source changed since the proposal was made; the agent should ingest it again and propose again.',
    });
  }
  const scopeRefusal = failing.filter((c) => c.name === 'scope');
  if (scopeRefusal.length > 0) {
    return new VaultgateError('OUT_OF_SCOPE', `${p.id} writes outside its operation type's scope: ${scopeRefusal.map((c) => c.message).join('; ')}`, { details, hint: 'The agent should propose again with the operation type whose scope holds these files.' });
  }
  const targets = failing.filter((c) => c.name === 'link_target');
  if (targets.length > 0) {
    return new VaultgateError('LINK_TARGET_CHANGED', `${p.id} cannot be applied: a link it adds no longer opens the file it opened when proposed: ${targets.map((c) => c.message).join('; ')}`, {
      details,
      hint: `\`vaultgate review ${p.id}\` shows what the link opens now; the agent should propose the change again against the vault as it is.`,
    });
  }
  // a cited fragment the plan depends on is gone from its note (issue 22 §2): the claim must be judged again.
  // After base and link_target: a plan's two notes are pinned by those too, and what the
  // link opens is the first thing to fix; their errors' details.checks list the evidence as well.
  const evidence = failing.filter((c) => c.name === 'evidence');
  if (evidence.length > 0) {
    return new VaultgateError('EVIDENCE_CHANGED', `${p.id} cannot be applied: the evidence its claim rests on changed: ${evidence.map((c) => c.message).join('; ')}`, {
      details,
      hint: `\`vaultgate review ${p.id}\` shows each cited fragment beside the claim; the agent should relate the notes again and propose a fresh plan.`,
    });
  }
  const policy = failing.filter((c) => c.name === 'owner' || c.name === 'managed_blocks');
  if (policy.length > 0) {
    return new VaultgateError('AREA_PROTECTED', `${p.id} writes where proposals may not: ${policy.map((c) => c.message).join('; ')}`, {
      details,
      hint: 'Only human areas (and text outside managed blocks) can be written; see the areas of .vaultgate/config.yaml (docs/proposals.md).',
    });
  }
  const scope = failing.filter((c) => c.name === 'scenario' || c.name === 'validator');
  if (scope.length > 0) {
    return new VaultgateError('OUT_OF_SCOPE', `${p.id} breaks its scenario's write rules: ${scope.map((c) => c.message).join('; ')}`, { details, hint: 'The agent should fix the change and propose again.' });
  }
  return new VaultgateError('PROPOSAL_BLOCKED', `${p.id} is blocked by review: ${list}`, {
    details,
    hint: `\`vaultgate review ${p.id}\` shows why; the agent should propose a fixed change.`,
  });
}

/**
 * A rollback proposal applied: the proposal it rolls back is now `rolled_back`
 * (its own event, in the same store transaction as the `applied` one). Until
 * then the log says only `rollback_proposed`: a proposed inverse changes nothing.
 */
function rolledBack(p: { id: string; rollback_of: string | null }, actor: string, result: { operation_id: string; changed_paths: string[] }): Array<Omit<AuditEvent, 'seq' | 'at'>> {
  if (!p.rollback_of) return [];
  return [{ event: 'rolled_back', actor, proposal: p.rollback_of, operation_id: result.operation_id, review_hash: null, details: { rollback_proposal: p.id, changed_paths: result.changed_paths } }];
}

/** pending/blocked/recovery → applied, with its `applied` event (and `rolled_back` on what a rollback undid); false when it was already settled. */
function markApplied(store: ProposalStore, id: string, applied: { reviewHash: string; actor: string; result: { operation_id: string; changed_paths: string[]; replayed: boolean } }): boolean {
  const { reviewHash, actor, result } = applied;
  const p = store.require(id);
  return store.transition(id, {
    from: ['recovery', 'pending', 'blocked'],
    to: 'applied',
    event: [
      {
        event: 'applied',
        actor,
        proposal: id,
        operation_id: result.operation_id,
        review_hash: reviewHash,
        details: { changed_paths: result.changed_paths, files: fileHashes(p.changes), ...(p.rollback_of ? { rollback_of: p.rollback_of } : {}), ...(result.replayed ? { replayed: true } : {}) },
      },
      ...rolledBack(p, actor, result),
    ],
    set: { applied_at: now(), changed_paths: result.changed_paths },
  });
}

export interface ApplyOptions {
  lockTimeoutMs?: number;
}

/**
 * `apply ID --review-hash H`: under the vault lock, review again and run the
 * transaction only if nothing blocks and the review hash is still H. Applying
 * an applied proposal returns its stored result (two applies at once make one
 * transaction: the engine replays the operation id).
 */
export async function apply(session: VaultSession, id: string, reviewHash: string, actor: string, opts: ApplyOptions = {}): Promise<ApplyResultView> {
  const store = ProposalStore.open(session.root, session.env);
  try {
    const p = settle(session, store, store.require(id), actor);
    if (p.state === 'applied') return { operation_id: p.operation_id, changed_paths: p.changed_paths ?? [], proposal: { id: p.id, state: 'applied' }, replayed: true };
    if (p.state === 'declined') throw declinedError(p);
    if (p.state === 'undone') throw undoneError(p);
    const bundle = asProposal({ verb: 'apply', id }, () => proposalBundle(p.operation_id, p.changes, proposalPins(p.link_targets, p.changes), p.operation_type));
    // The review the person approved, if it is the stored one: its engine approval answers a replay
    // (reviews stored before issue 20 had the engine's approval as their review hash).
    const approvedReview = (r: StoredReview | null) => (r !== null && r.review_hash === reviewHash ? r : null);
    const approvalOf = (r: StoredReview) => (r.approval_sha256 === undefined ? r.review_hash : r.approval_sha256) ?? reviewHash;
    const approved = approvedReview(p.review);
    let result;
    try {
      result = await applyBundle(session.root, bundle, approved ? approvalOf(approved) : reviewHash, {
        ...(opts.lockTimeoutMs === undefined ? {} : { lockTimeoutMs: opts.lockTimeoutMs }),
        beforePlan: async () => {
          const cur = store.require(id);
          if (cur.state === 'declined') throw declinedError(cur);
          if (cur.state === 'undone') throw undoneError(cur);
          const seen = approvedReview(cur.review) ?? approved;
          // the same proposal, so the same changes (they never change once stored): the bundle built above
          const parses = store.parses();
          const inputs = reuseOf(cur);
          const r = await runReview(session, cur, { parsed: parses, knownKeys: store.knownTextKeys(), ...(cur.operation_id === p.operation_id ? { bundle } : {}), inputs });
          parses.keep();
          const from: ProposalState[] = ['pending', 'blocked', 'recovery'];
          // (a refusal here is a failed apply: its review is saved without a key, see the catch below)
          if (r.verdict === 'blocked') {
            store.saveReview(id, r, { from, to: 'blocked' });
            throw blockedError(cur, r);
          }
          if (r.review_hash !== reviewHash) {
            store.saveReview(id, r, { from, to: 'pending' });
            throw mismatchError(id, reviewHash, seen, r);
          }
          // From here a crash leaves `recovery`, and whoever looks next settles it from the engine's record.
          if (!store.saveReview(id, r, { from, to: 'recovery', inputs: inputs.key ?? null })) {
            const now = store.require(id);
            throw now.state === 'undone' ? undoneError(now) : declinedError(now);
          }
          // the engine plans again under this lock and must find the very bundle this review approved
          return r.approval_sha256 ?? undefined;
        },
        // still under the lock: no other process can mistake this apply for a crash
        afterCommit: (done) => {
          markApplied(store, id, { reviewHash, actor, result: { ...done, replayed: false } });
        },
      });
    } catch (e) {
      // the engine may have refused what the review approved (a file's mode changed and changed back while it was
      // read, say): the next review is made afresh rather than answered from the key
      store.forgetReviewInputs(id);
      settle(session, store, store.require(id), actor);
      throw forProposal(e, { verb: 'apply', id });
    }
    // a replay (the engine had already applied this operation id): record it if nobody did
    markApplied(store, id, { reviewHash, actor, result });
    return { operation_id: result.operation_id, changed_paths: result.changed_paths, proposal: { id, state: 'applied' }, ...(result.replayed ? { replayed: true as const } : {}) };
  } finally {
    store.close();
  }
}

/**
 * The review under the lock is not the approved one. When the approved review
 * is known and only the link changes differ (the bundle is the same), say so,
 * listing them (issue 20 class 6): a link written, or made to point elsewhere,
 * since the review. Otherwise something in the bundle changed.
 */
function mismatchError(id: string, approvedHash: string, approved: StoredReview | null, r: StoredReview): VaultgateError {
  const hint = `Run \`vaultgate review ${id}\`, read the diff and the link changes again, and apply with the new review_hash.`;
  // a cited fragment changed after the approval (issue 22 §2), even one that only warns: the person judged other evidence
  if (approved !== null && approved.approval_sha256 != null && approved.approval_sha256 === r.approval_sha256 && evidenceKeys(approved).join('\n') !== evidenceKeys(r).join('\n')) {
    const was = new Map((approved.evidence ?? []).map((e) => [e.id, e.status]));
    const moved = (r.evidence ?? []).filter((e) => was.get(e.id) !== e.status).map((e) => `${e.id} ${was.get(e.id) ?? 'unchecked'} → ${e.status}`);
    return new VaultgateError('EVIDENCE_CHANGED', `the evidence ${id}'s claim rests on changed since it was approved: ${moved.join('; ')}`, {
      details: { id, expected: r.review_hash, actual: approvedHash, evidence: r.evidence ?? [] },
      hint: `Run \`vaultgate review ${id}\`, read the claim and its evidence again, and apply with the new review_hash.`,
    });
  }
  if (approved !== null && approved.approval_sha256 != null && approved.approval_sha256 === r.approval_sha256) {
    const { added, removed } = diffLinkEffects(approved, r);
    const shown = [...added.map((e) => `+ ${e.text}`), ...removed.map((e) => `- ${e.text}`)];
    return new VaultgateError(
      'LINK_CHANGES_STALE',
      `the link changes ${id} would make are not the ones reviewed (${added.length} new, ${removed.length} gone): ${shown.slice(0, 5).join('; ')}${shown.length > 5 ? '; …' : ''}`,
      { details: { id, expected: r.review_hash, actual: approvedHash, added: added.map((e) => e.item), removed: removed.map((e) => e.item) }, hint },
    );
  }
  return new VaultgateError('APPROVAL_MISMATCH', `the review of ${id} changed since it was approved (review_hash ${r.review_hash}, approved ${approvedHash})`, {
    details: { expected: r.review_hash, actual: approvedHash },
    hint: `Something changed since the review. ${hint}`,
  });
}

function declinedError(p: ProposalRecord): VaultgateError {
  return new VaultgateError('PROPOSAL_DECLINED', `${p.id} was declined${p.declined_reason ? `: ${p.declined_reason}` : ''}`, {
    details: { id: p.id },
    hint: `Reopen it first (\`vaultgate reopen ${p.id}\`), review it, then apply.`,
  });
}

/** Applying a proposal whose transaction was undone: the vault no longer holds its change, and that is said, never "ok". */
function undoneError(p: ProposalRecord): VaultgateError {
  return new VaultgateError('OPERATION_UNDONE', `${p.id} was applied as ${p.operation_id} and undone by ${p.undone_by ?? 'an undo'}${p.undone_at ? ` at ${p.undone_at}` : ''}: the vault no longer holds its change`, {
    details: { id: p.id, operation_id: p.operation_id, undone: true, undone_by: p.undone_by, undone_at: p.undone_at },
    hint: `Nothing was written. To make the change again, reopen it (\`vaultgate reopen ${p.id}\`), review it and apply with the new review_hash.`,
  });
}

function stateError(p: ProposalRecord, action: string, allowed: string, hint: string): VaultgateError {
  return new VaultgateError('PROPOSAL_STATE', `${p.id} is ${p.state}; ${action} needs a proposal that is ${allowed}`, { details: { id: p.id, state: p.state }, hint });
}

/** `decline ID --reason TEXT`: pending or blocked → declined. */
export function decline(session: VaultSession, id: string, reason: string, actor: string): { proposal: { id: string; state: 'declined'; reason: string } } {
  const why = checkText('the reason', reason, LIMITS.reason)!.trim();
  if (why === '') throw new VaultgateError('USAGE', 'a decline needs a reason', { hint: 'Say why, so the agent can do better: `--reason "…"`.' });
  return withStore(session, (store) => {
    const p = settle(session, store, store.require(id), actor);
    const ok = store.transition(id, {
      from: ['pending', 'blocked'],
      to: 'declined',
      event: { event: 'declined', actor, proposal: id, operation_id: p.operation_id, review_hash: p.review?.review_hash ?? null, details: { reason: why } },
      set: { declined_reason: why },
    });
    if (!ok) {
      const cur = store.require(id);
      throw stateError(
        cur,
        'decline',
        'pending or blocked',
        cur.state === 'applied' ? `Undo it with \`vaultgate rollback ${id}\`.` : cur.state === 'undone' ? `It is already undone; \`vaultgate reopen ${id}\` makes it reviewable again, then it can be declined.` : '`vaultgate show ID` shows its state.',
      );
    }
    return { proposal: { id, state: 'declined', reason: why } };
  });
}

/**
 * The next transaction id of a proposal whose current one is spent: the id with
 * `-r2`, `-r3`, … (still unique: the store's ids end in its nonce).
 */
function nextOperationId(op: string): string {
  const m = /^(.*)-r(\d+)$/.exec(op);
  return m ? `${m[1]}-r${Number(m[2]) + 1}` : `${op}-r2`;
}

/**
 * `reopen ID`: declined or undone → reviewed again → pending or blocked. A
 * proposal whose transaction id the engine already has a record of (undone, or
 * an interrupted apply settled by `tx resolve`) gets a new one first: the engine
 * refuses a spent id, and the new review hash says this is a new approval.
 */
export async function reopen(session: VaultSession, id: string, actor: string): Promise<ReviewResult> {
  return withStoreAsync(session, async (store) => {
    let p = settle(session, store, store.require(id), actor);
    const from = p.state;
    if (from !== 'declined' && from !== 'undone') throw stateError(p, 'reopen', 'declined or undone', `\`vaultgate review ${id}\` re-checks a proposal in any other state.`);
    const spent = readDone(session.root, p.operation_id, realFsOps) !== null ? p.operation_id : null;
    if (spent !== null) {
      if (!store.transition(id, { from: [from], to: from, set: { operation_id: nextOperationId(spent) } })) {
        throw stateError(store.require(id), 'reopen', 'declined or undone', 'It changed meanwhile; `vaultgate show ID` shows its state.');
      }
      p = store.require(id);
    }
    const parses = store.parses();
    const r = await runReview(session, p, { parsed: parses });
    parses.keep();
    if (!store.saveReview(id, r, { from: [from], to: r.verdict, event: reviewedEvent(p, r, { actor, event: 'reopened', extra: { from, ...(spent ? { previous_operation_id: spent } : {}) } }) })) {
      throw stateError(store.require(id), 'reopen', 'declined or undone', 'It changed meanwhile; `vaultgate show ID` shows its state.');
    }
    // what it was is in the log; what it is now is a change not in the vault
    store.transition(id, { from: [r.verdict], to: r.verdict, set: { declined_reason: null, undone: null, ...(from === 'undone' ? { applied_at: null, changed_paths: null } : {}) } });
    const saved = store.require(id);
    return withView({ proposal: { id, state: saved.state } }, saved.review, saved.claim);
  });
}

/**
 * `rollback ID`: never writes. A new proposal with the inverse change, based on
 * the bytes the apply wrote, reviewed like any other: if a file changed since,
 * it is created but reviews as blocked (base), with the reason.
 */
export async function rollback(session: VaultSession, id: string, actor: string): Promise<ProposeResult> {
  return withStoreAsync(session, async (store) => {
    const p = settle(session, store, store.require(id), actor);
    if (p.state !== 'applied') {
      throw stateError(
        p,
        'rollback',
        'applied',
        p.state === 'recovery'
          ? 'Finish the interrupted apply first: `vaultgate apply ID` again, or `vaultgate tx recover`.'
          : p.state === 'undone'
            ? `Its transaction was already undone (${p.undone_by ?? 'vaultgate undo'}): the vault no longer holds its change. \`vaultgate reopen ${id}\` makes it reviewable again.`
            : 'Only an applied proposal can be rolled back.',
      );
    }
    const existing = store.rollbackOf(id);
    if (existing) {
      throw new VaultgateError('PROPOSAL_STATE', `${id} already has rollback proposal ${existing.id} (${existing.state})`, {
        details: { id, rollback: existing.id, state: existing.state },
        hint: `Review or apply ${existing.id}; decline it to make a new one.`,
      });
    }
    const inverse: StoredChange[] = [...p.changes].reverse().map((c): StoredChange => {
      if (c.action === 'move') {
        // a move that rewrote links inside the moved note moves back with its old text
        if (c.new_text !== null) return { path: c.to!, action: 'move', to: c.path, base_sha256: c.new_sha256, old_text: c.new_text, new_text: c.old_text, new_sha256: c.base_sha256 };
        return { path: c.to!, action: 'move', to: c.path, base_sha256: c.new_sha256, old_text: c.old_text, new_text: null, new_sha256: c.new_sha256 };
      }
      if (c.action === 'write' && c.base_sha256 === null) return { path: c.path, action: 'delete', to: null, base_sha256: c.new_sha256, old_text: c.new_text, new_text: null, new_sha256: null };
      if (c.old_text === null) {
        throw new VaultgateError('UNDO_UNAVAILABLE', `${c.path} was not UTF-8 text before ${id}, so a proposal cannot restore it`, {
          path: c.path,
          hint: `Undo the whole operation with \`vaultgate undo ${p.operation_id}\` while its backups are kept.`,
        });
      }
      return {
        path: c.path,
        action: 'write',
        to: null,
        base_sha256: c.action === 'delete' ? null : c.new_sha256,
        old_text: c.action === 'delete' ? null : c.new_text,
        new_text: c.old_text,
        new_sha256: sha256Hex(Buffer.from(c.old_text, 'utf8')),
      };
    });
    const result = await storeAndReview(session, store, {
      proposal: {
        title: `Roll back ${id}: ${p.title}`.slice(0, LIMITS.title),
        summary: `Restores what ${id} changed (operation ${p.operation_id}).`,
        agent: null,
        session: p.session,
        scenario: null,
        // undoing a change may remove what it added, and send links back where they
        // pointed before it (or leave ones written since dangling): the person asked for exactly that
        allow_shrink: true,
        allow_relink: true,
        allow_broken_links: true,
        origin: 'rollback',
        rollback_of: id,
        changes: inverse,
      },
      actor,
    });
    // proposed, not done: `rolled_back` comes when the person applies it (markApplied)
    store.appendEvent({ event: 'rollback_proposed', actor, proposal: id, operation_id: p.operation_id, review_hash: null, details: { rollback_proposal: result.proposal.id, state: result.proposal.state } });
    return result;
  });
}

/** `proposals [--state S] [--agent A] [--match TEXT] [--offset N]`: newest first, with what blocks each; `total` counts every match. */
export function list(session: VaultSession, filter: ListFilter, actor: string): { total: number; proposals: ProposalSummary[] } {
  return withExistingStore(
    session,
    () => ({ total: 0, proposals: [] }),
    (store) => {
      for (const id of store.idsInState('recovery')) settleRecovery(session, store, store.require(id), actor);
      // an applied proposal is looked at only when the engine has an undo record named after its transaction (one folder listing)
      const undos = undoRecords(session.root);
      for (const [id, op, state] of store.operationsInStates(['applied', 'undone'])) {
        if (state === 'undone' || undos.has(UNDO_PREFIX + op) || undos.has(`undo-${op}`)) settleUndo(session, store, store.require(id), actor);
      }
      return store.list(filter);
    },
  );
}

/** Operation ids of the engine's result records that are undos (`_undo-…`, or the legacy `undo-…`). */
function undoRecords(root: string): Set<string> {
  let names: string[];
  try {
    names = fs.readdirSync(txnLayout(root).done);
  } catch {
    return new Set();
  }
  return new Set(names.filter((n) => n.endsWith('.json') && (n.startsWith(UNDO_PREFIX) || n.startsWith('undo-'))).map((n) => n.slice(0, -'.json'.length)));
}

/** `log [--limit N] [--offset N] [--proposal ID]`: the audit log, newest first. */
export function auditLog(session: VaultSession, filter: LogFilter): { total: number; events: AuditEvent[] } {
  const store = ProposalStore.openExisting(session.root, session.env);
  if (!store) {
    if (filter.proposal !== undefined) throw unknownProposal(filter.proposal);
    return { total: 0, events: [] };
  }
  try {
    if (filter.proposal !== undefined && !store.get(filter.proposal)) throw unknownProposal(filter.proposal);
    return store.log(filter);
  } finally {
    store.close();
  }
}
