import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { headingKey, stripHeading } from '../../../src/links/index.js';

test('stripHeading turns every listed character into a space, then collapses and trims', () => {
  for (const ch of '!"#$%&()*+,.:;<=>?@^`{|}~/[]\\\r\n') assert.equal(stripHeading(`a${ch}b`), 'a b', JSON.stringify(ch));
  assert.equal(stripHeading('**Bold** and [[Other|x]]'), 'Bold and Other x');
  assert.equal(stripHeading('  What?  (draft) '), 'What draft');
});

test('stripHeading keeps _ - \' and letters of every script', () => {
  assert.equal(stripHeading("snake_case-and-dash it's"), "snake_case-and-dash it's");
  assert.equal(stripHeading('Введение: 中文'), 'Введение 中文');
});

test('headingKey ignores case (Latin, Cyrillic) and normalisation form', () => {
  assert.equal(headingKey('## ВВЕДЕНИЕ'), headingKey('введение'));
  assert.equal(headingKey('Cafe\u0301'), headingKey('CAF\u00c9'));
});

test('stripHeading is idempotent and never leaves double or edge spaces', () => {
  fc.assert(
    fc.property(fc.string({ unit: fc.constantFrom('a', ' ', '#', '|', '[', ']', '*', '-', '\n', 'я') }), (s) => {
      const once = stripHeading(s);
      assert.equal(stripHeading(once), once);
      assert.ok(!once.includes('  ') && once === once.trim());
    }),
  );
});
