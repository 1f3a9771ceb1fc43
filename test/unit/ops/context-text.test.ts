/**
 * The terminal rendering of `context` (issue 21 §3): the header counts
 * sections and notes truthfully, and an evidence preview is cut at a word end
 * and marked `…`, never silently mid-word.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { contextHeadline } from '../../../src/ops/search-ops.js';
import { oneLine as preview } from '../../../src/ops/one-line.js';

test('context header: "N sections from M notes", linked ones said apart, left-out ones counted', () => {
  const e = (path: string, linked = false) => ({ path, linked });
  assert.equal(contextHeadline({ total: 0, evidence: [] }), 'no sections of the vault match (total 0)');
  assert.equal(contextHeadline({ total: 3, evidence: [e('a.md'), e('a.md'), e('b.md')] }), '3 sections from 2 notes');
  assert.equal(
    contextHeadline({ total: 5, evidence: [e('a.md'), e('b.md'), e('c.md', true)], truncated: [{}, {}] }),
    '3 sections from 3 notes (2 answering, 1 linked); 2 more left out by the budget',
  );
  assert.equal(contextHeadline({ total: 1, evidence: [e('a.md')] }), '1 section from 1 note');
});

test('context preview: whole when short; else cut at a word end and marked with …', () => {
  assert.equal(preview('short  text\nhere', 160), 'short text here');
  const long = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
  const p = preview(long, 160);
  assert.ok(p.length <= 160);
  assert.ok(p.endsWith('…'));
  const kept = p.slice(0, -1);
  assert.ok(long.startsWith(kept) && long[kept.length] === ' ', `cut mid-word: ${p.slice(-20)}`);
});
