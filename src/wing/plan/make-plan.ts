import { createTwoFilesPatch, FILE_HEADERS_ONLY } from 'diff';
import { VaultgateError } from '../../errors.js';
import { LINK_SIDE, assertCatalogFresh, latestAcceptedAnswer, loadCatalog, type AcceptedRecommendation, type Catalog, type Side } from '../evidence/index.js';
import { fileIndexFromDb, type IndexReader } from '../../index/index.js';
import { linkTextFor, resolveLinkPath, type FileIndex, type LinkFormat } from '../../links/index.js';
import { parseLinkSyntax, parseNote } from '../../markdown/index.js';
import { readNoteFile, readVaultConfig, sha256Hex } from '../../vault/index.js';
import { planInsertion, type Insertion, type Position } from './insertion.js';
import { readLinkFormat } from '../../links/index.js';

type Env = Record<string, string | undefined>;

export interface PlanRequest {
  catalogId: string;
  /** Index of the recommendation in the accepted answer (0-based, as `relate validate` reports it). */
  recommendation: number;
  /** Where: a fragment id of the source side, a heading path (`A > B`), or a line; else the recommendation's anchor. */
  at?: string;
  afterHeading?: string;
  line?: number;
  /** Append a new item at the end of the list holding the anchor, instead of a paragraph after the list. */
  listItem?: boolean;
}

export interface LinkPlan {
  source: string;
  target: string;
  direction: 'a_to_b' | 'b_to_a';
  insert: Insertion;
  link_text: string;
  link_format: LinkFormat;
  /** Hash of the source note the plan was made against (the proposal's base). */
  source_sha256: string;
  /** Hash of the target note when planned. */
  target_sha256: string;
  /** Hash of the source note's text after the change (UTF-8, BOM as before). */
  new_sha256: string;
}

export interface PlanResult {
  catalog_id: string;
  answer_id: number;
  recommendation: number;
  kind: AcceptedRecommendation['kind'];
  claim: string;
  /** True when the source already links to the target: no plan, no diff, nothing to propose. */
  noop: boolean;
  /** Why nothing is planned, for a no-op. */
  reason?: string;
  existing_link?: { raw: string; line: number };
  plan: LinkPlan | null;
  diff: string | null;
  warnings: string[];
  /** @internal The source's new text, for the proposal. */
  new_text?: string;
  /** @internal Whether the source note starts with a byte-order mark (kept in the new bytes). */
  bom?: boolean;
  /** @internal The fragments the recommendation cites, for the proposal's evidence (issue 22 §2). */
  cited?: Pick<AcceptedRecommendation, 'evidence_a' | 'evidence_b' | 'anchor'>;
}

/**
 * An accepted recommendation becomes a bounded change plan (DESIGN §5.3):
 * source and target (one exact file), the exact insertion range with the text
 * around it before and after, the link text (checked by resolving it), and a
 * unified diff. Writes nothing. A link that already exists makes it a no-op.
 * Both notes are read again (and the link resolved again against a refreshed
 * index) just before the result is returned: any change → CATALOG_STALE.
 */
export function makePlan(root: string, env: Env, reader: IndexReader, req: PlanRequest): PlanResult {
  const catalog = loadCatalog(root, env, req.catalogId);
  const answer = latestAcceptedAnswer(root, env, catalog.catalog_id);
  if (!answer) {
    throw new VaultgateError('ANSWER_NOT_ACCEPTED', `catalog ${catalog.catalog_id} has no accepted answer`, {
      details: { catalog_id: catalog.catalog_id },
      hint: `Validate an answer first: \`vaultgate relate validate ${catalog.catalog_id} answer.json\` (or \`relate send\`).`,
    });
  }
  const rec = answer.recommendations!.find((r) => r.index === req.recommendation);
  const indices = answer.recommendations!.map((r) => r.index);
  if (!rec) throw notApplicable(`answer ${answer.answer_id} has no recommendation ${req.recommendation} (it has ${indices.join(', ')})`, catalog, indices);
  const sourceSide = LINK_SIDE[rec.kind];
  if (!sourceSide) throw notApplicable(`recommendation ${rec.index} is ${rec.kind}: it writes no link`, catalog, indices);
  assertCatalogFresh(root, catalog);

  const targetSide: Side = sourceSide === 'A' ? 'B' : 'A';
  const source = catalog.sides[sourceSide];
  const target = catalog.sides[targetSide];
  const position = positionOf(catalog, rec, req, sourceSide);
  const { format, warnings } = readLinkFormat(root);
  const files = reader.read((h) => fileIndexFromDb(h.db)).result;
  const base = {
    catalog_id: catalog.catalog_id,
    answer_id: answer.answer_id,
    recommendation: rec.index,
    kind: rec.kind,
    claim: rec.claim,
    warnings,
  };
  const model = parseNote(source.text);
  const existing = model.links.find((l) => resolveLinkPath(files, l.path, source.path).target === target.path);
  if (existing) {
    return {
      ...base,
      noop: true,
      reason: `${source.path} already links to ${target.path} (line ${existing.startLine}: ${existing.raw})`,
      existing_link: { raw: existing.raw, line: existing.startLine },
      plan: null,
      diff: null,
    };
  }
  const link = linkTextFor(files, target.path, source.path, format);
  const { insertion, newText } = planInsertion({ text: source.text, model, managedMarkers: readVaultConfig(root).managed_blocks }, position, link.text);
  const bom = readNoteFile(root, source.path).bom;
  const diff = createTwoFilesPatch(`a/${source.path}`, `b/${source.path}`, source.text, newText, '', '', { context: 3, headerOptions: FILE_HEADERS_ONLY });

  // Just before answering: both notes as they were, and the link still naming the target.
  assertCatalogFresh(root, catalog);
  const fresh = reader.read((h) => fileIndexFromDb(h.db)).result;
  assertStillResolves(fresh, link.text, source.path, target.path, catalog.catalog_id);
  return {
    ...base,
    noop: false,
    plan: {
      source: source.path,
      target: target.path,
      direction: sourceSide === 'A' ? 'a_to_b' : 'b_to_a',
      insert: insertion,
      link_text: link.text,
      link_format: format,
      source_sha256: source.sha256,
      target_sha256: target.sha256,
      new_sha256: sha256Hex(Buffer.concat([bom ? Buffer.from([0xef, 0xbb, 0xbf]) : Buffer.alloc(0), Buffer.from(newText, 'utf8')])),
    },
    diff,
    new_text: newText,
    bom,
    cited: { evidence_a: rec.evidence_a, evidence_b: rec.evidence_b, anchor: rec.anchor },
  };
}

function notApplicable(message: string, catalog: Catalog, indices: number[]): VaultgateError {
  return new VaultgateError('PLAN_NOT_APPLICABLE', message, {
    details: { catalog_id: catalog.catalog_id, recommendations: indices },
    hint: 'Plan a link_a_to_b or link_b_to_a recommendation, by its index in the accepted answer.',
  });
}

function positionOf(catalog: Catalog, rec: AcceptedRecommendation, req: PlanRequest, sourceSide: Side): Position {
  const given = [req.at !== undefined, req.afterHeading !== undefined, req.line !== undefined].filter(Boolean).length;
  if (given > 1) throw new VaultgateError('USAGE', 'give at most one of --at, --after-heading and --line', { hint: 'One place per plan.' });
  if (req.afterHeading !== undefined) return { kind: 'heading', path: req.afterHeading.split(/\s+>\s+/) };
  if (req.line !== undefined) return { kind: 'line', line: req.line };
  const id = req.at ?? rec.anchor?.id;
  if (id === undefined) {
    throw new VaultgateError('POSITION_REFUSED', `recommendation ${rec.index} has no anchor, and no place was given`, {
      details: { reason: 'no_position' },
      hint: 'Give --at FRAGMENT_ID (a fragment of the note the link goes into), --after-heading "A > B" or --line L.',
    });
  }
  const f = catalog.fragments.find((x) => x.id === id);
  if (!f) throw new VaultgateError('POSITION_REFUSED', `${JSON.stringify(id)} is not a fragment of catalog ${catalog.catalog_id}`, { details: { reason: 'unknown_fragment', id }, hint: 'Use a fragment id from the catalog.' });
  if (f.side !== sourceSide) {
    throw new VaultgateError('POSITION_REFUSED', `${id} is in note ${f.side}, but the link is written into note ${sourceSide}`, {
      details: { reason: 'wrong_side', id },
      hint: `Pick a fragment of ${catalog.sides[sourceSide].path}.`,
    });
  }
  if (f.ambiguous) throw new VaultgateError('POSITION_REFUSED', `${id}: its text occurs more than once in the note`, { details: { reason: 'ambiguous_fragment', id }, hint: 'Pick another fragment, or a heading or line.' });
  return { kind: 'fragment', range: f.range, listItem: req.listItem === true };
}

export function assertStillResolves(files: FileIndex, linkText: string, from: string, target: string, catalogId: string): void {
  const r = resolveLinkPath(files, parseLinkSyntax(linkText).path, from);
  if (r.target !== target) {
    throw new VaultgateError('CATALOG_STALE', `${linkText} written in ${from} no longer names ${target} (the vault's files changed)`, {
      details: { catalog_id: catalogId, link: linkText, now: r.target, status: r.status },
      hint: 'Plan again.',
    });
  }
}
