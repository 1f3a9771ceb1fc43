import { loadZod, once } from '../../lazy-require.js';

/**
 * The answer a model gives for one chunk: `vaultgate.atomize.extract.v1`.
 * `{"entities":[{"name","kind","aliases":[…],"sentences":[…]}]}` where
 * `sentences` are the chunk's own sentences that belong to the entity. Strict:
 * an unknown key, a missing key, an empty name or sentence refuses the whole
 * answer (it is asked again, a bounded number of times); nothing is repaired.
 * A `schema` key naming this schema is allowed (some callers echo it).
 */
export const EXTRACT_SCHEMA = 'vaultgate.atomize.extract.v1';

export interface ExtractedEntity {
  name: string;
  kind: string;
  aliases: string[];
  sentences: string[];
}

/** Bounds: an answer cannot make vaultgate hold or write unbounded data. */
export const EXTRACT_LIMITS = { entities: 200, aliases: 20, sentences: 200, chars: 2000 } as const;

const answerSchema = once(() => {
  const { z } = loadZod();
  const text = z.string().max(EXTRACT_LIMITS.chars).refine((s) => s.trim() !== '', 'must not be empty');
  return z.strictObject({
    schema: z.literal(EXTRACT_SCHEMA).optional(),
    entities: z
      .array(
        z.strictObject({
          name: text,
          kind: text,
          aliases: z.array(text).max(EXTRACT_LIMITS.aliases),
          sentences: z.array(text).min(1).max(EXTRACT_LIMITS.sentences),
        }),
      )
      .max(EXTRACT_LIMITS.entities),
  });
});

/** The model's answer text → entities, or the reasons it breaks the schema (each with its JSON path). */
export function parseExtractAnswer(content: string): { ok: true; entities: ExtractedEntity[] } | { ok: false; errors: string[] } {
  let json: unknown;
  try {
    json = JSON.parse(content);
  } catch (e) {
    return { ok: false, errors: [`not JSON: ${(e as Error).message}`] };
  }
  const r = answerSchema().safeParse(json);
  if (!r.success) return { ok: false, errors: r.error.issues.slice(0, 20).map((i) => `${i.path.join('.') || '(answer)'}: ${i.message}`) };
  return {
    ok: true,
    entities: r.data.entities.map((e) => ({ name: e.name.trim(), kind: e.kind.trim(), aliases: e.aliases.map((a) => a.trim()), sentences: e.sentences.map((s) => s.trim()) })),
  };
}

/** The JSON Schema sent to the provider (Ollama `format`, OpenAI strict `response_format`). */
export function extractJsonSchema(): Record<string, unknown> {
  const str = { type: 'string' };
  return {
    type: 'object',
    additionalProperties: false,
    required: ['entities'],
    properties: {
      entities: {
        type: 'array',
        items: {
          type: 'object',
          additionalProperties: false,
          required: ['name', 'kind', 'aliases', 'sentences'],
          properties: { name: str, kind: str, aliases: { type: 'array', items: str }, sentences: { type: 'array', items: str } },
        },
      },
    },
  };
}

/** What the model is told: plain rules, the schema, and the chunk as plain text (links reduced to their words). */
export function extractMessages(chunkPlainText: string): { role: 'system' | 'user'; content: string }[] {
  return [
    {
      role: 'system',
      content: [
        'You cut a book into atomic notes. From the text you are given, list its entities: each rule, ability, item, organisation, place, role or concept the text defines or describes.',
        'For each entity give its name as the text writes it, a one-word kind (rule, ability, item, organisation, place, role, concept, …), other names the text uses for it (aliases), and the sentences of the text that belong to it.',
        'Copy every sentence word for word from the text: do not rephrase, shorten, merge or complete a sentence, and do not add any sentence of your own. A sentence may belong to several entities.',
        'Skip text that belongs to no entity. Answer with one JSON object and nothing else, in the schema ' + EXTRACT_SCHEMA + ':',
        JSON.stringify({ entities: [{ name: 'string', kind: 'string', aliases: ['string'], sentences: ['string'] }] }),
      ].join('\n'),
    },
    { role: 'user', content: chunkPlainText },
  ];
}
