/**
 * Two shortcuts the note parser takes, which must leave lezer's tree exactly
 * as it is without them:
 * - the Obsidian inline dispatcher (src/markdown/obsidian-syntax.ts) runs first
 *   in lezer's inline loop and consumes runs of words and the single space runs
 *   between them in one step, where lezer would step character by character and
 *   let every other inline parser see every plain character and space;
 * - the GFM table parser is asked only about text that holds a `|`
 *   (parse-note.ts `withPipeScan`).
 * This compares the parser with one built alike but with neither shortcut, on
 * texts made of the characters that matter around them (hard breaks, links,
 * code, tags, brackets, pipes, delimiter rows, CJK).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import type { InlineContext, MarkdownConfig } from '@lezer/markdown';
import { parseBodyTree } from '../../../src/markdown/parse-note.js';
import { obsidianSyntax } from '../../../src/markdown/obsidian-syntax.js';
import { loadLezerMarkdown } from '../../../src/lazy-require.js';

const isPlainOrSpace = (c: number) => c === 32 || c >= 0x80 || (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= 48 && c <= 57);

/** The same parser as parse-note.ts's, but the dispatcher never consumes a plain character or a space (lezer steps through them) and lezer's own table parser scans every line. */
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
  '| a | b |', '\n| --- | --- |\n', '\n|---|---|\n', 'a|b', '\n-|-\n', '\n:-:|\n', '`|`', '\\|', '| c | d |\n',
];

test('parse shortcuts: the tree is lezer’s own, stepping character by character and scanning every line for pipes (property)', () => {
  fc.assert(
    fc.property(fc.array(fc.constantFrom(...PIECES), { maxLength: 60 }), (pieces) => {
      const text = pieces.join('');
      assert.deepEqual(nodes(parseBodyTree(text)), nodes(stepwise.parse(text)), JSON.stringify(text));
    }),
    { numRuns: 3000, seed: 2008 },
  );
});

test('parse shortcuts: words, spaces, hard breaks and tables in long lines', () => {
  for (const text of ['a b  c   d\nx  \ny', 'one two three  \nfour', 'tail spaces   ', 'x \n y', '  lead', 'a'.repeat(5000) + ' ' + 'b '.repeat(3000) + '[[L]]  \nz', 'h | i\n--|--\nj | k\n\nno pipe\n--|--\n', 'text\n| x | y |\n| - | - |\n| 1 | 2 |\n']) {
    assert.deepEqual(nodes(parseBodyTree(text)), nodes(stepwise.parse(text)), JSON.stringify(text.slice(0, 80)));
  }
});
