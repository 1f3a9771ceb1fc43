/**
 * Property tests: generated notes (frontmatter, headings, paragraphs with links
 * and tags, code fences, tables, lists, callouts, comments, math; Latin, Cyrillic
 * and CJK words; LF or CRLF) must satisfy the model's slice invariants, and links
 * planted in prose must be found while those planted in code must not.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { parseNote, type NoteModel } from '../../../src/markdown/index.js';
import { rangedElements } from './marks.js';

const word = fc.constantFrom('alpha', 'beta', 'note', 'Заметка', 'раздел', 'тест', '笔记', '中文', '标签', 'x1', 'über', 'café');
const words = fc.array(word, { minLength: 1, maxLength: 5 }).map((w) => w.join(' '));

/** Names planted in prose are `P…`, in code `C…`: the oracle for "code is not a link". */
const prose = fc.integer({ min: 0, max: 99 }).map((n) => `P${n}`);
const inCode = fc.integer({ min: 0, max: 99 }).map((n) => `C${n}`);

const proseLink = fc.oneof(
  fc.tuple(prose, fc.option(word, { nil: undefined })).map(([p, h]) => `[[${p}${h ? `#${h}` : ''}]]`),
  fc.tuple(prose, word).map(([p, d]) => `[[${p}|${d}]]`),
  fc.tuple(prose, word).map(([p, d]) => `[[${p}\\|${d}]]`),
  fc.tuple(prose, fc.constantFrom('', '|100', '|100x145')).map(([p, s]) => `![[${p}.png${s}]]`),
  fc.tuple(word, prose).map(([t, p]) => `[${t}](${p}%20x.md)`),
);
const tag = fc.constantFrom('#tag', '#nested/tag', '#标签', '#тег', '#a-b_c');
const inline = fc.oneof(words, proseLink, tag, inCode.map((c) => `\`[[${c}]]\``), fc.constant('$x^2$'));
const paragraph = fc.array(inline, { minLength: 1, maxLength: 6 }).map((parts) => parts.join(' '));

const block = fc.oneof(
  { weight: 4, arbitrary: paragraph },
  fc.tuple(fc.integer({ min: 1, max: 6 }), words, fc.option(proseLink, { nil: undefined })).map(
    ([lvl, t, l]) => `${'#'.repeat(lvl)} ${t}${l ? ` ${l}` : ''}`,
  ),
  fc.tuple(words, fc.constantFrom('===', '---')).map(([t, u]) => `${t}\n${u}`),
  fc.tuple(fc.constantFrom('```', '```statblock', '~~~'), inCode).map(([f, c]) => `${f}\n[[${c}]] #notatag\n${f.slice(0, 3)}`),
  // After a plain paragraph: right after a list, an indented line would continue the item.
  inCode.map((c) => `Plain\n\n    [[${c}]] indented`),
  fc.tuple(prose, words).map(([p, w]) => `| a | b |\n|---|---|\n| [[${p}\\|${w}]] | ${w} |`),
  fc.array(paragraph, { minLength: 1, maxLength: 3 }).map((items) => items.map((i) => `- ${i}`).join('\n')),
  fc.tuple(fc.constantFrom('note', 'warning', 'tip'), words, paragraph).map(([t, w, p]) => `> [!${t}] ${w}\n> ${p}`),
  proseLink.map((l) => `%%\n${l}\n%%`),
  inCode.map((c) => `$$\n[[${c}]]\n$$`),
  fc.constantFrom('^blk-1', 'text ^id-2', 'para\n^id-3', '> quoted\n^id-4', '- item\n  ^id-5'),
  fc.tuple(prose, words).map(([p, w]) => `Note[^1].\n\n[^1]: [[${p}]] ${w}`),
  fc.tuple(prose, words).map(([p, w]) => `| a | b |\n|---|---|\n| [[${p}#${w}|${w}]] | x |`),
  fc.tuple(words, prose).map(([w, p]) => `[${w}](“q” ([c](${p}.md)) (…))`),
);

const frontmatter = fc.option(
  fc.tuple(prose, fc.array(fc.constantFrom('a', 'b/c', '标签'), { maxLength: 3 }), words).map(
    ([p, tags, title]) => `---\ntitle: ${title}\nup: "[[${p}]]"\ntags: [${tags.join(', ')}]\n---\n`,
  ),
  { nil: '' },
);

const note = fc
  .tuple(frontmatter, fc.array(block, { maxLength: 10 }), fc.boolean(), fc.boolean())
  .map(([fm, blocks, useCrlf, trailingNl]) => {
    const text = fm + blocks.join('\n\n') + (trailingNl ? '\n' : '');
    return useCrlf ? text.replace(/\n/g, '\r\n') : text;
  });

function naiveLine(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

function checkInvariants(text: string, m: NoteModel): void {
  assert.equal(m.length, text.length);
  const ranged = rangedElements(m);
  for (const el of ranged) {
    const { start, end } = el.range;
    assert.ok(0 <= start && start <= end && end <= text.length, `range in bounds: ${start}..${end}`);
    assert.equal(el.startLine, naiveLine(text, start), 'startLine');
    assert.equal(el.endLine, naiveLine(text, end > start ? end - 1 : start), 'endLine');
  }
  for (const h of m.headings) {
    assert.ok(h.range.start <= h.textRange.start && h.textRange.end <= h.range.end, 'text inside heading');
    assert.equal(text.slice(h.textRange.start, h.textRange.end).replace(/\r\n/g, '\n'), h.text);
    assert.ok(!h.text.includes('\r'));
  }
  const fmEnd = m.frontmatter?.range.end ?? -1;
  for (const l of m.links) {
    assert.equal(text.slice(l.range.start, l.range.end), l.raw);
    const inFrontmatter = l.range.end <= fmEnd;
    assert.ok(inFrontmatter || /^(?:!?\[\[|!?\[)/.test(l.raw), `link raw ${l.raw}`);
    assert.equal(l.kind === 'frontmatter', inFrontmatter);
    assert.ok(!l.path.includes('\r'), `path ${l.path}`);
    // `\|` ends the target like `|`: the escaping backslash never stays in the
    // path. A backslash anywhere else is literal text (`[[\]]` has the path `\`).
    if (l.kind === 'wikilink' && l.display !== null) {
      const open = l.raw.startsWith('!') ? 3 : 2;
      const beforeBar = l.raw.slice(open, l.raw.indexOf('|'));
      if (beforeBar.endsWith('\\')) {
        const target = beforeBar.slice(0, -1);
        const hash = target.indexOf('#');
        assert.equal(l.path, (hash === -1 ? target : target.slice(0, hash)).trim(), `escaped bar in ${l.raw}`);
      }
    }
  }
  for (const t of m.tags) {
    if (t.source === 'inline') assert.equal(text.slice(t.range.start, t.range.end), `#${t.name}`);
  }
  for (const b of m.blockIds) {
    assert.equal(text.slice(b.range.start, b.range.end), `^${b.id}`);
    const { start, end } = b.blockRange;
    assert.ok(0 <= start && start < end && end <= text.length, 'block range in bounds');
    assert.deepEqual([b.blockStartLine, b.blockEndLine], [naiveLine(text, start), naiveLine(text, end - 1)], 'block lines');
  }
  for (const list of [m.links, m.protected]) {
    for (let i = 1; i < list.length; i++) assert.ok((list[i - 1]?.range.start ?? 0) <= (list[i]?.range.start ?? 0), 'sorted by start');
  }
  // Sections: contiguous, ending at the note's end, only whitespace before the first.
  const bodyStart = m.frontmatter ? text.indexOf('\n', m.frontmatter.range.end) + 1 || text.length : 0;
  if (m.sections.length > 0) {
    assert.equal(text.slice(bodyStart, m.sections[0]?.range.start).trim(), '');
    assert.equal(m.sections[m.sections.length - 1]?.range.end, text.length);
    for (let i = 1; i < m.sections.length; i++) assert.equal(m.sections[i - 1]?.range.end, m.sections[i]?.range.start);
  } else {
    assert.equal(text.slice(bodyStart).trim(), '');
  }
  m.sections.forEach((s, i) => assert.equal(s.index, i));
}

test('properties: every element of a generated note slices to its own text, in bounds, with matching lines', () => {
  fc.assert(
    fc.property(note, (text) => {
      checkInvariants(text, parseNote(text));
    }),
    { numRuns: 300 },
  );
});

test('properties: links planted in prose are found, links planted in code or math never are', () => {
  fc.assert(
    fc.property(note, (text) => {
      const m = parseNote(text);
      const found = new Set(m.links.map((l) => l.path.replace(/(?:%20x| x)?\.(?:md|png)$/, '')));
      for (const c of found) assert.ok(!/^C\d+$/.test(c), `code link ${c} reported`);
      const planted = new Set([...text.matchAll(/\[\[(P\d+)|\((P\d+)%20x\.md\)/g)].map((x) => x[1] ?? x[2]));
      for (const p of planted) assert.ok(found.has(p as string), `planted ${p} not found in ${JSON.stringify(text)}`);
    }),
    { numRuns: 300 },
  );
});

test('properties: a CRLF note and its LF twin have the same elements on the same lines', () => {
  fc.assert(
    fc.property(note, (text) => {
      const lf = text.replace(/\r\n/g, '\n');
      const a = parseNote(lf);
      const b = parseNote(lf.replace(/\n/g, '\r\n'));
      const strip = (m: NoteModel) => ({
        h: m.headings.map((h) => [h.text, h.level, h.startLine, h.endLine]),
        l: m.links.map((l) => [l.raw, l.kind, l.path, l.subpath, l.display, l.size, l.inComment, l.startLine]),
        t: m.tags.map((t) => [t.name, t.startLine]),
        s: m.sections.map((s) => [s.headingPath, s.startLine, s.endLine]),
        p: m.protected.map((p) => [p.kind, p.startLine, p.endLine]),
        c: m.callouts.map((c) => [c.type, c.title]),
        b: m.blockIds.map((x) => [x.id, x.startLine]),
      });
      assert.deepEqual(strip(b), strip(a));
    }),
    { numRuns: 200 },
  );
});

test('properties: parseNote never throws on arbitrary text, and the invariants hold', () => {
  const soup = fc
    .array(fc.oneof(fc.constantFrom('[[', ']]', '![[', '|', '\\|', '#', '%%', '$', '$$', '`', '```', '\n', '\r\n', '---\n', '> ', '- ', '| ', '^x', ' ', 'a', 'Я', '字', '(', ')', '<', '>'), fc.string({ maxLength: 3 })), { maxLength: 60 })
    .map((parts) => parts.join(''));
  fc.assert(
    fc.property(soup, (text) => {
      checkInvariants(text, parseNote(text));
    }),
    { numRuns: 500 },
  );
});
