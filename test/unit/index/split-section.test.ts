import assert from 'node:assert/strict';
import { test } from 'node:test';
import { withFreshIndex } from '../../../src/index/index.js';
import { splitSection } from '../../../src/index/split-section.js';
import { searchIndex } from '../../../src/retrieval/index.js';
import { parseNote } from '../../../src/markdown/index.js';
import { tempVault } from '../../helpers/temp-vault.js';

const para = (n: number, word: string) => `${`${word} `.repeat(n).trim()}.\n`;

function parts(text: string, max: number) {
  const model = parseNote(text);
  const s = model.sections[0]!;
  return splitSection(text, s.range, model.protected, max).map((r) => text.slice(r.start, r.end));
}

test('splitSection: a short section is one part', () => {
  assert.deepEqual(parts('# A\nshort\n', 100), ['# A\nshort\n']);
});

test('splitSection: parts cover the section exactly and cut only after blank lines', () => {
  const text = `# Big\n${para(30, 'alpha')}\n${para(30, 'beta')}\n${para(30, 'gamma')}\n${para(30, 'delta')}`;
  const ps = parts(text, 400);
  assert.ok(ps.length >= 2);
  assert.equal(ps.join(''), text);
  for (const p of ps.slice(1)) assert.match(p, /^(alpha|beta|gamma|delta)/);
  for (const p of ps.slice(0, -1)) assert.match(p, /\n\n$/);
});

test('splitSection: a table or list is never cut, even when it alone exceeds the size', () => {
  const table = ['| a | b |', '|---|---|', ...Array.from({ length: 60 }, (_, i) => `| row ${i} | value ${i} |`)].join('\n') + '\n';
  const list = Array.from({ length: 40 }, (_, i) => `- item ${i}\n\n  continued ${i}`).join('\n') + '\n';
  const text = `# T\n${para(20, 'intro')}\n${table}\n${para(20, 'middle')}\n${list}\n${para(20, 'outro')}`;
  const ps = parts(text, 300);
  assert.equal(ps.join(''), text);
  assert.ok(ps.some((p) => p.includes(table)), 'the table is whole in one part');
  assert.ok(ps.some((p) => p.includes(list)), 'the list is whole in one part');
});

test('splitSection: a fenced code block with blank lines inside is not cut', () => {
  const code = '```js\n' + Array.from({ length: 50 }, (_, i) => `const x${i} = ${i};\n`).join('\n') + '```\n';
  const text = `# C\n${para(20, 'before')}\n${code}\n${para(20, 'after')}`;
  const ps = parts(text, 200);
  assert.ok(ps.some((p) => p.includes(code)));
});

test('search: parts of an oversized section are hits of their own, with part [k, n] and their own lines', () => {
  const body = Array.from({ length: 12 }, (_, i) => para(80, i === 9 ? 'needle' : `filler${i}`)).join('\n');
  const { root, home } = tempVault({ 'long.md': `# Long\n${body}`, 'short.md': '# Short\nneedle once\n' });
  const hit = withFreshIndex(root, { VAULTGATE_HOME: home }, (h) => searchIndex(h.db, 'needle', { pathPrefix: 'long' })).result.hits[0]!;
  assert.ok(hit.part && hit.part[0] > 1 && hit.part[1] > hit.part[0] - 1, JSON.stringify(hit.part));
  assert.ok(hit.lines[0] > 2);
  assert.match(hit.snippet, /needle/);
  assert.deepEqual(hit.heading_path, ['Long']);
});
