import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VaultgateError } from '../../../src/errors.js';
import { withFreshIndex } from '../../../src/index/index.js';
import { searchIndex, type SearchOptions } from '../../../src/retrieval/index.js';
import { tempVault } from '../../helpers/temp-vault.js';

const VAULT = {
  'Ru/Ёлка.md': '# Новогодняя ёлка\nНаряжаем ёлку игрушками.\n## Заметки\nКак вести заметки о праздниках.\n',
  'Zh/搜索.md': '# 全文搜索\n我们今天学习全文搜索引擎和数据库索引。\n',
  'En/Deploy.md': '---\naliases: [Shipping guide]\ntags: [ops/release]\nstatus: done\n---\n# Deploy\nRun the deploy script on the server.\n## Rollback\nIf the deploy fails, roll back.\n',
  'En/Server setup.md': '---\ntags: [ops]\nstatus: draft\n---\n# Server setup\nInstall nginx. Then deploy notes, deploy again, deploy everything.\n## Deploy keys\nGenerate deploy keys for the deploy user.\n',
  'En/Cooking.md': '# Cooking\nPancakes need flour and eggs. The recipe is old.\n',
};

function search(q: string, opts: SearchOptions = {}) {
  const { root, home } = vault;
  return withFreshIndex(root, { VAULTGATE_HOME: home }, (h) => searchIndex(h.db, q, opts)).result;
}
const vault = tempVault(VAULT);

test('search: Russian finds other word forms and ё/е spellings', () => {
  assert.equal(search('елка').hits[0]?.path, 'Ru/Ёлка.md');
  assert.equal(search('ёлкой').hits[0]?.path, 'Ru/Ёлка.md');
  const hit = search('заметка').hits[0];
  assert.deepEqual([hit?.path, hit?.heading_path], ['Ru/Ёлка.md', ['Новогодняя ёлка', 'Заметки']]);
});

test('search: a two-character Chinese word finds its note', () => {
  assert.equal(search('搜索').hits[0]?.path, 'Zh/搜索.md');
  assert.equal(search('索引').hits[0]?.path, 'Zh/搜索.md');
});

test('search: an exact title or alias match ranks first even against denser text', () => {
  const byTitle = search('deploy');
  assert.equal(byTitle.hits[0]?.path, 'En/Deploy.md');
  assert.equal(byTitle.hits[0]?.match, 'title');
  const byAlias = search('shipping guide');
  assert.deepEqual([byAlias.hits[0]?.path, byAlias.hits[0]?.match], ['En/Deploy.md', 'alias']);
});

test('search: one section per note by default; --all-sections lifts that', () => {
  const best = search('deploy');
  assert.equal(new Set(best.hits.map((h) => h.path)).size, best.hits.length);
  assert.equal(best.total, 2);
  const all = search('deploy', { allSections: true });
  assert.ok(all.hits.length > best.hits.length);
  assert.equal(all.total, all.hits.length);
});

test('search: a plain question is an OR of its words, never an AND of all', () => {
  const r = search('what should I do when the deploy of pancakes fails?');
  assert.ok(r.hits.some((h) => h.path === 'En/Cooking.md'));
  assert.ok(r.hits.some((h) => h.path === 'En/Deploy.md'));
});

test('search: phrase, exclusion and prefix', () => {
  assert.deepEqual(search('"deploy keys"').hits.map((h) => h.path), ['En/Server setup.md']);
  assert.deepEqual(search('deploy -nginx').hits.map((h) => h.path), ['En/Deploy.md']);
  assert.deepEqual(search('pancak*').hits.map((h) => h.path), ['En/Cooking.md']);
});

test('search: --path, --tag (nested included) and --where filter notes', () => {
  assert.deepEqual(search('deploy', { pathPrefix: 'En/S' }).hits.map((h) => h.path), ['En/Server setup.md']);
  assert.deepEqual(search('deploy', { tag: 'ops/release' }).hits.map((h) => h.path), ['En/Deploy.md']);
  assert.deepEqual(new Set(search('deploy', { tag: '#ops' }).hits.map((h) => h.path)), new Set(['En/Deploy.md', 'En/Server setup.md']));
  assert.deepEqual(search('deploy', { where: [{ key: 'Status', value: 'Draft' }] }).hits.map((h) => h.path), ['En/Server setup.md']);
});

test('search: hits carry lines, anchor, a snippet from the original text, and the file hash', () => {
  const hit = search('failing').hits[0]!;
  assert.equal(hit.path, 'En/Deploy.md');
  assert.deepEqual(hit.lines, [8, 9]);
  assert.equal(hit.anchor, '#Deploy#Rollback');
  assert.match(hit.snippet, /deploy fails/);
  assert.match(hit.sha256, /^[0-9a-f]{64}$/);
});

test('search: nothing matching is total 0 with no hits', () => {
  assert.deepEqual([search('zyzzyva').total, search('zyzzyva').hits.length], [0, 0]);
  assert.deepEqual([search('?!').total, search('?!').hits.length], [0, 0]);
});

test('search: an empty or blank query is a usage error (exit 2), not "nothing found"', () => {
  for (const q of ['', '   ', '\t\n']) {
    assert.throws(() => search(q), (e: unknown) => e instanceof VaultgateError && e.code === 'USAGE' && e.exitCode === 2, JSON.stringify(q));
    assert.throws(() => search(q, { allSections: true }), (e: unknown) => e instanceof VaultgateError && e.code === 'USAGE');
  }
});

test('search: a note with a 2 MB single-line base64 image is indexed and searchable', () => {
  const b64 = Buffer.alloc(1_500_000, 3).toString('base64');
  const { root, home } = tempVault({ 'img.md': `# Photo\nA sunset photo.\n![x](data:image/png;base64,${b64})\n${b64}\n` });
  const r = withFreshIndex(root, { VAULTGATE_HOME: home }, (h) => searchIndex(h.db, 'sunset'));
  assert.equal(r.result.hits[0]?.path, 'img.md');
  assert.ok(r.result.hits[0]!.snippet.length <= 202);
});

/** Notes that match nothing in the tests below, so every test word is rare (BM25's idf is positive). */
function withFiller(files: Record<string, string>): Record<string, string> {
  const out = { ...files };
  for (let i = 0; i < 8; i++) out[`Filler ${i}.md`] = `# Filler ${i}\n${FILLER}\n`;
  return out;
}
const FILLER = 'Some unrelated words about the weather and the garden fill this paragraph out.';

test('search: a note holding more of the question\'s words outranks one that repeats a single word', () => {
  const { root, home } = tempVault(
    withFiller({
      // Short and dense in one word: its section has the highest BM25 of all.
      'Notes/Beta.md': '# Notes\nbeta beta.\n',
      // Three of the four words, one per (long) section.
      'Topic.md': `# One\nalpha. ${FILLER} ${FILLER}\n# Two\ngamma. ${FILLER} ${FILLER}\n# Three\ndelta. ${FILLER} ${FILLER}\n`,
    }),
  );
  const run = (opts: SearchOptions) => withFreshIndex(root, { VAULTGATE_HOME: home }, (h) => searchIndex(h.db, 'alpha beta gamma delta', opts)).result;
  assert.equal(run({ allSections: true }).hits[0]?.path, 'Notes/Beta.md', 'precondition: BM25 alone puts the one-word note first');
  assert.deepEqual(run({}).hits.map((h) => h.path), ['Topic.md', 'Notes/Beta.md']);
});

test('search: a heading with no text of its own is shown as its best-matching subsection', () => {
  const { root, home } = tempVault(
    withFiller({
      'Colors.md': `# Colors\nAbout color formats.\n## Conversion\n### Hex to rgb\nParse pairs of hex digits. ${Array(12).fill(FILLER).join(' ')}\n### Hsl to rgb\nConvert hue, saturation and lightness. ${Array(12).fill(FILLER).join(' ')}\n## Other\nNothing.\n`,
    }),
  );
  const run = (opts: SearchOptions) => withFreshIndex(root, { VAULTGATE_HOME: home }, (h) => searchIndex(h.db, 'conversion hue', opts)).result;
  // The bare "Conversion" heading would be the best section by BM25 (short, and its
  // heading matches), but a hit with nothing to read is never returned, in either mode:
  // its heading counts for the subsections under it.
  assert.deepEqual(run({}).hits[0]?.heading_path, ['Colors', 'Conversion', 'Hsl to rgb']);
  const all = run({ allSections: true }).hits.map((h) => h.heading_path.join(' > '));
  assert.equal(all[0], 'Colors > Conversion > Hsl to rgb');
  assert.ok(!all.includes('Colors > Conversion'), all.join(' | '));
  assert.ok(all.includes('Colors > Conversion > Hex to rgb'), 'a subsection is found by its parent heading alone');
});

test('search: a section is found by the words links into it use (anchor text), a note by its description', () => {
  const { root, home } = tempVault(
    withFiller({
      'Catan rules.md': '# Catan rules\n## Setup\nPlace the board.\n## The robber\nMove the pawn and steal one card.\n',
      'Journal.md': 'Tonight: [rolling a seven](Catan%20rules.md#The%20robber) again, and [[Catan rules#Setup|board assembly]].\n',
      'Bread.md': '---\ndescription: levain loaf notes\n---\n# Bread\nFlour, water, salt.\n',
    }),
  );
  const run = (q: string) => withFreshIndex(root, { VAULTGATE_HOME: home }, (h) => searchIndex(h.db, q)).result;
  // The rules never say "rolling" or "seven"; the journal's link does (the journal itself matches too).
  const seven = run('what happens when rolling a seven');
  assert.ok(seven.hits.some((h) => h.path === 'Catan rules.md' && h.heading_path.at(-1) === 'The robber'), JSON.stringify(seven.hits));
  assert.ok(run('assembly').hits.some((h) => h.path === 'Catan rules.md' && h.heading_path.at(-1) === 'Setup'));
  assert.equal(run('levain').hits[0]?.path, 'Bread.md');
  // A note's links into itself are not anchors: the journal's own text still finds the journal.
  assert.ok(run('tonight').hits.every((h) => h.path === 'Journal.md'));
});

test('search: frontmatter values lift their note, never make a bare heading a hit', () => {
  const { root, home } = tempVault(
    withFiller({ 'Sourdough.md': '---\naliases: [Leaven]\ntags: [bread]\n---\n# Sourdough\n\n## Starter\nFeed it daily.\n## Bake\nHot oven.\n' }),
  );
  const run = (q: string) => withFreshIndex(root, { VAULTGATE_HOME: home }, (h) => searchIndex(h.db, q)).result;
  for (const q of ['leaven', 'bread', 'sourdough']) {
    const hit = run(q).hits[0];
    assert.equal(hit?.path, 'Sourdough.md', q);
    assert.notDeepEqual(hit?.heading_path, ['Sourdough'], `${q}: the heading-only section is not a hit`);
  }
});
