/**
 * Issue 20 §8: review pairs a note's old and new links by place. The shared
 * start and end of the two texts pair their links in order, and a note of
 * several lines is aligned line by line before word by word, so a few lines
 * changed in each of 1,000 notes no longer make every word a token. What the
 * pairing must still say: words added around links add and remove no link, a
 * link written into a line is the one link added, a link rewritten in place is
 * a rewrite, and of twins the one that changed is the one reported.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import fc from 'fast-check';
import { reviewLinks, type FileLinks } from '../../../src/proposals/link-review.js';
import type { StoredChange } from '../../../src/proposals/index.js';
import { VaultSession } from '../../../src/session/index.js';
import { tempVault } from '../../helpers/temp-vault.js';

const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

/** The link review of one write of `N.md` from `old` to `next`, in a vault where A.md and B.md exist. */
function review(old: string, next: string): FileLinks {
  const { root, home } = tempVault({ 'A.md': '# Part\n', 'B.md': '# Part\n', 'N.md': old });
  const session = VaultSession.open({ vault: root, env: { VAULTGATE_HOME: home }, cwd: root });
  try {
    const change: StoredChange = { path: 'N.md', action: 'write', to: null, base_sha256: sha(old), old_text: old, new_text: next, new_sha256: sha(next) };
    return session.read((h) => reviewLinks(h.db, session.config(), [change]).files[0]!).result;
  } finally {
    void session.close();
  }
}

const raws = (links: ReadonlyArray<{ raw: string }>) => links.map((l) => l.raw);

const LINES = ['plain words here', 'see [[A]] for this', '[[B#Part]] and [[A]]', '- item [[A|shown]]', '', '> quote [[B]]', 'a [t](A.md) link', '%%[[A]]%%', '# Head [[B]]'];

test('link alignment: property — words added to lines add and remove no link, and one link written into a line is the one added', () => {
  fc.assert(
    fc.property(
      fc.array(fc.constantFrom(...LINES), { minLength: 1, maxLength: 30 }),
      fc.array(fc.nat(), { minLength: 1, maxLength: 5 }),
      fc.nat(),
      (lines, edited, linkAt) => {
        const old = lines.join('\n') + '\n';
        const wordy = [...lines];
        for (const k of edited) wordy[k % wordy.length] = `${wordy[k % wordy.length]} revised`;
        const words = review(old, wordy.join('\n') + '\n');
        assert.deepEqual([words.links_added, words.links_removed, words.links_rewritten], [[], [], []]);
        const linked = [...lines];
        const at = linkAt % linked.length;
        linked[at] = `${linked[at]} new [[Missing]]`;
        const one = review(old, linked.join('\n') + '\n');
        assert.deepEqual(raws(one.links_added), ['[[Missing]]']);
        assert.deepEqual(one.links_removed, []);
      },
    ),
    { numRuns: 15 },
  );
});

test('link alignment: of twin links, the one changed is reported, at its own line, in the shared start, the middle and the shared end', () => {
  const lines = Array.from({ length: 40 }, (_, k) => (k % 5 === 0 ? `line ${k} [[A]] and [[B]]` : `line ${k} words`));
  const old = lines.join('\n') + '\n';
  for (const k of [0, 20, 35]) {
    const next = [...lines];
    next[k] = next[k]!.replace('[[A]]', '[[A|shown]]');
    const r = review(old, next.join('\n') + '\n');
    assert.deepEqual(
      r.links_rewritten.map((l) => [l.line, l.before, l.after]),
      [[k + 1, '[[A]]', '[[A|shown]]']],
      `line ${k + 1}`,
    );
    assert.deepEqual([r.links_added, r.links_removed], [[], []]);
  }
});

test('link alignment: a link removed from one line and a twin added to another is one removal and one addition only when they differ', () => {
  const old = 'one [[A]]\ntwo\nthree\nfour\nfive [[B]]\n';
  // the same link moved down the note: kept (moved within), neither added nor removed
  const moved = review(old, 'one\ntwo\nthree [[A]]\nfour\nfive [[B]]\n');
  assert.deepEqual([moved.links_added, moved.links_removed], [[], []]);
  // replaced by another link elsewhere: one of each
  const replaced = review(old, 'one\ntwo\nthree [[Missing]]\nfour\nfive [[B]]\n');
  assert.deepEqual([raws(replaced.links_added), raws(replaced.links_removed)], [['[[Missing]]'], ['[[A]]']]);
});
