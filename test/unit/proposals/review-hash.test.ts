import assert from 'node:assert/strict';
import { test } from 'node:test';
import { diffLinkEffects, reviewHashOf } from '../../../src/proposals/review-hash.js';
import type { LinkChange, ReviewFile } from '../../../src/proposals/types.js';

const change = (over: Partial<LinkChange> = {}): LinkChange => ({
  source: 'Later.md',
  line: 1,
  kind: 'wikilink',
  raw: '[[A]]',
  in_comment: false,
  before: { status: 'resolved', target: 'A.md' },
  after: { status: 'unresolved', target: null, candidates: null },
  reason: 'unresolved',
  intended: false,
  ...over,
});
const file = (broken: ReviewFile['links_broken'] = []): ReviewFile => ({
  path: 'A.md',
  action: 'move',
  to: 'B.md',
  old_sha256: 'a',
  new_sha256: 'a',
  diff: '',
  links_added: [],
  links_removed: [],
  links_rewritten: [],
  links_broken: broken,
  shrink: 0,
});
const APPROVAL = 'f'.repeat(64);

test('review hash: a new link change or a lost heading changes it; a moved line or a follows_move link does not', () => {
  const base = reviewHashOf(APPROVAL, { link_changes: [], files: [file()] });
  assert.notEqual(reviewHashOf(APPROVAL, { link_changes: [change()], files: [file()] }), base);
  assert.notEqual(reviewHashOf(APPROVAL, { link_changes: [], files: [file([{ source: 'L.md', line: 2, raw: '[[A#H]]', reason: 'missing_anchor', target: 'A.md' }])] }), base);
  assert.notEqual(reviewHashOf('e'.repeat(64), { link_changes: [], files: [file()] }), base, 'the engine approval is in it');
  assert.equal(
    reviewHashOf(APPROVAL, { link_changes: [change({ line: 9 })], files: [file()] }),
    reviewHashOf(APPROVAL, { link_changes: [change({ line: 1 })], files: [file()] }),
    'an edit above the link moves its line, not the change',
  );
  const follows = change({ after: { status: 'resolved', target: 'Sub/A.md', candidates: null }, reason: 'follows_move', intended: true });
  assert.equal(reviewHashOf(APPROVAL, { link_changes: [follows], files: [file()] }), base);
});

test('diffLinkEffects: multisets — a second identical link is one more', () => {
  const then = { link_changes: [change()], files: [file()] };
  const now = { link_changes: [change(), change({ line: 3 })], files: [file()] };
  const d = diffLinkEffects(then, now);
  assert.equal(d.added.length, 1);
  assert.equal(d.removed.length, 0);
  assert.match(d.added[0]!.text, /^Later\.md:\d \[\[A\]\] \(A\.md → unresolved, unresolved\)$/);
  assert.deepEqual(diffLinkEffects(now, then).removed.length, 1);
});
