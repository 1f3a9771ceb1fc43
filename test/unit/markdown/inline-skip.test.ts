/**
 * The Obsidian inline dispatcher (src/markdown/obsidian-syntax.ts) runs first in
 * lezer's inline loop and consumes runs of words and the single space runs
 * between them in one step. That is an optimisation only: the tree must be
 * exactly the one lezer builds stepping character by character, where every
 * other inline parser sees every plain character and space. This compares the
 * two parsers, built alike but for that skip, on texts made of the characters
 * that matter around it (hard breaks, links, code, tags, brackets, CJK).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { InlineContext, MarkdownConfig } from '@lezer/markdown';
import { parseBodyTree } from '../../../src/markdown/parse-note.js';
import { obsidianSyntax } from '../../../src/markdown/obsidian-syntax.js';
import { loadLezerMarkdown } from '../../../src/lazy-require.js';

const isPlainOrSpace = (c: number) => c === 32 || c >= 0x80 || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);

/** The same parser as parse-note.ts's, but the dispatcher never consumes a plain character or a space: lezer steps through them. */
const stepwise = (() => {
  const inner = obsidianSyntax.parseInline![0]!;
  const parse = (inner as { parse: (cx: InlineContext, next: number, pos: number) => number }).parse;
  const config: MarkdownConfig = { ...obsidianSyntax, parseInline: [{ ...inner, parse: (cx, next, pos) => (isPlainOrSpace(next) ? -1 : parse(cx, next, pos)) }] };
  const { Strikethrough, Table, TaskList, parser } = loadLezerMarkdown();
  return parser.configure([Table, TaskList, Strikethrough, config, { remove: ['Emphasis'] }]);
})();

function nodes(tree: ReturnType<typeof parseBodyTree>): string[] {
  const out: string[] = [];
  tree.iterate({ enter: (n) => void out.push(`${n.name} ${n.from} ${n.to}`) });
  return out;
}

const PIECES = [
  'word', 'Word9', 'é', '中文', ' ', '  ', '   ', '\n', '  \n', ' \n', '\n\n', '[[Note]]', '[[Note#H|alias]]', '![[pic.png]]', '[t](A.md)',
  '[', ']', '`code`', '`', '#tag', ' #tag', '%%c%%', '$x$', '<b>', '&amp;', '\\', '~~s~~', '*', '_', '!', '|', '- ', '> ', '# ', 'http://x.y',
];

test('inline skip: the tree is lezer’s own, stepping character by character (property)', () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }), (pieces) => {
      const text = pieces.join('');
      assert.deepEqual(nodes(parseBodyTree(text)), nodes(stepwise.parse(text)), JSON.stringify(text));
    }),
    { numRuns: 3000, seed: 2008 },
  );
});

test('inline skip: words, spaces and hard breaks in long lines', () => {
  for (const text of ['a b  c   d\nx  \ny', 'one two three  \nfour', 'tail spaces   ', 'x \n y', '  lead', 'a'.repeat(5000) + ' ' + 'b '.repeat(3000) + '[[L]]  \nz']) {
    assert.deepEqual(nodes(parseBodyTree(text)), nodes(stepwise.parse(text)), JSON.stringify(text.slice(0, 80)));
  }
});
