import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { ANSWER_LIMITS, RELATION_VERSION, prepareCatalog, validateAnswer, type Catalog } from '../../../../src/wing/evidence/index.js';
import { tempVault } from '../../../helpers/temp-vault.js';

const A = `# Cache lifetime

Entries expire after one hour. The limit protects the origin.

- purge on deploy
- purge on deploy
`;
const B = `# Origin load

Without a cache the origin serves every request. One hour was chosen in the v1.2 review.

| ttl | reason |
|-----|--------|
| 3600 | origin load |
`;

function catalog(): Catalog {
  const { root } = tempVault({ 'a/Cache lifetime.md': A, 'b/Origin load.md': B });
  let n = 0;
  return prepareCatalog(root, 'a/Cache lifetime.md', 'b/Origin load.md', { random: (k) => Buffer.alloc(k, 0xa0 + ++n) });
}
const CAT = catalog();
const ids = (side: 'A' | 'B') => CAT.fragments.filter((f) => f.side === side && !f.ambiguous).map((f) => f.id);
const ambiguousA = CAT.fragments.find((f) => f.side === 'A' && f.ambiguous)!.id;
const good = () => ({
  version: RELATION_VERSION,
  recommendations: [{ kind: 'link_a_to_b', claim: 'A’s ttl is explained in B', evidence_a: [ids('A')[0]], evidence_b: [ids('B')[1]], anchor: ids('A')[1] }],
});
const run = (answer: unknown) => validateAnswer(CAT, typeof answer === 'string' ? answer : JSON.stringify(answer));
const codes = (answer: unknown) => run(answer).refusals.map((r) => [r.code, r.recommendation, r.field ?? null]);

test('validate: a good answer is accepted, the code substitutes the fragment texts', () => {
  const r = run(good());
  assert.deepEqual(r.refusals, []);
  assert.equal(r.accepted.length, 1);
  assert.equal(r.accepted[0]!.evidence_a[0]!.text, 'Entries expire after one hour.');
  assert.equal(r.accepted[0]!.evidence_b[0]!.text, 'One hour was chosen in the v1.2 review.');
  assert.equal(r.accepted[0]!.anchor!.text, 'The limit protects the origin.');
  assert.equal(CAT.fragments.filter((f) => f.ambiguous).length, 2, 'the repeated list item is ambiguous');
});

test('validate: each kind of refusal has its code, recommendation index and field', () => {
  const g = good();
  const rec = g.recommendations[0]!;
  const with_ = (patch: Record<string, unknown>) => ({ ...g, recommendations: [{ ...rec, ...patch }] });
  assert.deepEqual(codes('not json'), [['not_json', null, null]]);
  assert.deepEqual(codes('{"version":"x","version":"y"}'), [['duplicate_key', null, null]]);
  assert.deepEqual(codes([]), [['wrong_type', null, '']]);
  assert.deepEqual(codes({ ...g, version: 'vaultgate.relation.v2' }), [['wrong_version', null, 'version']]);
  assert.deepEqual(codes({ recommendations: g.recommendations }), [['missing_field', null, 'version']]);
  assert.deepEqual(codes({ ...g, extra: 1 }), [['extra_field', null, 'extra']]);
  assert.deepEqual(codes({ ...g, recommendations: [] }), [['no_recommendations', null, 'recommendations']]);
  assert.deepEqual(codes(with_({ quote: 'Entries expire' })), [['extra_field', 0, 'quote']]);
  assert.deepEqual(codes(with_({ kind: 'link' })), [['unknown_kind', 0, 'kind']]);
  assert.deepEqual(codes(with_({ claim: ' ' })), [['empty_claim', 0, 'claim']]);
  assert.deepEqual(codes(with_({ evidence_a: [] })), [['empty_evidence', 0, 'evidence_a']]);
  assert.deepEqual(codes(with_({ evidence_a: [ids('B')[0]] })), [['wrong_side', 0, 'evidence_a[0]']]);
  assert.deepEqual(codes(with_({ evidence_b: [ids('B')[0], ids('B')[0]] })), [['duplicate_id', 0, 'evidence_b[1]']]);
  assert.deepEqual(codes(with_({ evidence_a: [ambiguousA] })), [['ambiguous_fragment', 0, 'evidence_a[0]']]);
  assert.deepEqual(codes(with_({ anchor: ids('B')[0] })), [['anchor_wrong_side', 0, 'anchor']]);
  assert.deepEqual(codes(with_({ kind: 'merge_candidate' })), [['anchor_not_allowed', 0, 'anchor']]);
  assert.deepEqual(codes(with_({ evidence_a: ids('A')[0]!.toUpperCase() })), [['wrong_type', 0, 'evidence_a']]);
  const missing = { ...rec } as Record<string, unknown>;
  delete missing.evidence_b;
  assert.deepEqual(codes({ ...g, recommendations: [missing] }), [['missing_field', 0, 'evidence_b']]);
});

test('validate: every refusal is listed, across recommendations; good ones are still reported as accepted', () => {
  const g = good();
  const rec = g.recommendations[0]!;
  const r = run({ ...g, recommendations: [rec, { ...rec, evidence_a: ['nope'], anchor: 'nope' }, { ...rec, kind: 7 }] });
  assert.deepEqual(
    r.refusals.map((x) => [x.code, x.recommendation, x.field, x.id ?? null]),
    [
      ['unknown_id', 1, 'evidence_a[0]', 'nope'],
      ['unknown_id', 1, 'anchor', 'nope'],
      ['wrong_type', 2, 'kind', null],
    ],
  );
  assert.deepEqual(r.accepted.map((a) => a.index), [0]);
});

test('validate: anchors are optional and may be null; link_b_to_a anchors in note B', () => {
  const rec = good().recommendations[0]!;
  assert.deepEqual(codes({ ...good(), recommendations: [{ ...rec, anchor: null }] }), []);
  const noAnchor = { ...rec } as Record<string, unknown>;
  delete noAnchor.anchor;
  assert.deepEqual(codes({ ...good(), recommendations: [noAnchor] }), []);
  assert.deepEqual(codes({ ...good(), recommendations: [{ ...rec, kind: 'link_b_to_a', anchor: ids('B')[0] }] }), []);
});

// ---- fuzz: generated hostile answers are refused, never accepted, never a crash

const idA = fc.constantFrom(...ids('A'));
const idB = fc.constantFrom(...ids('B'));
const mangle = (id: string) =>
  fc.constantFrom(
    id.toUpperCase(),
    id.replace(':A:', ':a:').replace(':B:', ':b:'),
    id + '.',
    ' ' + id,
    id.replace(CAT.nonce, 'deadbeef'),
    id + '0',
    id.replace(/\d+$/, '999'),
    id.replace(/^./, (c) => (c === 'f' ? 'e' : 'f')),
  ).filter((m) => m !== id);
const wrongType = fc.oneof(fc.integer(), fc.constant(null), fc.boolean(), fc.dictionary(fc.string(), fc.integer(), { maxKeys: 2 }), fc.double());

/** One way of breaking a good recommendation, so that it must be refused. */
const breakRec = fc.oneof(
  idA.chain((id) => mangle(id).map((m) => ({ evidence_a: [m] }))),
  idB.chain((id) => mangle(id).map((m) => ({ evidence_b: [m] }))),
  idB.map((id) => ({ evidence_a: [id] })), // swapped sides
  idA.map((id) => ({ evidence_b: [id] })),
  idB.map((id) => ({ anchor: id })),
  fc.string({ minLength: 1, maxLength: 8 }).filter((k) => !['kind', 'claim', 'evidence_a', 'evidence_b', 'anchor'].includes(k)).map((k) => ({ [k]: 'x' })),
  wrongType.map((v) => ({ kind: v })),
  wrongType.map((v) => ({ claim: v })),
  wrongType.map((v) => ({ evidence_a: v })),
  fc.array(wrongType, { minLength: 1, maxLength: 3 }).map((v) => ({ evidence_b: v })),
  fc.integer({ min: ANSWER_LIMITS.evidence + 1, max: 5000 }).map((n) => ({ evidence_a: new Array(n).fill(ids('A')[0]) })),
  fc.constant({ evidence_a: [] }),
  fc.constant({ claim: 'x'.repeat(ANSWER_LIMITS.claimChars + 1) }),
);

test('validate (fuzz): wrong ids, swapped sides, altered case/punctuation, extra fields, huge arrays, wrong types are refused', () => {
  fc.assert(
    fc.property(fc.array(breakRec, { minLength: 1, maxLength: 3 }), fc.nat({ max: 3 }), (breaks, at) => {
      const g = good();
      const recs = [g.recommendations[0], g.recommendations[0], g.recommendations[0], g.recommendations[0]].slice(0, at + 1).map((r) => ({ ...r }));
      const target = recs[at]!;
      for (const b of breaks) Object.assign(target, b);
      const r = run({ ...g, recommendations: recs });
      assert.ok(r.refusals.some((x) => x.recommendation === at), JSON.stringify(breaks));
      assert.ok(!r.accepted.some((x) => x.index === at));
    }),
    { numRuns: 400 },
  );
});

test('validate (fuzz): whole documents of any shape are refused without throwing', () => {
  fc.assert(
    fc.property(fc.oneof(fc.json(), fc.string(), fc.uint8Array({ maxLength: 64 })), (doc) => {
      const r = validateAnswer(CAT, typeof doc === 'string' ? doc : doc);
      assert.ok(r.refusals.length > 0);
      assert.equal(r.accepted.length, 0);
    }),
    { numRuns: 400 },
  );
  assert.equal(run({ ...good(), recommendations: new Array(ANSWER_LIMITS.recommendations + 1).fill(good().recommendations[0]) }).refusals[0]!.code, 'too_many');
  assert.equal(validateAnswer(CAT, Buffer.alloc(ANSWER_LIMITS.bytes + 1, 32)).refusals[0]!.code, 'too_large');
  assert.equal(validateAnswer(CAT, Buffer.from([0x7b, 0xff, 0x7d])).refusals[0]!.code, 'not_utf8');
  assert.equal(run('{"__proto__": {"x": 1}, "version": "vaultgate.relation.v1", "recommendations": []}').refusals[0]!.code, 'extra_field');
});

test('validate (property): answers built from the catalog’s own ids are accepted with exactly its texts', () => {
  fc.assert(
    fc.property(fc.uniqueArray(idA, { minLength: 1, maxLength: 3 }), fc.uniqueArray(idB, { minLength: 1, maxLength: 3 }), fc.string({ minLength: 1 }).filter((s) => s.trim() !== ''), (ea, eb, claim) => {
      const r = run({ version: RELATION_VERSION, recommendations: [{ kind: 'manual_review', claim, evidence_a: ea, evidence_b: eb }] });
      assert.deepEqual(r.refusals, []);
      const byId = new Map(CAT.fragments.map((f) => [f.id, f.text]));
      assert.deepEqual(r.accepted[0]!.evidence_a.map((f) => f.text), ea.map((id) => byId.get(id)));
    }),
    { numRuns: 200 },
  );
});
