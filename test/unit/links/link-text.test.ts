import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { buildFileIndex, linkTextFor, resolveLinkPath } from '../../../src/links/index.js';
import { parseLinkSyntax as parseLinkSyntaxForTest } from '../../../src/markdown/index.js';

const vault = (...paths: string[]) => buildFileIndex(paths.map((path) => ({ path, indexed: true })));

test('link text (shortest): the bare name when it names the file, else the shortest path suffix that does', () => {
  const idx = vault('Games/Catan/Rules.md', 'Games/Chess/Rules.md', 'Work/Decisions.md', 'Projects/vaultgate/Decisions.md', 'Home.md', 'Ops/Cache lifetime.md', 'Dev/Cache lifetime.md', 'Dev/cache/Cache lifetime.md');
  const t = (target: string, from: string) => linkTextFor(idx, target, from).text;
  assert.equal(t('Home.md', 'Work/Decisions.md'), '[[Home]]');
  assert.equal(t('Games/Catan/Rules.md', 'Games/Catan/Strategy.md'), '[[Rules]]', 'own folder wins: the bare name names it');
  assert.equal(t('Games/Chess/Rules.md', 'Games/Catan/Strategy.md'), '[[Chess/Rules]]');
  assert.equal(t('Games/Catan/Rules.md', 'Home.md'), '[[Catan/Rules]]', 'an equal-length tie is undetermined: one folder more');
  assert.equal(t('Projects/vaultgate/Decisions.md', 'Work/Meetings.md'), '[[vaultgate/Decisions]]');
  assert.equal(t('Work/Decisions.md', 'Home.md'), '[[Decisions]]', 'the shortest path wins: Obsidian opens Work/Decisions');
  assert.equal(t('Dev/cache/Cache lifetime.md', 'Home.md'), '[[cache/Cache lifetime]]');
  assert.equal(t('Dev/Cache lifetime.md', 'Home.md'), '[[Dev/Cache lifetime]]');
});

test('link text: relative and absolute formats, Markdown links percent-encoded, attachments keep their extension', () => {
  const idx = vault('Projects/vaultgate/Decisions.md', 'Work/Decisions.md', 'Work/Meeting notes.md', 'Attachments/map 1.png');
  const rel = { newLinkFormat: 'relative', useMarkdownLinks: false } as const;
  const abs = { newLinkFormat: 'absolute', useMarkdownLinks: false } as const;
  const md = { newLinkFormat: 'shortest', useMarkdownLinks: true } as const;
  assert.equal(linkTextFor(idx, 'Projects/vaultgate/Decisions.md', 'Work/Decisions.md', rel).text, '[[../Projects/vaultgate/Decisions]]');
  assert.equal(linkTextFor(idx, 'Work/Meeting notes.md', 'Work/Decisions.md', rel).text, '[[./Meeting notes]]');
  assert.equal(linkTextFor(idx, 'Work/Decisions.md', 'Home.md', abs).text, '[[Work/Decisions]]');
  assert.equal(linkTextFor(idx, 'Work/Meeting notes.md', 'Home.md', md).text, '[Meeting notes](Meeting%20notes.md)');
  assert.equal(linkTextFor(idx, 'Projects/vaultgate/Decisions.md', 'Home.md', md).text, '[Decisions](vaultgate/Decisions.md)');
  assert.equal(linkTextFor(idx, 'Attachments/map 1.png', 'Home.md').text, '[[map 1.png]]');
  assert.equal(linkTextFor(idx, 'Work/Decisions.md', 'Projects/vaultgate/Decisions.md', { newLinkFormat: 'relative', useMarkdownLinks: true }).text, '[Decisions](../../Work/Decisions.md)');
});

test('link text: a name a wikilink cannot carry falls back to a Markdown link; case twins resolve by exact spelling', () => {
  const idx = vault('a/Weird [draft].md', 'a/No #1.md', 'b/Note.md', 'b/note.md');
  assert.equal(linkTextFor(idx, 'a/Weird [draft].md', 'x.md').text, '[Weird draft](Weird%20%5Bdraft%5D.md)');
  assert.throws(() => linkTextFor(idx, 'a/No #1.md', 'x.md'), { code: 'LINK_AMBIGUOUS' }, 'a `#` in a name always starts a subpath');
  assert.equal(linkTextFor(idx, 'b/note.md', 'x.md').text, '[[b/note]]', 'the bare name is a tie between the twins; the spelled path is not');
  assert.equal(linkTextFor(idx, 'b/Note.md', 'x.md').text, '[[b/Note]]');
});

const name = fc.constantFrom('Note', 'note', 'Cache lifetime', 'Rules', 'Заметка', 'a b', 'x.y');
const folder = fc.constantFrom('', 'a/', 'b/', 'a/b/', 'b/a/', 'A/', 'c/d/e/');
const paths = fc.uniqueArray(fc.tuple(folder, name).map(([f, n]) => `${f}${n}.md`), { minLength: 1, maxLength: 8, selector: (p) => p.toLowerCase() });

test('link text (property): every generated link parses back and resolves from the source to exactly the target, and no shorter suffix does', () => {
  fc.assert(
    fc.property(paths, fc.nat(), fc.nat(), fc.constantFrom('shortest', 'relative', 'absolute'), fc.boolean(), (ps, i, j, fmt, md) => {
      const idx = vault(...ps);
      const target = ps[i % ps.length]!;
      const from = ps[j % ps.length]!;
      const r = linkTextFor(idx, target, from, { newLinkFormat: fmt as 'shortest', useMarkdownLinks: md });
      const parsed = parseLinkSyntaxForTest(r.text);
      assert.equal(resolveLinkPath(idx, parsed.path, from).target, target, r.text);
      if (fmt === 'shortest' && !md && r.text.startsWith('[[')) {
        const inner = r.text.slice(2, -2);
        const parts = target.slice(0, -3).split('/');
        for (let k = 1; k < parts.length; k++) {
          const shorter = parts.slice(k).join('/');
          if (shorter.length < inner.length) assert.notEqual(resolveLinkPath(idx, shorter, from).target, target, `${shorter} is shorter than ${inner}`);
        }
      }
    }),
    { numRuns: 500 },
  );
});
