/**
 * `resolve`, `links`, `backlinks`, `check` through the real compiled binary on
 * temporary vaults: output shape, bad input (typed error, exit 2), per-file
 * problems as warnings, and no write anywhere in the vault.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli, runCliProcess } from '../helpers/run-cli.js';
import { snapshotTree, tempVault } from '../helpers/temp-vault.js';

const NOTES = {
  'Home.md': '---\nup: "[[Projects/Alpha]]"\n---\n# Home\nSee [[Alpha#Goals]], [[Alpha#Nope]], [[Missing]] and [[Less]].\n%% [[Beta]] %%\n![[pic.png|200]]\n',
  'Projects/Alpha.md': '# Alpha\n## Goals\nShip. ^ship\n\nBack to [[Home]].\n',
  'Projects/Beta.md': 'Beta links [[Alpha#^SHIP]].\n',
  'css/Less.md': '',
  'vue/Less.md': '',
  'img/pic.png': '',
  'Lonely.md': 'nobody links here\n',
};

function vault(extra: Record<string, string | Buffer> = {}) {
  return tempVault({ ...NOTES, ...extra });
}

test('resolve prints the documented JSON shape', async () => {
  const { root, home } = vault();
  const r = await runCliProcess(['resolve', '[[Alpha#Goals|the goals]]', '--from', 'Home.md'], { vault: root, home });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(r.json, {
    ok: true,
    link: '[[Alpha#Goals|the goals]]',
    from: 'Home.md',
    kind: 'wikilink',
    status: 'resolved',
    target: 'Projects/Alpha.md',
    candidates: null,
    rule: 'unique',
    subpath: { kind: 'heading', value: 'Goals', exists: true, lines: [2, 5] },
    warnings: [],
  });
});

test('resolve reports an equal-length tie as ambiguous with every candidate', async () => {
  const { root, home } = vault();
  const r = await runCliProcess(['resolve', 'Less', '--from', 'Home.md'], { vault: root, home });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual([r.json.status, r.json.target, r.json.candidates], ['ambiguous', null, ['css/Less.md', 'vue/Less.md']]);
});

test('links lists every link of a note with line, kind, status and subpath', async () => {
  const { root, home } = vault();
  const r = await runCliProcess(['links', 'Home.md'], { vault: root, home });
  assert.equal(r.exitCode, 0, r.stderr);
  const rows = r.json.links.map((l: any) => [l.line, l.kind, l.raw, l.status, l.target, l.subpath?.exists ?? null, l.in_comment, l.property]);
  assert.deepEqual(rows, [
    [2, 'frontmatter', '[[Projects/Alpha]]', 'resolved', 'Projects/Alpha.md', null, false, 'up'],
    [5, 'wikilink', '[[Alpha#Goals]]', 'resolved', 'Projects/Alpha.md', true, false, null],
    [5, 'wikilink', '[[Alpha#Nope]]', 'resolved', 'Projects/Alpha.md', false, false, null],
    [5, 'wikilink', '[[Missing]]', 'unresolved', null, null, false, null],
    [5, 'wikilink', '[[Less]]', 'ambiguous', null, null, false, null],
    [6, 'wikilink', '[[Beta]]', 'resolved', 'Projects/Beta.md', null, true, null],
    [7, 'embed', '![[pic.png|200]]', 'resolved', 'img/pic.png', null, false, null],
  ]);
  assert.equal(r.json.total, 7);
});

test('backlinks finds links from every note, frontmatter and block links included', async () => {
  const { root, home } = vault();
  const r = await runCliProcess(['backlinks', 'Projects/Alpha.md'], { vault: root, home });
  assert.equal(r.exitCode, 0, r.stderr);
  const rows = r.json.backlinks.map((b: any) => [b.source, b.line, b.raw, b.subpath?.exists ?? null]);
  assert.deepEqual(rows, [
    ['Home.md', 2, '[[Projects/Alpha]]', null],
    ['Home.md', 5, '[[Alpha#Goals]]', true],
    ['Home.md', 5, '[[Alpha#Nope]]', false],
    ['Projects/Beta.md', 1, '[[Alpha#^SHIP]]', true],
  ]);
  const less = await runCliProcess(['backlinks', 'css/Less.md'], { vault: root, home });
  assert.deepEqual([less.json.total, less.json.ambiguous.map((b: any) => b.raw)], [0, ['[[Less]]']]);
  const pic = await runCliProcess(['backlinks', 'img/pic.png'], { vault: root, home });
  assert.deepEqual(pic.json.backlinks.map((b: any) => b.raw), ['![[pic.png|200]]']);
});

test('check counts and lists unresolved, ambiguous, broken anchors, orphans, bad YAML and collisions', async () => {
  const { root, home } = vault({ 'Broken.md': '---\nup: [[[x\n---\nbody [[Home]]\n', 'lonely.md': 'twin\n' });
  const r = await runCliProcess(['check'], { vault: root, home });
  assert.equal(r.exitCode, 0, r.stderr);
  const { counts, items } = r.json;
  assert.deepEqual(items.unresolved.map((u: any) => u.raw), ['[[Missing]]']);
  assert.deepEqual(items.ambiguous.map((u: any) => u.raw), ['[[Less]]']);
  assert.deepEqual(items.broken_anchors.map((u: any) => [u.source, u.raw]), [['Home.md', '[[Alpha#Nope]]']]);
  assert.deepEqual(items.orphans, ['Broken.md', 'Lonely.md', 'lonely.md']);
  assert.deepEqual(items.invalid_frontmatter.map((f: any) => f.path), ['Broken.md']);
  assert.deepEqual(items.collisions, [{ kind: 'case', paths: ['Lonely.md', 'lonely.md'] }]);
  assert.equal(counts.orphans, 3);
  assert.equal(counts.links, counts.resolved + counts.unresolved + counts.ambiguous + counts.unindexed + counts.external);
});

test('a link that is a whole footnote definition is a backlink; text CommonMark refuses as a link is no broken link (issue 13)', async () => {
  const { root, home } = vault({
    'Notes.md': 'A claim[^1].\n\n[^1]: [[Lonely]]\n\nCite [A](“B” ([C](zotero://x)) (…)).\n\n| a | b |\n|---|---|\n| [[Lonely#Top|alias]] | x |\n',
  });
  const b = await runCliProcess(['backlinks', 'Lonely.md'], { vault: root, home });
  assert.equal(b.exitCode, 0, b.stderr);
  assert.deepEqual(b.json.backlinks.map((l: any) => [l.source, l.line, l.raw]), [['Notes.md', 3, '[[Lonely]]'], ['Notes.md', 9, '[[Lonely#Top|alias]]']]);
  const c = await runCliProcess(['check'], { vault: root, home });
  assert.equal(c.exitCode, 0, c.stderr);
  assert.deepEqual(c.json.items.unresolved.map((u: any) => u.raw), ['[[Missing]]']);
  assert.ok(!c.json.items.orphans.includes('Lonely.md'), 'the footnote link makes Lonely.md linked');
  assert.deepEqual(c.json.items.broken_anchors.map((u: any) => u.raw), ['[[Alpha#Nope]]', '[[Lonely#Top|alias]]']);
});

test('check and backlinks report a non-UTF-8 note as a warning and go on', async () => {
  const { root, home } = vault({ 'Latin1.md': Buffer.from([0x63, 0x61, 0x66, 0xe9, 0x0a]) });
  const r = await runCliProcess(['check'], { vault: root, home });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(r.json.warnings.map((w: any) => [w.path, w.code]), [['Latin1.md', 'NOT_UTF8']]);
  const b = await runCliProcess(['backlinks', 'Home.md'], { vault: root, home });
  assert.equal(b.exitCode, 0);
  assert.deepEqual(b.json.warnings.map((w: any) => w.code), ['NOT_UTF8']);
});

test('read commands write nothing in the vault, not even .vaultgate/', async () => {
  const { root, home } = vault();
  const before = snapshotTree(root, { includeHidden: true });
  for (const args of [['resolve', 'Alpha', '--from', 'Home.md'], ['links', 'Home.md'], ['backlinks', 'Home.md'], ['check']]) {
    const r = await runCliProcess(args, { vault: root, home });
    assert.equal(r.exitCode, 0, r.stderr);
  }
  assert.deepEqual(snapshotTree(root, { includeHidden: true }), before);
});

test('bad input is a typed error with a message and a hint, exit 2', async () => {
  const { root, home } = vault({ 'Latin1.md': Buffer.from([0xe9]), 'folder/x.md': '' });
  const outside = path.join(path.dirname(root), 'Outside.md');
  fs.writeFileSync(outside, '[[Home]]');
  fs.symlinkSync(outside, path.join(root, 'Link.md'));
  const cases: [string[], string][] = [
    [['links', outside], 'PATH_OUTSIDE_VAULT'],
    [['links', '../Outside.md'], 'PATH_OUTSIDE_VAULT'],
    [['links', 'Link.md'], 'PATH_SYMLINK'],
    [['backlinks', 'Link.md'], 'PATH_SYMLINK'],
    [['links', 'folder'], 'NOT_A_FILE'],
    [['backlinks', 'folder'], 'NOT_A_FILE'],
    [['links', 'Latin1.md'], 'NOT_UTF8'],
    [['resolve', 'Home', '--from', 'Latin1.md'], 'NOT_UTF8'],
    [['links', 'Nope.md'], 'NOT_FOUND'],
    [['links', 'img/pic.png'], 'INVALID_INPUT'],
    [['resolve', 'Home', '--from', 'img/nope.png'], 'NOT_FOUND'],
    [['links', '.trash/x.md'], 'NOT_FOUND'],
    [['resolve', '', '--from', 'Home.md'], 'LINK_EMPTY'],
    [['resolve', '[[ ]]', '--from', 'Home.md'], 'LINK_EMPTY'],
    [['resolve', '[[Home', '--from', 'Home.md'], 'LINK_INVALID'],
    [['resolve', '[t](https://example.com)', '--from', 'Home.md'], 'LINK_INVALID'],
    [['resolve', 'Home', '--from', ''], 'USAGE'], // --from is optional (the vault root), but never empty
  ];
  for (const [args, code] of cases) {
    const r = await runCliProcess(args, { vault: root, home });
    assert.equal(r.exitCode, 2, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.equal(r.json.ok, false);
    assert.equal(r.json.error.code, code, args.join(' '));
    assert.ok(r.json.error.message.length > 0 && typeof r.json.error.hint === 'string', `${args.join(' ')} has a message and a hint`);
    assert.equal(r.stderr, '', 'no stack trace for a typed error');
  }
});

test('any vault file may be the source of resolve: only its folder matters', async () => {
  const { root, home } = vault({ 'img/Less.md': '' });
  const r = await runCli(['resolve', 'Less', '--from', 'img/pic.png'], { vault: root, home });
  assert.deepEqual([r.exitCode, r.json.target, r.json.rule], [0, 'img/Less.md', 'own-folder']);
});

test('resolve into a non-UTF-8 note: the path resolves, the heading is not checked, a warning says why', async () => {
  const { root, home } = vault({ 'Latin1.md': Buffer.from('# Caf\xe9\n', 'latin1') });
  const r = await runCli(['resolve', '[[Latin1#Café]]', '--from', 'Home.md'], { vault: root, home });
  assert.equal(r.exitCode, 0);
  assert.deepEqual([r.json.status, r.json.subpath.exists], ['resolved', null]);
  assert.deepEqual(r.json.warnings.map((w: any) => [w.path, w.code]), [['Latin1.md', 'NOT_UTF8']]);
});

test('on a terminal, resolve prints one readable line', async () => {
  const { root, home } = vault();
  const r = await runCli(['resolve', '[[Alpha#Goals]]', '--from', 'Home.md'], { vault: root, home, tty: true });
  assert.equal(r.exitCode, 0);
  assert.equal(r.stdout.trim(), 'resolved: Projects/Alpha.md #Goals (found)');
});
