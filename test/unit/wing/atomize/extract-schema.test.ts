import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseExtractAnswer } from '../../../../src/wing/atomize/extract-schema.js';

test('extract schema vaultgate.atomize.extract.v1: strict — unknown keys, missing keys, empty names and non-JSON are refused', () => {
  const good = { entities: [{ name: ' Warden ', kind: 'role', aliases: ['Wardens'], sentences: ['The Warden guards the gate.'] }] };
  const r = parseExtractAnswer(JSON.stringify(good));
  assert.ok(r.ok);
  assert.equal(r.ok && r.entities[0]!.name, 'Warden');
  assert.ok(parseExtractAnswer(JSON.stringify({ schema: 'vaultgate.atomize.extract.v1', ...good })).ok);
  assert.ok(parseExtractAnswer(JSON.stringify({ entities: [] })).ok, 'a chunk with no entity is an answer');
  const bad: unknown[] = [
    { ...good, extra: 1 },
    { schema: 'other', ...good },
    { entities: [{ name: 'W', kind: 'role', aliases: [] }] },
    { entities: [{ name: '  ', kind: 'role', aliases: [], sentences: ['x'] }] },
    { entities: [{ name: 'W', kind: 'role', aliases: [], sentences: [] }] },
    { entities: [{ name: 'W', kind: 'role', aliases: 'Wardens', sentences: ['x'] }] },
    { entities: [{ name: 'W', kind: 'role', aliases: [], sentences: ['x'], note: 'y' }] },
    [],
  ];
  for (const b of bad) {
    const out = parseExtractAnswer(JSON.stringify(b));
    assert.equal(out.ok, false, JSON.stringify(b));
    assert.ok(!out.ok && out.errors.length > 0);
  }
  const notJson = parseExtractAnswer('```json\n{"entities":[]}\n```');
  assert.ok(!notJson.ok && /not JSON/.test(notJson.errors[0]!));
});
