import { isVaultgateError } from '../../errors.js';
import { parseStrictJson } from '../../txn/index.js';
import { ANSWER_LIMITS, LINK_SIDE, RECOMMENDATION_FIELDS, RECOMMENDATION_KINDS, RELATION_VERSION, REQUIRED_RECOMMENDATION_FIELDS, type RecommendationKind } from './answer-schema.js';
import type { AcceptedRecommendation, Catalog, CitedFragment, Fragment, Refusal, RefusalCode, Side, ValidationResult } from './types.js';

/**
 * Validate an answer against its catalog: exact or refused (DESIGN principle
 * 6). No normalisation, no fuzzy matching: an id is either one the catalog
 * handed out, on the side the field is for, or the recommendation is refused.
 * Every problem is reported, each with its code, the recommendation's index
 * and the offending field or id, so a model (or a person) can fix them all
 * in one round. Pure: the catalog's freshness is checked by the caller.
 *
 * Never throws on bad input: bytes that are not UTF-8, not JSON, or JSON of
 * any shape end as refusals.
 */
export function validateAnswer(catalog: Pick<Catalog, 'fragments'>, bytes: Uint8Array | string): ValidationResult {
  const doc = (code: RefusalCode, message: string, field?: string): ValidationResult => ({
    accepted: [],
    refusals: [{ code, recommendation: null, ...(field !== undefined ? { field } : {}), message }],
    total: 0,
  });
  const size = typeof bytes === 'string' ? Buffer.byteLength(bytes) : bytes.byteLength;
  if (size > ANSWER_LIMITS.bytes) return doc('too_large', `the answer is ${size} bytes, over the ${ANSWER_LIMITS.bytes}-byte limit`);
  let text: string;
  if (typeof bytes === 'string') text = bytes;
  else {
    try {
      text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
    } catch {
      return doc('not_utf8', 'the answer is not valid UTF-8');
    }
  }
  let value: unknown;
  try {
    value = parseStrictJson(text);
  } catch (e) {
    if (!isVaultgateError(e)) throw e;
    const message = e.message.replace(/^bundle is not strict JSON: /, '');
    return doc(/^duplicate key/.test(message) ? 'duplicate_key' : 'not_json', `the answer is not strict JSON: ${message}`);
  }
  if (!isObject(value)) return doc('wrong_type', 'the answer must be a JSON object', '');

  const refusals: Refusal[] = [];
  const top = (code: RefusalCode, field: string, message: string) => refusals.push({ code, recommendation: null, field, message });
  for (const key of Object.keys(value)) if (key !== 'version' && key !== 'recommendations') top('extra_field', key, `unknown field ${JSON.stringify(key)}`);
  if (!('version' in value)) top('missing_field', 'version', `missing field "version" (${RELATION_VERSION})`);
  else if (typeof value.version !== 'string') top('wrong_type', 'version', 'version must be a string');
  else if (value.version !== RELATION_VERSION) top('wrong_version', 'version', `version ${JSON.stringify(value.version)} is not ${RELATION_VERSION}`);
  const recs = value.recommendations;
  if (!('recommendations' in value)) top('missing_field', 'recommendations', 'missing field "recommendations"');
  else if (!Array.isArray(recs)) top('wrong_type', 'recommendations', 'recommendations must be an array');
  else if (recs.length === 0) top('no_recommendations', 'recommendations', 'recommendations is empty: say at least `unrelated`');
  else if (recs.length > ANSWER_LIMITS.recommendations) top('too_many', 'recommendations', `${recs.length} recommendations, over the limit of ${ANSWER_LIMITS.recommendations}`);
  if (refusals.length > 0 || !Array.isArray(recs)) return { accepted: [], refusals, total: Array.isArray(recs) ? recs.length : 0 };

  const byId = new Map(catalog.fragments.map((f) => [f.id, f]));
  const accepted: AcceptedRecommendation[] = [];
  recs.forEach((rec, index) => {
    const mine = checkRecommendation(rec, index, byId);
    if ('refusals' in mine) refusals.push(...mine.refusals);
    else accepted.push(mine.accepted);
  });
  return { accepted, refusals, total: recs.length };
}

function checkRecommendation(rec: unknown, index: number, byId: Map<string, Fragment>): { accepted: AcceptedRecommendation } | { refusals: Refusal[] } {
  const refusals: Refusal[] = [];
  const refuse = (code: RefusalCode, field: string, message: string, id?: string) =>
    refusals.push({ code, recommendation: index, field, ...(id !== undefined ? { id } : {}), message });
  if (!isObject(rec)) {
    refuse('wrong_type', `recommendations[${index}]`, 'a recommendation must be an object');
    return { refusals };
  }
  for (const key of Object.keys(rec)) {
    if (!(RECOMMENDATION_FIELDS as readonly string[]).includes(key)) refuse('extra_field', key, `unknown field ${JSON.stringify(key)} (no free-text quotes: cite fragment ids)`);
  }
  for (const key of REQUIRED_RECOMMENDATION_FIELDS) if (!(key in rec)) refuse('missing_field', key, `missing field ${JSON.stringify(key)}`);

  let kind: RecommendationKind | null = null;
  if ('kind' in rec) {
    if (typeof rec.kind !== 'string') refuse('wrong_type', 'kind', 'kind must be a string');
    else if (!(RECOMMENDATION_KINDS as readonly string[]).includes(rec.kind)) refuse('unknown_kind', 'kind', `kind ${JSON.stringify(rec.kind)} is not one of ${RECOMMENDATION_KINDS.join(', ')}`);
    else kind = rec.kind as RecommendationKind;
  }
  if ('claim' in rec) {
    if (typeof rec.claim !== 'string') refuse('wrong_type', 'claim', 'claim must be a string');
    else if (rec.claim.trim() === '') refuse('empty_claim', 'claim', 'claim is empty');
    else if (rec.claim.length > ANSWER_LIMITS.claimChars) refuse('too_long', 'claim', `claim is ${rec.claim.length} characters, over ${ANSWER_LIMITS.claimChars}`);
  }
  const lists: Record<'evidence_a' | 'evidence_b', CitedFragment[]> = { evidence_a: [], evidence_b: [] };
  for (const [field, side] of [['evidence_a', 'A'], ['evidence_b', 'B']] as const) {
    if (!(field in rec)) continue;
    const list = rec[field];
    if (!Array.isArray(list)) {
      refuse('wrong_type', field, `${field} must be an array of fragment ids`);
      continue;
    }
    if (list.length === 0) refuse('empty_evidence', field, `${field} is empty: cite at least one note ${side} fragment`);
    if (list.length > ANSWER_LIMITS.evidence) {
      refuse('too_many', field, `${field} holds ${list.length} ids, over the limit of ${ANSWER_LIMITS.evidence}`);
      continue;
    }
    const seen = new Set<string>();
    list.forEach((id, k) => {
      const at = `${field}[${k}]`;
      if (typeof id !== 'string') return refuse('wrong_type', at, `${at} must be a fragment id string`);
      if (seen.has(id)) return refuse('duplicate_id', at, `${id} is cited twice in ${field}`, id);
      seen.add(id);
      const f = byId.get(id);
      if (!f) return refuse('unknown_id', at, `${JSON.stringify(id)} is not a fragment id of this catalog`, id);
      if (f.side !== side) return refuse('wrong_side', at, `${id} is a note ${f.side} fragment, cited in ${field} (note ${side} only)`, id);
      if (f.ambiguous) return refuse('ambiguous_fragment', at, `${id}: its text occurs more than once in ${side === 'A' ? 'note A' : 'note B'}`, id);
      lists[field].push(cite(f));
    });
  }
  let anchor: CitedFragment | null = null;
  if ('anchor' in rec && rec.anchor !== null) {
    const id = rec.anchor;
    const linkSide: Side | undefined = kind ? LINK_SIDE[kind] : undefined;
    if (typeof id !== 'string') refuse('wrong_type', 'anchor', 'anchor must be a fragment id string or null');
    else if (kind !== null && linkSide === undefined) refuse('anchor_not_allowed', 'anchor', `a ${kind} recommendation writes no link, so it takes no anchor`, id);
    else {
      const f = byId.get(id);
      if (!f) refuse('unknown_id', 'anchor', `${JSON.stringify(id)} is not a fragment id of this catalog`, id);
      else if (linkSide !== undefined && f.side !== linkSide) refuse('anchor_wrong_side', 'anchor', `${id} is in note ${f.side}, but a ${kind} link is written into note ${linkSide}`, id);
      else if (f.ambiguous) refuse('ambiguous_fragment', 'anchor', `${id}: its text occurs more than once in its note`, id);
      else anchor = cite(f);
    }
  }
  if (refusals.length > 0 || kind === null) return { refusals };
  return { accepted: { index, kind, claim: rec.claim as string, evidence_a: lists.evidence_a, evidence_b: lists.evidence_b, anchor } };
}

function cite(f: Fragment): CitedFragment {
  return { id: f.id, side: f.side, heading_path: f.heading_path, lines: f.lines, text: f.text };
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}
