import assert from 'node:assert/strict';
import { test } from 'node:test';
import { embedInput } from '../../../../src/wing/similar/index.js';

const section = (text: string, heading_path: string[] = []) => ({ heading_path, lines: [1, 1] as [number, number], text, links: [], tags: [], self: null }) as never;

test('embedInput: a cut never ends inside a surrogate pair (a lone half is not UTF-8)', () => {
  const text = 'a'.repeat(9) + '😀' + 'b'; // the emoji is units 9 and 10
  assert.equal(embedInput(section(text), 10), 'a'.repeat(9), 'the cut would split the pair: it moves before it');
  assert.equal(embedInput(section(text), 11), 'a'.repeat(9) + '😀');
  assert.equal(embedInput(section(text), 100), text);
  // Every cut of a string of emoji is well-formed UTF-16.
  const emoji = '😀🎉🚀'.repeat(5);
  for (let n = 1; n <= emoji.length; n++) assert.ok(embedInput(section(emoji), n).isWellFormed(), `cut at ${n}`);
});

test('embedInput: the heading path comes first, then the text, as before', () => {
  assert.equal(embedInput(section('body', ['A', 'B']), 1000), 'A > B\nbody');
  assert.equal(embedInput(section('body', ['A', 'B']), 3), 'A >');
});
