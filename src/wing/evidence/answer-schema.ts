/**
 * The answer a model gives about two notes: `vaultgate.relation.v1`. There are
 * no free-text quotes in it at all: a recommendation rests on fragment ids the
 * catalog handed out, and the code substitutes their texts. Published as JSON
 * Schema (draft 2020-12) in every catalog (`answer_schema`, with the catalog's
 * own ids as enums) and in docs/similar.md (ids by pattern).
 *
 * ```json
 * {"version": "vaultgate.relation.v1",
 *  "recommendations": [{"kind": "link_a_to_b", "claim": "A's cache rule is explained in B",
 *                       "evidence_a": ["3f9c01ab:A:4"], "evidence_b": ["3f9c01ab:B:0"], "anchor": "3f9c01ab:A:4"}]}
 * ```
 */
export const RELATION_VERSION = 'vaultgate.relation.v1';

export const RECOMMENDATION_KINDS = ['link_a_to_b', 'link_b_to_a', 'merge_candidate', 'manual_review', 'unrelated'] as const;
export type RecommendationKind = (typeof RECOMMENDATION_KINDS)[number];

/** The kinds that write a link, and the side the link is written into (where an anchor must be). */
export const LINK_SIDE: Partial<Record<RecommendationKind, 'A' | 'B'>> = { link_a_to_b: 'A', link_b_to_a: 'B' };

/** Bounds of an answer, checked before anything else is looked at. */
export const ANSWER_LIMITS = {
  /** Bytes of the whole answer document. */
  bytes: 1024 * 1024,
  recommendations: 32,
  /** Ids per evidence list. */
  evidence: 64,
  /** UTF-16 units of a claim. */
  claimChars: 2000,
} as const;

export const RECOMMENDATION_FIELDS = ['kind', 'claim', 'evidence_a', 'evidence_b', 'anchor'] as const;
export const REQUIRED_RECOMMENDATION_FIELDS = ['kind', 'claim', 'evidence_a', 'evidence_b'] as const;

/** Fragment ids as a pattern: `<8 hex nonce>:<A|B>:<n>` (the side given, or either). */
export function fragmentIdPattern(side: 'A' | 'B' | 'AB' = 'AB'): string {
  return `^[0-9a-f]{8}:${side === 'AB' ? '[AB]' : side}:(0|[1-9][0-9]{0,5})$`;
}

type JsonSchema = Record<string, unknown>;

/**
 * The answer schema. Given a catalog's ids, the evidence lists and the anchor
 * are enums of exactly those ids (side A ids for `evidence_a`, side B ids for
 * `evidence_b`), so a provider that decodes against the schema cannot invent one;
 * without, ids are described by {@link fragmentIdPattern}. What the schema
 * cannot say (an anchor must be on the side the link is written into, an
 * ambiguous fragment is refused) the validator checks.
 */
export function answerJsonSchema(ids?: { a: string[]; b: string[] }): JsonSchema {
  const idOf = (list: string[] | undefined, side: 'A' | 'B' | 'AB'): JsonSchema => (list ? { enum: list } : { type: 'string', pattern: fragmentIdPattern(side) });
  const evidence = (list: string[] | undefined, side: 'A' | 'B'): JsonSchema => ({
    type: 'array',
    description: `ids of note ${side} fragments the claim rests on`,
    items: idOf(list, side),
    minItems: 1,
    maxItems: ANSWER_LIMITS.evidence,
    uniqueItems: true,
  });
  return {
    $schema: 'https://json-schema.org/draft/2020-12/schema',
    $id: 'https://vaultgate.dev/schemas/vaultgate.relation.v1.json',
    title: RELATION_VERSION,
    type: 'object',
    additionalProperties: false,
    required: ['version', 'recommendations'],
    properties: {
      version: { const: RELATION_VERSION },
      recommendations: {
        type: 'array',
        minItems: 1,
        maxItems: ANSWER_LIMITS.recommendations,
        items: {
          type: 'object',
          additionalProperties: false,
          required: [...REQUIRED_RECOMMENDATION_FIELDS],
          properties: {
            kind: { enum: [...RECOMMENDATION_KINDS] },
            claim: { type: 'string', minLength: 1, maxLength: ANSWER_LIMITS.claimChars },
            evidence_a: evidence(ids?.a, 'A'),
            evidence_b: evidence(ids?.b, 'B'),
            anchor: {
              description: 'link kinds only: the fragment after which the link goes, in the note the link is written into (A for link_a_to_b, B for link_b_to_a)',
              anyOf: [idOf(ids ? [...ids.a, ...ids.b] : undefined, 'AB'), { type: 'null' }],
            },
          },
        },
      },
    },
  };
}

/**
 * The schema as sent to a provider's structured-output mode: the same shape
 * without the keywords such decoders commonly reject (`$schema`, `$id`,
 * `uniqueItems`, `minLength`, `maxLength`, `pattern`), and, for OpenAI's strict
 * mode, `anchor` required but nullable. Anything it lets through that the full
 * schema does not is still refused by the validator.
 */
export function providerJsonSchema(schema: JsonSchema, strict: boolean): JsonSchema {
  const drop = new Set(['$schema', '$id', 'uniqueItems', 'minLength', 'maxLength', 'pattern', 'description', 'title']);
  const strip = (v: unknown): unknown => {
    if (Array.isArray(v)) return v.map(strip);
    if (!v || typeof v !== 'object') return v;
    return Object.fromEntries(Object.entries(v).filter(([k]) => !drop.has(k)).map(([k, x]) => [k, strip(x)]));
  };
  const out = strip(schema) as JsonSchema;
  if (strict) {
    const item = (out.properties as { recommendations: { items: { required: string[] } } }).recommendations.items;
    item.required = [...RECOMMENDATION_FIELDS];
  }
  return out;
}
