import type { ReviewCheck } from '../policy/index.js';
import { locateQuote } from '../markdown/quote-location.js';
import { noteReader } from '../vault/index.js';
import type { EvidenceFragment, EvidenceStatus, EvidenceView, ProposalClaim, StoredChange } from './types.js';

/**
 * The `evidence` check (issue 22 §2, Veynrel's split): whether a quote exists
 * is code's to check, whether it is enough for the claim is the person's. So
 * a proposal made from a plan keeps every fragment its claim cites, review
 * shows them beside the claim, and re-checks that each is still in its note.
 *
 * A fragment no longer in its note (`changed`, `note_gone`) is a warning, and
 * blocks when the plan depends on it:
 * - its note is one the change writes (the link goes there: the anchor and the
 *   sentences around it are what the person read), or
 * - no cited fragment of its note still stands (the claim lost all its support
 *   in that note: it was the only one, or every one changed).
 * A fragment still in the note at other lines (`moved`) only warns. Whether
 * the fragments that stand still support the claim is left to the person.
 */

const stands = (s: EvidenceStatus) => s === 'ok' || s === 'moved';

/** A fragment as shown: without the hash it was verified against. */
function viewOf(f: EvidenceFragment, status: EvidenceView['status'], found?: [number, number]): EvidenceView {
  return { id: f.id, side: f.side, note: f.note, heading: f.heading, lines: f.lines, text: f.text, anchor: f.anchor, status, ...(found ? { found_lines: found } : {}) };
}

/** show without a review yet (or one stored before the check): the fragments, unchecked. */
export function uncheckedEvidence(claim: ProposalClaim): EvidenceView[] {
  return claim.evidence.map((f) => viewOf(f, 'unchecked'));
}

const cut = (t: string, n = 120) => (t.length > n ? `${t.slice(0, n - 1)}…` : t);
const where = (f: EvidenceFragment) => `${f.note}:${f.lines[0]}${f.lines[1] === f.lines[0] ? '' : `-${f.lines[1]}`}`;

export function evidenceChecks(root: string, claim: ProposalClaim, changes: readonly StoredChange[]): { checks: ReviewCheck[]; evidence: EvidenceView[] } {
  // gone, moved away, a symlink, over-large: the fragment cannot be found there
  const read = noteReader(root);
  const found = claim.evidence.map((f): { status: EvidenceStatus; at?: [number, number]; why?: string } => {
    const note = read(f.note);
    if (note instanceof Error) return { status: 'note_gone', why: note.message };
    if (note.sha256 === f.note_sha256) return { status: 'ok' };
    const at = locateQuote(note.text, f.text, f.lines);
    if (at === 'here') return { status: 'ok' };
    return at === null ? { status: 'changed' } : { status: 'moved', at };
  });
  const written = new Set(changes.flatMap((c) => [c.path, ...(c.to === null ? [] : [c.to])]));
  const standing = new Set(claim.evidence.filter((_, i) => stands(found[i]!.status)).map((f) => f.note));

  const checks: ReviewCheck[] = [];
  claim.evidence.forEach((f, i) => {
    const r = found[i]!;
    if (r.status === 'ok') return;
    const what = `${where(f)}: fragment ${f.id} (note ${f.side}${f.anchor ? ', where the link goes' : ''}) "${cut(f.text)}"`;
    const details = { id: f.id, side: f.side, note: f.note, lines: f.lines, status: r.status, ...(r.at ? { found_lines: r.at } : {}) };
    if (r.status === 'moved') {
      checks.push({ name: 'evidence', ok: false, severity: 'warn', path: f.note, message: `${what} is still in its note, now at lines ${r.at![0]}-${r.at![1]}`, details });
      return;
    }
    const now = r.status === 'changed' ? 'is no longer in its note' : `cannot be read: ${f.note} is gone (${r.why})`;
    const because = written.has(f.note) ? 'the change writes into this note' : !standing.has(f.note) ? `no cited fragment of ${f.note} still supports the claim` : null;
    checks.push({
      name: 'evidence',
      ok: false,
      severity: because ? 'block' : 'warn',
      path: f.note,
      message: because
        ? `${what} ${now} — ${because}; the agent should relate the notes again (\`vaultgate relate prepare\`) and propose a fresh plan`
        : `${what} ${now} — other cited fragments of ${f.note} still stand: judge whether they are enough for the claim`,
      details: { ...details, depends: because !== null },
    });
  });
  const evidence = claim.evidence.map((f, i) => viewOf(f, found[i]!.status, found[i]!.at));
  if (checks.length > 0) return { checks, evidence };
  return {
    checks: [{ name: 'evidence', ok: true, severity: 'warn', message: `every fragment the claim cites is still in its note (${claim.evidence.length} checked); whether they support it is for the person to judge`, details: { checked: claim.evidence.length } }],
    evidence,
  };
}
