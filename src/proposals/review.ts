import { isVaultgateError } from '../errors.js';
import { parseNote, type NoteModel } from '../markdown/index.js';
import { checkManagedBlocks, checkOwners, loadScenario, scenarioReviewChecks, type ProposedFile, type ReviewCheck } from '../policy/index.js';
import type { VaultSession } from '../session/index.js';
import { inspectBundle, type Bundle } from '../txn/index.js';
import { isMarkdownPath } from '../vault/index.js';
import { proposalBundle } from './bundle.js';
import { changeDiff } from './diff.js';
import { lazyProperty } from './lazy.js';
import { collectAfterBig } from './collect.js';
import { textKeyOfHash, textMemo, type KnownTextKeys } from './text-key.js';
import { indexedNotes, reviewLinks, type FileLinks, type ReviewedNote } from './link-review.js';
import { linkTargetChecks, linkTargetPins, recordLinkTargets, type ExpectedLinkTarget } from './link-targets.js';
import { reviewHashOf } from './review-hash.js';
import { evidenceChecks } from './evidence-check.js';
import type { LinkTarget, ProposalRecord, Provenance, ReviewFile, StoredChange, StoredReview } from './types.js';
import { checkDraft, prepareSource } from '../markdown/verbatim.js';
import { ownLines } from '../markdown/own-lines.js';
import { filesUnder, isFolder } from './changes.js';
import { sourceChecks, sourcePins } from './source-check.js';
import { forProposal } from './engine-errors.js';
import { reviewInputs, reviewReads, type ReviewInputs, type ReviewReads } from './review-inputs.js';

/**
 * Review: every check a proposal must pass, run against the vault as it is now,
 * and the review hash — the transaction engine's approval hash of the exact
 * bundle the proposal becomes. The single source of truth for what apply will
 * do: apply runs this again under the vault lock and lands only if nothing
 * blocks and the hash is the one the person approved.
 *
 * Checks, in order (docs/proposals.md): base, path (scope when the engine
 * refuses the operation type's scope), owner, managed_blocks, frontmatter,
 * links, link_target, evidence (a plan's claim only), source (a proposal with a capture), link_stability, shrink, for a proposal made by atomize `verbatim`, and for a proposal made under a scenario its
 * `scenario` and `validator` checks (src/policy). Each name appears at least
 * once: one passing entry, or one failing entry per problem (with its path).
 */

/** Above this share of a note's text removed, a change is a shrink. */
export const SHRINK_LIMIT = 0.5;

export type ReviewInput = Pick<ProposalRecord, 'operation_id' | 'changes' | 'allow_shrink' | 'allow_relink' | 'allow_broken_links' | 'scenario'> &
  Partial<Pick<ProposalRecord, 'id' | 'title' | 'summary' | 'agent' | 'session' | 'link_targets' | 'folder_moves' | 'claim' | 'provenance' | 'operation_type'>>;

/** Every read precondition of a proposal's bundle: the targets of its new links and the sources of its captures. */
export function proposalPins(targets: readonly LinkTarget[] | null, changes: readonly StoredChange[]): Record<string, string> {
  return { ...sourcePins(changes), ...linkTargetPins(targets, changes) };
}

const stripBom = (t: string) => (t.charCodeAt(0) === 0xfeff ? t.slice(1) : t);
const pass = (name: string, message: string, severity: 'block' | 'warn' = 'block'): ReviewCheck => ({ name, ok: true, severity, message });

/** How the engine's refusals read as checks: which check failed. */
function engineCheck(code: string): 'base' | 'path' | 'transaction' | 'scope' {
  if (code === 'STALE_HASH') return 'base';
  if (code === 'OUT_OF_SCOPE') return 'scope';
  if (code === 'QUARANTINED' || code === 'RECOVERY_NEEDED' || code === 'LOCK_BUSY') return 'transaction';
  return 'path';
}

/**
 * `parsed`: notes already parsed, by the `textKey` of their text (a leading U+FEFF for a BOM):
 * propose hands over the ones its link rewriter parsed, so a 500-note move is
 * not parsed twice. `bundle`: the proposal's bundle when the caller built it
 * already (apply: a proposal's changes never change), not built twice.
 */
export interface ReviewOptions {
  /**
   * A new proposal: record what the links it adds open (its link_target
   * precondition) and hand the record to `done` before the review uses it.
   * `expected`: a plan's link as `plan` checked it, recorded as planned.
   */
  record?: { expected?: readonly ExpectedLinkTarget[]; done: (targets: LinkTarget[]) => void };
  /**
   * The same changes' bundle, already built and validated by the caller (propose, apply): planned
   * instead of building it again (a 12 MB proposal's bundle costs seconds; issue 20 §8). Used only
   * while no link target is pinned, since pins are part of the bundle.
   */
  bundle?: Bundle;
  /** Texts whose parse-memo key is already known (the proposal store checked their hashes): not hashed again. */
  knownKeys?: KnownTextKeys;
  /** The parse memo to read and fill (shared with the caller's other reviews); default: a fresh one. */
  parsed?: Map<string, NoteModel>;
  /** Key what this review reads, and answer the last review again when the key is its (review-inputs.ts). */
  inputs?: ReviewReuse;
  /**
   * The changes were resolved from the vault just now (propose: every base checked against the file's
   * bytes, every created or moved-to path found absent): those reads are this review's, not made again.
   */
  resolved?: boolean;
}

/**
 * A review's reuse of the last one (issue 20 §8). The caller passes the last
 * review and its key (null: nothing to reuse); runReview sets `key` to the key
 * of what it read now, before reading it, and `reused` when it answered the
 * last review again. The caller stores `key` with the review it saves.
 */
export interface ReviewReuse {
  last: { review: StoredReview; key: string } | null;
  key?: string | null;
  reused?: boolean;
}

export async function runReview(session: VaultSession, p: ReviewInput, opts: ReviewOptions = {}): Promise<StoredReview> {
  const parsed = opts.parsed ?? new Map<string, NoteModel>();
  const root = session.root;
  const config = session.config();
  const checks: ReviewCheck[] = [];
  const files: ProposedFile[] = p.changes.map((c) => ({
    path: c.path,
    action: c.action,
    ...(c.to === null ? {} : { to: c.to }),
    old_text: c.old_text,
    new_text: c.new_text,
    old_sha256: c.base_sha256,
    new_sha256: c.new_sha256,
  }));

  let base: ReviewCheck[] = [];
  let pathProblems: ReviewCheck[] = [];
  let reused: StoredReview | null = null;
  let keyer = null as ReviewInputs | null; // set under the read below
  // the disk as this review reads it, once: the checks and the key of what it read use the same answers
  const reads = reviewReads(root, p.changes, { resolved: opts.resolved ?? false });

  // links first: the targets of the links the change adds are part of the bundle the engine plans
  // every check reads the same few texts: parse each once
  // a base text the index holds exactly is read from it, not parsed (indexedNotes); filled under the read below
  const indexed = new Map<string, ReviewedNote>();
  const parse = textMemo(parsed, (text) => parseNote(stripBom(text)), opts.knownKeys, indexed);
  // Issue 8 lets --allow-shrink allow "a delete of a note with backlinks"; issue 12 names
  // --allow-broken-links for it. Either flag allows it (and only that: a retargeted link
  // still needs --allow-relink).
  const brokenLinksFlag = p.allow_broken_links ? '--allow-broken-links' : p.allow_shrink ? '--allow-shrink' : undefined;
  const links = session.read((h) => {
    // the key of what this review reads, taken before reading any of it: a change made while it reads makes the next key differ
    keyer = opts.inputs ? reviewInputs(root, h.db, config, p, reads) : null;
    // a new proposal learns its link targets from this review: its key is finished once they are recorded
    if (opts.inputs && !opts.record) {
      const key = keyer?.key() ?? null;
      opts.inputs.key = key;
      const last = opts.inputs.last;
      if (key !== null && last !== null && last.key === key) {
        reused = madeNow(last.review);
        return null;
      }
    }
    ({ base, pathProblems } = baseChecks(root, p, reads));
    // the key a base text's parse is memoised under, from the hash the store checked it against
    for (const [key, note] of indexedNotes(h.db, p.changes, (c) => textKeyOfHash(c.old_text, c.base_sha256))) indexed.set(key, note);
    return reviewLinks(h.db, config, p.changes, parse, {
      allowRelink: p.allow_relink,
      allowBrokenLinks: brokenLinksFlag !== undefined,
      ...(brokenLinksFlag === undefined ? {} : { allowBrokenLinksFlag: brokenLinksFlag }),
    });
  }).result;
  if (links === null) {
    opts.inputs!.reused = true;
    return reused!;
  }
  // link_target (issue 22 §1): a new proposal records what its new links open; later reviews check it
  const hashOf = reads.targetHash;
  let recorded = p.link_targets ?? null;
  if (opts.record) {
    recorded = recordLinkTargets(p.changes, links.files, hashOf, opts.record.expected ?? []);
    opts.record.done(recorded);
    if (opts.inputs) {
      keyer?.targets(recorded);
      opts.inputs.key = keyer?.key() ?? null;
    }
  }
  const linkTargets = base.length === 0 && pathProblems.length === 0 ? siblingLinks(linkTargetChecks(recorded, p.changes, links.files, hashOf), p.provenance ?? null) : [];
  const linkPins = linkTargetPins(recorded, p.changes);
  const pins = proposalPins(recorded, p.changes);

  // path: the engine's own rules (inspect plans the transaction and writes nothing); it also gives the approval hash
  let approval: string | null = null;
  if (base.length === 0 && pathProblems.length === 0 && linkTargets.every((c) => c.ok)) {
    const planned = engineApproval(root, p, { bundle: opts.bundle, pins, linkPins });
    if ('approval' in planned) approval = planned.approval;
    else if (planned.refused.name === 'link_target') linkTargets.splice(0, linkTargets.length, planned.refused);
    else (planned.refused.name === 'base' ? base : pathProblems).push(planned.refused);
  }
  collectAfterBig(p.changes); // the bundle's encoding, planned and dropped
  checks.push(...(base.length ? base : [pass('base', 'every touched file still has the hash the change was based on')]));
  const pathFailures = pathProblems.filter((c) => c.name === 'path');
  checks.push(...(pathFailures.length ? pathFailures : [pass('path', base.length ? 'paths pass the engine’s rules (checked against disk once the base matches again)' : 'every path passes the transaction engine’s rules')]));
  checks.push(...pathProblems.filter((c) => c.name !== 'path' && c.name !== 'source'));

  checks.push(...checkOwners(files, config));
  checks.push(...checkManagedBlocks(files, config));
  checks.push(...frontmatterChecks(p.changes, parse));
  checks.push(...links.checks.filter((c) => c.name === 'links'));
  checks.push(...(linkTargets.length ? linkTargets : [pass('link_target', 'checked once the base matches again')]));
  // evidence (issue 22 §2): the fragments a plan's claim cites, still in their notes
  const evidence = p.claim ? evidenceChecks(root, p.claim, p.changes) : null;
  if (evidence) checks.push(...evidence.checks);
  // source (issue 22 §3): only for proposals that carry a capture
  const sources = sourceChecks(root, p.changes);
  const sourceRace = pathProblems.filter((c) => c.name === 'source');
  checks.push(...(sourceRace.length && sources.every((c) => c.ok) ? sourceRace : sources));
  checks.push(...links.checks.filter((c) => c.name !== 'links'));
  const shrinks = p.changes.map((c) => shrinkOf(c, parse));
  checks.push(...shrinkChecks(p, shrinks, links.files));
  if (p.provenance) checks.push(...verbatimChecks(p.changes, p.provenance));
  checks.push(...(await scenarioChecks(session, p, files)));

  const reviewFiles: ReviewFile[] = p.changes.map((c, i) => reviewFile(c, links.files[i]!, shrinks[i]!));
  const review = assembleReview(checks, reviewFiles, { linkChanges: links.changes, evidence: evidence?.evidence ?? null, approval });
  collectAfterBig(p.changes); // the alignment's tokens and the parse's garbage
  return review;
}

/** The same review, made now: every property as it is (its diffs still computed only when read) but `reviewed_at`. */
function madeNow(review: StoredReview): StoredReview {
  const again = Object.defineProperties({}, Object.getOwnPropertyDescriptors(review)) as StoredReview;
  again.reviewed_at = new Date().toISOString();
  return again;
}

/**
 * The review as stored: blocked when a blocking check failed, else pending;
 * its hash covers what the person approves (link changes, files, evidence).
 */
function assembleReview(
  checks: ReviewCheck[],
  files: ReviewFile[],
  found: { linkChanges: StoredReview['link_changes']; evidence: NonNullable<StoredReview['evidence']> | null; approval: string | null },
): StoredReview {
  const { linkChanges, evidence, approval } = found;
  const blocked = checks.some((c) => !c.ok && c.severity === 'block');
  const review = {
    verdict: blocked ? 'blocked' : 'pending',
    checks,
    files,
    diff: '',
    link_changes: linkChanges,
    ...(evidence ? { evidence } : {}),
    review_hash: approval === null ? null : reviewHashOf(approval, { link_changes: linkChanges, files, ...(evidence ? { evidence } : {}) }),
    approval_sha256: approval,
    reviewed_at: new Date().toISOString(),
  } satisfies StoredReview;
  // the diffs are computed when read (shown, printed), not by every review: apply's own review never reads them
  lazyProperty(review, 'diff', () => files.map((f) => f.diff).join(''), { keep: false });
  return review;
}

/**
 * base: every touched file still holds the bytes the change was made on, and a
 * folder moved whole holds no file its moves do not list. A path the vault
 * refuses to read is a `path` problem instead.
 */
function baseChecks(root: string, p: ReviewInput, reads: ReviewReads): { base: ReviewCheck[]; pathProblems: ReviewCheck[] } {
  const base: ReviewCheck[] = [];
  const pathProblems: ReviewCheck[] = [];
  const expect = (rel: string, want: string | null, role: string) => {
    const cur = reads.current(rel);
    if ('refused' in cur) {
      pathProblems.push({ name: 'path', ok: false, severity: 'block', path: rel, message: cur.refused.message, details: { code: cur.refused.code } });
      return;
    }
    const actual = cur.sha256;
    if (actual === want) return;
    const now = actual === null ? 'it no longer exists' : want === null ? 'it exists now' : `it now has ${actual}`;
    base.push({
      name: 'base',
      ok: false,
      severity: 'block',
      path: rel,
      message: `${rel} changed since the proposal was made: ${role} ${want === null ? 'no file' : want}, but ${now}`,
      details: { expected: want, actual },
    });
  };
  for (const c of p.changes) {
    expect(c.path, c.base_sha256, 'it was based on');
    if (c.action === 'move') expect(c.to!, null, 'the move expects');
  }
  // a folder moved whole must still hold exactly the files its moves list: a file added
  // since would stay behind and split the folder (issue 20)
  for (const f of p.folder_moves ?? []) {
    const listed = new Set(p.changes.filter((c) => c.action === 'move' && c.path.startsWith(f.from + '/')).map((c) => c.path));
    let now: string[];
    try {
      now = isFolder(root, f.from) ? filesUnder(root, f.from) : [];
    } catch (e) {
      if (!isVaultgateError(e)) throw e;
      pathProblems.push({ name: 'path', ok: false, severity: 'block', path: e.path ?? f.from, message: e.message, details: { code: e.code } });
      continue;
    }
    const added = now.filter((rel) => !listed.has(rel));
    if (added.length === 0) continue;
    const shown = added.slice(0, 10).join(', ') + (added.length > 10 ? ` and ${added.length - 10} more` : '');
    base.push({
      name: 'base',
      ok: false,
      severity: 'block',
      path: f.from,
      message: `${f.from} changed since its move to ${f.to} was proposed: it now also holds ${shown}, which the move would leave behind`,
      details: { folder: f.from, to: f.to, added },
    });
  }
  return { base, pathProblems };
}

/**
 * The engine's verdict on the proposal's bundle (planned, nothing written): its
 * approval hash, or the refusal as a check named for what it is about (a pinned
 * link target or captured source that changed between the two reads, else the
 * engine's own rule).
 */
function engineApproval(
  root: string,
  p: ReviewInput,
  planned: { bundle: Bundle | undefined; pins: Record<string, string>; linkPins: Record<string, string> },
): { approval: string } | { refused: ReviewCheck } {
  const { pins, linkPins } = planned;
  try {
    const bundle = planned.bundle && Object.keys(pins).length === 0 ? planned.bundle : proposalBundle(p.operation_id, p.changes, pins, p.operation_type);
    return { approval: inspectBundle(root, bundle).approval_sha256 };
  } catch (raw) {
    const e = p.id === undefined ? raw : forProposal(raw, { verb: 'review', id: p.id });
    if (!isVaultgateError(e)) throw e;
    // a pinned link target or captured source that changed in the moment between the two reads
    const pinned = e.code === 'STALE_HASH' && e.path !== undefined && Object.hasOwn(pins, e.path);
    const name = pinned ? (Object.hasOwn(linkPins, e.path!) ? 'link_target' : 'source') : engineCheck(e.code);
    return { refused: { name, ok: false, severity: 'block', ...(e.path ? { path: e.path } : {}), message: e.message, details: { code: e.code, ...(e.hint ? { hint: e.hint } : {}) } } };
  }
}

function reviewFile(c: StoredChange, links: FileLinks, shrink: number): ReviewFile {
  const file: ReviewFile = {
    path: c.path,
    action: c.action,
    ...(c.to === null ? {} : { to: c.to }),
    old_sha256: c.base_sha256,
    new_sha256: c.new_sha256,
    diff: '',
    links_added: links.links_added,
    links_removed: links.links_removed,
    links_rewritten: links.links_rewritten,
    links_broken: links.links_broken,
    shrink,
  };
  lazyProperty(file, 'diff', () => changeDiff(c));
  return file;
}

/** frontmatter: the new text's YAML parses; one that was already broken and fails the same way only warns. */
function frontmatterChecks(changes: readonly StoredChange[], parse: (text: string) => ReviewedNote): ReviewCheck[] {
  const out: ReviewCheck[] = [];
  for (const c of changes) {
    if (c.action !== 'write' || c.new_text === null || !isMarkdownPath(c.path)) continue;
    const error = parse(c.new_text).frontmatter?.error ?? null;
    if (error === null) continue;
    const before = c.old_text === null ? null : (parse(c.old_text).frontmatter?.error ?? null);
    const at = `${c.path}:${error.line}:${error.column}`;
    if (before !== null && before.code === error.code) {
      out.push({ name: 'frontmatter', ok: false, severity: 'warn', path: c.path, message: `${at}: the frontmatter was already broken and still is (${error.code}: ${error.message})`, details: { ...error } });
    } else {
      out.push({ name: 'frontmatter', ok: false, severity: 'block', path: c.path, message: `${at}: the new frontmatter is not valid YAML (${error.code}: ${error.message})`, details: { ...error } });
    }
  }
  return out.length ? out : [pass('frontmatter', 'every new frontmatter block parses')];
}

/** The text of a note around its links: what a change that only rewrites links leaves exactly as it was. */
function aroundLinks(text: string, model: ReviewedNote): string[] {
  const body = stripBom(text);
  const out: string[] = [];
  let at = 0;
  for (const l of model.links) {
    if (l.range.start < at) return [body];
    out.push(body.slice(at, l.range.start));
    at = l.range.end;
  }
  out.push(body.slice(at));
  return out;
}

/**
 * Share of the old text a change removes (0–1): 1 for a delete, 0 for a move or
 * a note that grows. A change that only rewrites links (a move's, a heading
 * rename's: the text around every link unchanged) removes nothing, however much
 * shorter a link's path gets.
 */
function shrinkOf(c: StoredChange, parse: (text: string) => ReviewedNote): number {
  if (c.action === 'delete') return 1;
  if (c.old_text === null || c.new_text === null) return 0;
  if (isMarkdownPath(c.to ?? c.path)) {
    const a = parse(c.old_text);
    const b = parse(c.new_text);
    if (a.links.length === b.links.length && aroundLinks(c.old_text, a).join('\0') === aroundLinks(c.new_text, b).join('\0')) return 0;
  }
  const before = stripBom(c.old_text).length;
  const after = stripBom(c.new_text).length;
  if (before === 0 || after >= before) return 0;
  return Math.round(((before - after) / before) * 1000) / 1000;
}

/**
 * shrink: a write that removes more than half of a note, or a delete of a note
 * other notes link to (issue 8), blocks unless the proposal allows it. The
 * delete's broken links are listed by link_stability (issue 12's check, which
 * also takes `--allow-broken-links`); this check only says that the note, and
 * what links to it, would be lost, so a reader of either check sees it.
 */
function shrinkChecks(p: ReviewInput, shrinks: number[], links: readonly { links_broken: readonly { source: string; reason: string }[] }[]): ReviewCheck[] {
  const out: ReviewCheck[] = [];
  const severity = p.allow_shrink ? 'warn' : 'block';
  const allowed = p.allow_shrink ? ' (allowed: the proposal says --allow-shrink)' : ' — if that is intended, propose again with --allow-shrink';
  p.changes.forEach((c, i) => {
    if (c.action === 'write' && shrinks[i]! > SHRINK_LIMIT) {
      out.push({
        name: 'shrink',
        ok: false,
        severity,
        path: c.path,
        message: `the change removes ${Math.round(shrinks[i]! * 100)}% of ${c.path}${allowed}; was it written from a truncated read?`,
        details: { shrink: shrinks[i] },
      });
    }
    const dangling = c.action === 'delete' ? links[i]!.links_broken.filter((b) => b.reason !== 'retargeted') : [];
    if (dangling.length > 0) {
      const flag = p.allow_shrink ? '--allow-shrink' : p.allow_broken_links ? '--allow-broken-links' : null;
      const sources = new Set(dangling.map((b) => b.source)).size;
      out.push({
        name: 'shrink',
        ok: false,
        severity: flag ? 'warn' : 'block',
        path: c.path,
        message:
          `the change deletes ${c.path}, which ${sources === 1 ? '1 note links' : `${sources} notes link`} to (${dangling.length} link${dangling.length === 1 ? '' : 's'}, listed by link_stability)` +
          (flag ? ` (allowed: the proposal says ${flag})` : ' — if that is intended, propose again with --allow-shrink'),
        details: { deleted: true, links: dangling.length, sources },
      });
    }
  });
  return out.length ? out : [pass('shrink', 'no note loses more than half of its text, and no deleted note has links to it')];
}

/**
 * scenario and validator: the write rules of the scenario the proposal was made
 * under, and its validator (src/policy runs it in a child process, bounded). A
 * scenario that can no longer be loaded (deleted, or its files broken since)
 * blocks, saying why: its rules cannot be checked.
 */
async function scenarioChecks(session: VaultSession, p: ReviewInput, files: readonly ProposedFile[]): Promise<ReviewCheck[]> {
  if (p.scenario === null) return [];
  let scenario;
  try {
    scenario = loadScenario(p.scenario, { root: session.root, env: session.env });
  } catch (e) {
    if (!isVaultgateError(e)) throw e;
    return [{ name: 'scenario', ok: false, severity: 'block', message: `scenario ${JSON.stringify(p.scenario)} cannot be loaded, so its rules cannot be checked: ${e.message}`, details: { code: e.code } }];
  }
  const info = {
    ...(p.id ? { id: p.id } : {}),
    ...(p.title ? { title: p.title } : {}),
    ...(p.summary ? { summary: p.summary } : {}),
    ...(p.agent ? { agent: p.agent } : {}),
    ...(p.session ? { session: p.session } : {}),
  };
  return scenarioReviewChecks(scenario, files, { proposal: info });
}

/**
 * verbatim (issue 24): for a proposal made by `atomize promote`, every sentence
 * of every note it writes must be word for word in the source it was cut from
 * (markdown/verbatim.ts; the `Source:` line is atomize's own). Each novel
 * sentence is one entry naming the note, line and text: it blocks unless the
 * proposal was made with `--allow-novel`, then it warns.
 */
function verbatimChecks(changes: readonly StoredChange[], prov: Provenance): ReviewCheck[] {
  if (prov.source_text === null) {
    return [{ name: 'verbatim', ok: false, severity: 'block', message: `the source ${prov.source} (sha256 ${prov.source_sha256}) is no longer kept, so no sentence can be checked against it`, details: { source: prov.source } }];
  }
  const source = prepareSource(prov.source_text);
  const severity = prov.allow_novel ? 'warn' : 'block';
  const out: ReviewCheck[] = [];
  let sentences = 0;
  for (const c of changes) {
    if (c.action !== 'write' || c.new_text === null || !isMarkdownPath(c.path)) continue;
    const text = stripBom(c.new_text);
    const r = checkDraft(source, text, { skipLines: ownLines(text) });
    sentences += r.sentences;
    for (const n of r.novel) {
      out.push({
        name: 'verbatim',
        ok: false,
        severity,
        path: c.path,
        message: `${c.path}:${n.line}: not word for word in ${prov.source}: ${JSON.stringify(n.text)}${prov.allow_novel ? ' (allowed: the proposal says --allow-novel)' : ' — a paraphrase or an invention; fix the draft, or promote with --allow-novel'}`,
        details: { line: n.line, text: n.text, source: prov.source },
      });
    }
  }
  return out.length ? out : [pass('verbatim', `all ${sentences} sentences are word for word in ${prov.source}`)];
}

/**
 * link_target for a batch of an atomize run: a link that opened nothing when the
 * batch was proposed (its target is in another batch, not applied yet) and now
 * opens that note of the same run, with exactly the bytes promote proposed, is
 * the link as intended — not a vault that changed under it.
 */
function siblingLinks(checks: ReviewCheck[], prov: Provenance | null): ReviewCheck[] {
  const notes = prov?.notes;
  if (!notes) return checks;
  const kept = checks.filter((c) => {
    const d = c.details as { target?: string | null; now?: { target?: string | null; sha256?: string | null } } | undefined;
    const now = d?.now?.target;
    return c.ok || d?.target !== null || !now || notes[now] === undefined || notes[now] !== d?.now?.sha256;
  });
  if (kept.length > 0) return kept;
  return [pass('link_target', 'every new link opens the file it opened when proposed, or the note of the same atomize run it was written for')];
}
