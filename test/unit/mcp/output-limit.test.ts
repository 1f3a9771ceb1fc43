import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { fitOutput } from '../../../src/mcp/output-limit.js';

const size = (v: unknown) => JSON.stringify(v).length;

test('fitOutput: a document that fits is returned as it is (same object, no output_limit)', () => {
  const doc = { ok: true, total: 1, hits: [{ path: 'a.md' }] };
  const r = fitOutput(doc, 1000, 'hint');
  assert.equal(r.cut, false);
  assert.equal(r.doc, doc);
});

test('fitOutput: trailing items of the largest list go first, counted under their path; order and fields of the rest are kept', () => {
  const hits = Array.from({ length: 200 }, (_, i) => ({ path: `n${i}.md`, snippet: 'x'.repeat(100) }));
  const doc = { ok: true, query: 'q', total: 200, hits, index: { notes: 200 } };
  const r = fitOutput(doc, 5000, 'lower limit');
  assert.equal(r.cut, true);
  assert.ok(size(r.doc) <= 5000, `size ${size(r.doc)}`);
  const kept = r.doc.hits as typeof hits;
  assert.deepEqual(kept, hits.slice(0, kept.length), 'a prefix of the original list');
  const note = r.doc.output_limit as { max_chars: number; omitted: Record<string, { items: number }>; hint: string };
  assert.equal(note.max_chars, 5000);
  assert.equal(note.omitted.hits!.items, 200 - kept.length);
  assert.equal(note.hint, 'lower limit');
  assert.equal(r.doc.total, 200, 'scalars untouched');
  assert.equal(doc.hits.length, 200, 'the input is not modified');
});

test('fitOutput: nested lists (check items) are cut too; a single huge text is cut last, by characters', () => {
  const doc = { ok: true, counts: { orphans: 3000 }, items: { orphans: Array.from({ length: 3000 }, (_, i) => `Folder/Note ${i}.md`), unresolved: [] } };
  const r = fitOutput(doc, 8000, 'h');
  assert.ok(size(r.doc) <= 8000);
  assert.ok((r.doc.output_limit as { omitted: Record<string, unknown> }).omitted['items.orphans']);
  const big = { ok: true, path: 'a.md', text: 'line "quoted"\n'.repeat(5000) };
  const t = fitOutput(big, 10_000, 'h');
  assert.ok(size(t.doc) <= 10_000, `size ${size(t.doc)}`);
  assert.ok(big.text.startsWith(t.doc.text as string));
  assert.equal((t.doc.output_limit as { omitted: { text: { chars: number } } }).omitted.text.chars, big.text.length - (t.doc.text as string).length);
});

test('fitOutput: whatever the document, the result fits the limit and says what it left out (property)', () => {
  const leaf = fc.oneof(fc.string({ maxLength: 400 }), fc.integer(), fc.boolean(), fc.constant(null));
  const docArb = fc.dictionary(
    fc.string({ minLength: 1, maxLength: 8 }).filter((k) => k !== 'output_limit' && k !== '__proto__'),
    fc.oneof(leaf, fc.array(fc.oneof(leaf, fc.dictionary(fc.string({ maxLength: 5 }), leaf, { maxKeys: 3 })), { maxLength: 60 }), fc.dictionary(fc.string({ maxLength: 5 }).filter((k) => k !== '__proto__'), fc.array(leaf, { maxLength: 40 }), { maxKeys: 3 })),
    { maxKeys: 6 },
  );
  fc.assert(
    fc.property(docArb, fc.integer({ min: 1000, max: 6000 }), (doc, max) => {
      const r = fitOutput(doc, max, 'hint');
      if (!r.cut) return size(doc) <= max && r.doc === doc;
      return size(r.doc) <= max && typeof r.doc.output_limit === 'object';
    }),
    { numRuns: 300 },
  );
});

test('fitOutput: a cut text ends at a word or line end, never mid-word, and the cut is marked truncated (issue 21 §2)', () => {
  const words = Array.from({ length: 3000 }, (_, i) => `word${i}`).join(' ');
  const r = fitOutput({ ok: true, path: 'a.md', diff: words }, 5000, 'h');
  const kept = r.doc.diff as string;
  assert.ok(size(r.doc) <= 5000);
  assert.ok(words.startsWith(kept));
  assert.equal(words[kept.length], ' ', `cut at a word end: …${kept.slice(-20)}|${words.slice(kept.length, kept.length + 10)}`);
  const note = r.doc.output_limit as { truncated: boolean; omitted: { diff: { chars: number } } };
  assert.equal(note.truncated, true);
  assert.equal(note.omitted.diff.chars, words.length - kept.length);
});
