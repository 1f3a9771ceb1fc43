import { assertCatalogFresh, loadCatalog, markCatalogUsed, type Catalog, type CitedFragment } from '../evidence/index.js';
import { fileIndexFromDb } from '../../index/index.js';
import { propose, type ProposeResult } from '../../proposals/index.js';
import type { EvidenceFragment, ProposalClaim } from '../../proposals/types.js';
import type { VaultSession } from '../../session/index.js';
import { assertStillResolves, type PlanResult } from './make-plan.js';

/**
 * A plan becomes a proposal (DESIGN §5.3 → §5.2): one exact full-text change
 * of the source note against the hash it was planned on, stored and reviewed
 * by the proposals core; a person approves the diff. Just before it is
 * stored, both notes are read again and the link resolved again against a
 * refreshed index: any change since the catalog is CATALOG_STALE (75) and
 * nothing is stored. A no-op plan proposes nothing. The proposal records the
 * planned target (path, sha256) and the link text as its `link_target`
 * precondition (issue 22 §1): every review, and apply under the lock, resolves
 * the link again and refuses when it no longer opens that file with those bytes.
 * It also carries its claim and every fragment the claim cites, as verified
 * just now against the catalog's notes (issue 22 §2): shown beside the claim,
 * and checked again by review's `evidence` check.
 */
export async function proposePlan(session: VaultSession, result: PlanResult, actor: string, agent?: string): Promise<ProposeResult | null> {
  if (result.noop || !result.plan || result.new_text === undefined) return null;
  const plan = result.plan;
  const catalog = loadCatalog(session.root, session.env, result.catalog_id);
  assertCatalogFresh(session.root, catalog);
  const files = session.read((h) => fileIndexFromDb(h.db)).result;
  assertStillResolves(files, plan.link_text, plan.source, plan.target, catalog.catalog_id);
  const rec = result;
  const r = await propose(
    session,
    {
      title: `Link ${plan.source} → ${plan.target}`,
      summary: `${rec.claim} (catalog ${rec.catalog_id}, answer ${rec.answer_id}, recommendation ${rec.recommendation}: ${rec.kind})`,
      ...(agent === undefined ? {} : { agent }),
      changes: [{ action: 'write', path: plan.source, content: result.new_text, base: plan.source_sha256 }],
      // the target as planned (path and bytes) and the link text: a read precondition review and apply check again
      expect_link_targets: [{ source: plan.source, raw: plan.link_text, target: plan.target, target_sha256: plan.target_sha256 }],
      claim: claimOf(result, catalog),
    },
    actor,
  );
  markCatalogUsed(session.root, session.env, catalog.catalog_id);
  return r;
}

/** The claim and its cited fragments (evidence_a, evidence_b, then the anchor if not cited), each with its note's hash as checked fresh above. */
function claimOf(result: PlanResult, catalog: Catalog): ProposalClaim {
  const out: EvidenceFragment[] = [];
  const add = (f: CitedFragment, anchor: boolean) => {
    const seen = out.find((e) => e.id === f.id);
    if (seen) {
      seen.anchor ||= anchor;
      return;
    }
    const side = catalog.sides[f.side];
    out.push({ id: f.id, side: f.side, note: side.path, heading: [...f.heading_path], lines: [f.lines[0], f.lines[1]], text: f.text, anchor, note_sha256: side.sha256 });
  };
  const cited = result.cited ?? { evidence_a: [], evidence_b: [], anchor: null };
  for (const f of [...cited.evidence_a, ...cited.evidence_b]) add(f, false);
  if (cited.anchor) add(cited.anchor, true);
  return { text: result.claim, kind: result.kind, catalog_id: result.catalog_id, answer_id: result.answer_id, recommendation: result.recommendation, evidence: out };
}
