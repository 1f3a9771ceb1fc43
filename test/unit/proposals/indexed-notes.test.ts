/**
 * Issue 20 §8 (round 3): review reads a change's base text from the index —
 * its links, anchors and frontmatter error — when the index holds that note
 * with exactly the base's bytes, instead of parsing the old text again. The
 * view must be what a parse of that text gives (an embed's size aside, which
 * review never reads), and the link review must come out the same either way.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseNote, type NoteModel } from '../../../src/markdown/index.js';
import { indexedNotes, reviewLinks, type ReviewedNote } from '../../../src/proposals/link-review.js';
import { textKeyOfHash, textMemo } from '../../../src/proposals/text-key.js';
import type { StoredChange } from '../../../src/proposals/index.js';
import { VaultSession } from '../../../src/session/index.js';
import { tempVault } from '../../helpers/temp-vault.js';

const sha = (b: string | Buffer) => crypto.createHash('sha256').update(b).digest('hex');
const stripBom = (t: string) => (t.charCodeAt(0) === 0xfeff ? t.slice(1) : t);

/** What review reads of a parse: the view the index must give. */
function viewOf(m: ReviewedNote | NoteModel) {
  return {
    length: m.length,
    lines: m.lineStarts.length,
    lastLineStart: m.lineStarts[m.lineStarts.length - 1],
    headings: m.headings,
    blockIds: m.blockIds,
    frontmatterError: m.frontmatter?.error ?? null,
    links: m.links.map((l) => {
      const { size: _size, ...rest } = l as typeof l & { size?: unknown };
      return rest;
    }),
  };
}

/** A write of each note (its text kept with any BOM, as the proposal store keeps it), with `tail` appended. */
function writes(root: string, names: string[], tail: string): StoredChange[] {
  return names.map((p) => {
    const bytes = fs.readFileSync(path.join(root, p));
    const old = bytes.toString('utf8');
    const next = old + tail;
    return { path: p, action: 'write', to: null, base_sha256: sha(bytes), old_text: old, new_text: next, new_sha256: sha(next) };
  });
}

const keyOf = (c: { old_text: string; base_sha256: string }) => textKeyOfHash(c.old_text, c.base_sha256);

const FRAGMENTS = [
  '[[A]]', '[[B#Part|shown]]', '![[pic.png|100]]', '![[B#^blk]]', '[t](A.md)', '[x](https://example.com)', '[[Missing]]',
  '%%[[A]]%%', '`[[A]]`', '```\n[[B]]\n```', '# Part', '## Sub [[A]]', 'text ^blk', 'word', 'more words', '> [!note] [[B]]',
  '- [ ] task [[A#Part]]', '| a | [[B]] |', '<!-- [[A]] -->', 'é ’ 🎉',
];
const SEPARATORS = [' ', '\n', '\r\n', '\n\n'];
const FRONTMATTER = ['', '---\nup: "[[B]]"\ntags: [x]\n---\n', '---\nbad: [unclosed\n---\n', '---\nrelated:\n  - "[[A]]"\n---\n'];

function noteText(): fc.Arbitrary<string> {
  return fc
    .tuple(fc.constantFrom(...FRONTMATTER), fc.array(fc.tuple(fc.constantFrom(...FRAGMENTS), fc.constantFrom(...SEPARATORS)), { maxLength: 40 }), fc.boolean(), fc.nat({ max: 3 }))
    .map(([fm, parts, bom, repeat]) => {
      // now and then a note over the length from which texts are keyed by hash
      const body = parts.map(([f, s]) => f + s).join('');
      return (bom ? '\ufeff' : '') + fm + (repeat === 3 ? body + 'filler '.repeat(200) + body : body);
    });
}

test('indexedNotes: property — the index view of a base text is what a parse of it gives, and the link review is the same', () => {
  fc.assert(
    fc.property(fc.array(noteText(), { minLength: 1, maxLength: 4 }), (texts) => {
      const files: Record<string, string> = { 'A.md': '# Part\n\ntext ^blk\n', 'B.md': '# Part\n\nx ^blk\n', 'pic.png': 'png' };
      texts.forEach((t, i) => (files[`N${i}.md`] = t));
      const { root, home } = tempVault(files);
      const session = VaultSession.open({ vault: root, env: { VAULTGATE_HOME: home }, cwd: root });
      try {
        const names = texts.map((_, i) => `N${i}.md`);
        const changes = writes(root, names, '\nadded [[A]] and [[Missing]]\n');
        session.read((h) => {
          const views = indexedNotes(h.db, changes, keyOf);
          for (const c of changes) {
            const view = views.get(keyOf(c as { old_text: string; base_sha256: string }));
            assert.ok(view, `${c.path} is read from the index`);
            assert.deepEqual(viewOf(view), viewOf(parseNote(stripBom(c.old_text!))), c.path);
          }
          // the link review from the index views is the one from parsing every text
          const parsed = (t: string) => parseNote(stripBom(t));
          const fromIndex = textMemo(new Map<string, NoteModel>(), parsed, [], views);
          const config = session.config();
          assert.deepEqual(reviewLinks(h.db, config, changes, fromIndex), reviewLinks(h.db, config, changes, parsed));
          return null;
        });
      } finally {
        void session.close();
      }
    }),
    { numRuns: 25 },
  );
});

test('indexedNotes: a base the index does not hold (the file changed since) is parsed, not read from the index', () => {
  const { root, home } = tempVault({ 'A.md': '# A\n\n[[B]]\n', 'B.md': 'b\n' });
  const session = VaultSession.open({ vault: root, env: { VAULTGATE_HOME: home }, cwd: root });
  try {
    const changes = writes(root, ['A.md'], 'more\n');
    fs.writeFileSync(path.join(root, 'A.md'), '# A changed\n\n[[C]]\n');
    const views = session.read((h) => indexedNotes(h.db, changes, keyOf)).result;
    assert.equal(views.size, 0);
    // a change with no base (a new note) or to an attachment has nothing to read either
    const none = session.read((h) =>
      indexedNotes(h.db, [{ path: 'B.md', action: 'write', to: null, base_sha256: null, old_text: null, new_text: 'x', new_sha256: sha('x') }], keyOf),
    ).result;
    assert.equal(none.size, 0);
  } finally {
    void session.close();
  }
});
