import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { mergePatch } from '../../../src/state/index.js';

/** Every example of RFC 7396 Appendix A, as [original, patch, result]. */
const APPENDIX_A: [string, string, string][] = [
  ['{"a":"b"}', '{"a":"c"}', '{"a":"c"}'],
  ['{"a":"b"}', '{"b":"c"}', '{"a":"b","b":"c"}'],
  ['{"a":"b"}', '{"a":null}', '{}'],
  ['{"a":"b","b":"c"}', '{"a":null}', '{"b":"c"}'],
  ['{"a":["b"]}', '{"a":"c"}', '{"a":"c"}'],
  ['{"a":"c"}', '{"a":["b"]}', '{"a":["b"]}'],
  ['{"a":{"b":"c"}}', '{"a":{"b":"d","c":null}}', '{"a":{"b":"d"}}'],
  ['{"a":[{"b":"c"}]}', '{"a":[1]}', '{"a":[1]}'],
  ['["a","b"]', '["c","d"]', '["c","d"]'],
  ['{"a":"b"}', '["c"]', '["c"]'],
  ['{"a":"foo"}', 'null', 'null'],
  ['{"a":"foo"}', '"bar"', '"bar"'],
  ['{"e":null}', '{"a":1}', '{"e":null,"a":1}'],
  ['[1,2]', '{"a":"b","c":null}', '{"a":"b"}'],
  ['{}', '{"a":{"bb":{"ccc":null}}}', '{"a":{"bb":{}}}'],
];

test('merge patch: every example of RFC 7396 Appendix A', () => {
  for (const [original, patch, result] of APPENDIX_A) {
    assert.deepEqual(JSON.parse(JSON.stringify(mergePatch(JSON.parse(original), JSON.parse(patch)))), JSON.parse(result), `${original} + ${patch}`);
  }
});

test('merge patch: __proto__ and constructor are plain keys; Object.prototype is never touched; inputs are not changed', () => {
  const patch = JSON.parse('{"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}},"a":{"__proto__":null}}');
  const target = JSON.parse('{"a":{"__proto__":{"x":1},"keep":true}}');
  const targetCopy = JSON.stringify(target);
  const out = mergePatch(target, patch) as Record<string, unknown>;
  assert.equal(({} as Record<string, unknown>).polluted, undefined);
  assert.equal(Object.getPrototypeOf(out), null);
  assert.deepEqual(Object.keys(out).sort(), ['__proto__', 'a', 'constructor']);
  assert.equal(JSON.stringify(out), '{"a":{"keep":true},"__proto__":{"polluted":1},"constructor":{"prototype":{"polluted":2}}}');
  assert.equal(JSON.stringify(target), targetCopy, 'the target is not modified');
});

const json = fc.jsonValue({ maxDepth: 4 });

test('merge patch: properties (twice = once; an object patch yields an object holding its keys; a null-free patch onto {} is itself)', () => {
  const dropNulls = (v: unknown): unknown =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v).filter(([, x]) => x !== null).map(([k, x]) => [k, dropNulls(x)]))
      : v;
  fc.assert(
    fc.property(json, json, (target, patch) => {
      const once = mergePatch(target, patch);
      assert.deepEqual(JSON.stringify(mergePatch(once, patch)), JSON.stringify(once), 'idempotent');
      if (patch && typeof patch === 'object' && !Array.isArray(patch)) {
        assert.ok(once && typeof once === 'object' && !Array.isArray(once));
        // every non-null key of the patch is in the result
        for (const [k, v] of Object.entries(patch)) if (v !== null) assert.ok(Object.hasOwn(once as object, k));
      } else assert.equal(once, patch);
      const plain = dropNulls(patch);
      if (plain && typeof plain === 'object' && !Array.isArray(plain)) assert.equal(JSON.stringify(mergePatch({}, plain)), JSON.stringify(plain));
    }),
    { numRuns: 300 },
  );
});
