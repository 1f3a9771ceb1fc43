/**
 * Issue #12 end to end, through the CLI on temporary vaults: link-preserving
 * moves and renames (notes, attachments, folders, headings) rewrite exactly the
 * links that must change and keep everything else about them; every review
 * lists which existing links would change target and blocks the unintended
 * ones (link stealing, a delete with backlinks); a snapshot of the vault's link
 * resolution compares with the vault later.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.js';
import { snapshotTree, tempVault } from '../helpers/temp-vault.js';

const sha = (s: string | Buffer) => crypto.createHash('sha256').update(s).digest('hex');
type V = { root: string; home: string };
const vg = (v: V, args: string[], cwd?: string) => runCli(args, { vault: v.root, home: v.home, ...(cwd ? { cwd } : {}) });
const read = (v: V, rel: string) => fs.readFileSync(path.join(v.root, rel), 'utf8');
const shaOf = (v: V, rel: string) => sha(fs.readFileSync(path.join(v.root, rel)));
const failing = (j: any) => (j.review ?? j).checks.filter((c: any) => !c.ok).map((c: any) => `${c.severity}:${c.name}`);

async function proposeOk(v: V, args: string[]) {
  const r = await vg(v, ['propose', ...args]);
  assert.equal(r.exitCode, 0, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
  return r.json;
}

async function applyOk(v: V, p: any) {
  assert.equal(p.proposal.state, 'pending', JSON.stringify(p.review.checks.filter((c: any) => !c.ok)));
  const a = await vg(v, ['apply', p.proposal.id, '--review-hash', p.review.review_hash]);
  assert.equal(a.exitCode, 0, a.stdout);
  return a.json;
}

test('link stealing: a new same-name note in a folder where bare links point elsewhere is caught, with the exact links', async () => {
  const v = tempVault({
    'Games/Catan/Rules.md': '# Rules\n\n## Setup\n\nx\n',
    'Projects/Plan.md': '# Plan\n\nRead [[Rules]] first, then [[Rules#Setup|the setup]].\n\n| what | link |\n|---|---|\n| rules | [[Rules\\|here]] |\n',
    'Projects/Other.md': 'Elsewhere: [[Games/Catan/Rules]] names its path and stays.\n',
    'Home.md': '[[Rules]] from the root: the shortest path wins, so it is stolen too.\n',
  });
  const p = await proposeOk(v, ['Projects/Rules.md', '--content', '# Our rules\n', '--base', 'none']);
  assert.equal(p.proposal.state, 'blocked');
  assert.deepEqual(failing(p), ['block:link_stability']);
  assert.deepEqual(p.review.files[0].links_broken.map((b: any) => b.reason), ['retargeted', 'retargeted', 'retargeted', 'retargeted'], 'not a missing heading: another note');
  const stolen = p.review.link_changes.filter((c: any) => !c.intended);
  assert.deepEqual(
    stolen.map((c: any) => [c.source, c.line, c.raw, c.before.target, c.after.target, c.reason]),
    [
      ['Home.md', 1, '[[Rules]]', 'Games/Catan/Rules.md', 'Projects/Rules.md', 'retargeted'],
      ['Projects/Plan.md', 3, '[[Rules]]', 'Games/Catan/Rules.md', 'Projects/Rules.md', 'retargeted'],
      ['Projects/Plan.md', 3, '[[Rules#Setup|the setup]]', 'Games/Catan/Rules.md', 'Projects/Rules.md', 'retargeted'],
      ['Projects/Plan.md', 7, '[[Rules\\|here]]', 'Games/Catan/Rules.md', 'Projects/Rules.md', 'retargeted'],
    ],
  );
  const check = p.review.checks.find((c: any) => c.name === 'link_stability');
  assert.match(check.message, /^4 existing links would change their target: Home\.md:1 \[\[Rules\]\] \(Games\/Catan\/Rules\.md → Projects\/Rules\.md\); Projects\/Plan\.md:3 \[\[Rules\]\]/);
  assert.match(check.message, /--allow-relink/);
  // said so: a warning, and the proposal may be applied
  const ok = await proposeOk(v, ['Projects/Rules.md', '--content', '# Our rules\n', '--base', 'none', '--allow-relink']);
  assert.deepEqual([ok.proposal.state, failing(ok)], ['pending', ['warn:link_stability']]);
  // a plain edit that touches no name reviews clean, with nothing listed
  const edit = await proposeOk(v, ['Projects/Other.md', '--append', '--content', 'more\n', '--base', shaOf(v, 'Projects/Other.md')]);
  assert.deepEqual([failing(edit), edit.review.link_changes], [[], []]);
});

test('a delete of a linked note lists its backlinks and blocks unless --allow-broken-links; a delete that sends links elsewhere is a relink', async () => {
  const v = tempVault({ 'A/Note.md': '# A\n', 'B/Longer/Note.md': '# B\n', 'Src.md': '[[A/Note]] and [[Note]] and %%[[A/Note]]%%\n' });
  const d = await proposeOk(v, ['--delete', 'A/Note.md', '--base', sha('# A\n')]);
  assert.deepEqual(failing(d), ['block:link_stability', 'block:link_stability', 'warn:link_stability']);
  assert.deepEqual(
    d.review.link_changes.map((c: any) => [c.raw, c.in_comment, c.after.status, c.after.target, c.reason, c.intended]),
    [
      ['[[A/Note]]', false, 'unresolved', null, 'target_deleted', false],
      ['[[Note]]', false, 'resolved', 'B/Longer/Note.md', 'retargeted', false],
      ['[[A/Note]]', true, 'unresolved', null, 'target_deleted', true],
    ],
  );
  const both = await proposeOk(v, ['--delete', 'A/Note.md', '--base', sha('# A\n'), '--allow-broken-links', '--allow-relink']);
  assert.deepEqual([both.proposal.state, failing(both)], ['pending', ['warn:link_stability', 'warn:link_stability', 'warn:link_stability']]);
});

const FORMS = `---
up: "[[Guide]]"
related:
  - "[[Guide#Setup|setup]]"
---
# Links

Bare [[Guide]], with a path [[Docs/Guide]], with .md [[Guide.md]], aliased [[Guide|the guide]], padded [[ Guide ]].
Heading [[Guide#Setup]], nested [[Guide#Setup#Step one]], block [[Guide#^b1]], embed ![[Guide]] and ![[Guide#Setup]].
Markdown [the guide](Docs/Guide.md), encoded [g](Docs/Guide.md#Step%20one), angle [g](<Docs/Guide.md>), no ext [g](Docs/Guide).

> [!note] In a callout
> see [[Guide]] here

| what | where |
| --- | --- |
| guide | [[Guide\\|the guide]] |

Not links: \`[[Guide]]\` and

\`\`\`
[[Guide]]
\`\`\`

%% a comment: [[Guide]] %%
`;

test('move: every link to the note follows it, each keeping its display, subpath, size, style and escapes; code is untouched, comments are not rewritten', async () => {
  const guide = '# Guide\n\n## Setup\n\n### Step one\n\nDo it. ^b1\n';
  const v = tempVault({ 'Docs/Guide.md': guide, 'Links.md': FORMS, 'Other/Unrelated.md': 'No links here.\n' });
  const before = snapshotTree(v.root);
  const p = await proposeOk(v, ['--move', 'Docs/Guide.md', 'Manuals/User Guide.md', '--base', sha(guide)]);
  assert.deepEqual(p.proposal.files.map((f: any) => [f.path, f.action, f.to ?? null]), [['Docs/Guide.md', 'move', 'Manuals/User Guide.md'], ['Links.md', 'write', null]]);
  // the comment still names the old note: listed, a warning, never a block
  assert.deepEqual(failing(p), ['warn:link_stability']);
  assert.deepEqual(
    p.review.link_changes.filter((c: any) => c.in_comment).map((c: any) => [c.line, c.raw, c.after.status]),
    [[25, '[[Guide]]', 'unresolved']],
  );
  const rewritten = p.review.files[1].links_rewritten.map((r: any) => [r.before, r.after]);
  assert.deepEqual(rewritten, [
    ['[[Guide]]', '[[User Guide]]'],
    ['[[Guide#Setup|setup]]', '[[User Guide#Setup|setup]]'],
    ['[[Guide]]', '[[User Guide]]'],
    ['[[Docs/Guide]]', '[[User Guide]]'],
    ['[[Guide.md]]', '[[User Guide.md]]'],
    ['[[Guide|the guide]]', '[[User Guide|the guide]]'],
    ['[[ Guide ]]', '[[ User Guide ]]'],
    ['[[Guide#Setup]]', '[[User Guide#Setup]]'],
    ['[[Guide#Setup#Step one]]', '[[User Guide#Setup#Step one]]'],
    ['[[Guide#^b1]]', '[[User Guide#^b1]]'],
    ['![[Guide]]', '![[User Guide]]'],
    ['![[Guide#Setup]]', '![[User Guide#Setup]]'],
    ['[the guide](Docs/Guide.md)', '[the guide](User%20Guide.md)'],
    ['[g](Docs/Guide.md#Step%20one)', '[g](User%20Guide.md#Step%20one)'],
    ['[g](<Docs/Guide.md>)', '[g](<User Guide.md>)'],
    ['[g](Docs/Guide)', '[g](User%20Guide)'],
    ['[[Guide]]', '[[User Guide]]'],
    ['[[Guide\\|the guide]]', '[[User Guide\\|the guide]]'],
  ]);
  assert.ok(p.review.link_changes.filter((c: any) => !c.in_comment).every((c: any) => c.intended && c.reason === 'rewritten'));
  await applyOk(v, p);
  const after = read(v, 'Links.md');
  assert.ok(after.includes('Not links: `[[Guide]]` and\n\n```\n[[Guide]]\n```\n\n%% a comment: [[Guide]] %%\n'), 'code and comments as they were');
  assert.equal(read(v, 'Manuals/User Guide.md'), guide);
  assert.equal(fs.existsSync(path.join(v.root, 'Docs/Guide.md')), false);
  const now = snapshotTree(v.root);
  for (const f of Object.keys(before)) if (f !== 'Links.md' && f !== 'Docs/Guide.md') assert.equal(now[f], before[f], `${f} untouched`);
  const links = (await vg(v, ['links', 'Links.md'])).json.links;
  assert.deepEqual(
    [...new Set(links.filter((l: any) => !l.in_comment).map((l: any) => `${l.status} ${l.target}`))],
    ['resolved Manuals/User Guide.md'],
    'every link but the comment opens the moved note',
  );
});

test('move: a bare link gains a path only when it must; the moved note’s own relative and own-folder links keep their targets', async () => {
  const v = tempVault({
    'A/Plan.md': '# Plan\n\n[[Sibling]] [[./Sibling]] [rel](../B/Far.md) [[Plan#Top]] [[#Top]] [[Far]]\n\n## Top\n',
    'A/Sibling.md': '# Sibling (A)\n',
    'C/Sibling.md': '# Sibling (C)\n',
    'B/Far.md': '# Far\n',
    'B/Plan.md': '# Another plan\n',
    'Home.md': '[[A/Plan]] [[Far]]\n',
  });
  const base = shaOf(v, 'A/Plan.md');
  const p = await proposeOk(v, ['--move', 'A/Plan.md', 'C/D/Plan.md', '--base', base]);
  assert.deepEqual(failing(p), []);
  assert.deepEqual(
    p.review.files.flatMap((f: any) => f.links_rewritten.map((r: any) => [f.to ?? f.path, r.before, r.after])),
    [
      ['C/D/Plan.md', '[[Sibling]]', '[[A/Sibling]]'],
      ['C/D/Plan.md', '[[./Sibling]]', '[[A/Sibling]]'],
      ['C/D/Plan.md', '[rel](../B/Far.md)', '[rel](Far.md)'],
      ['Home.md', '[[A/Plan]]', '[[D/Plan]]'],
    ],
    'own-folder [[Sibling]] would be a tie of A/ and C/; [[Plan#Top]] names C/D/Plan (own folder) and [[Far]] is unique: both stay',
  );
  await applyOk(v, p);
  assert.equal(read(v, 'C/D/Plan.md'), '# Plan\n\n[[A/Sibling]] [[A/Sibling]] [rel](Far.md) [[Plan#Top]] [[#Top]] [[Far]]\n\n## Top\n');
  assert.equal(read(v, 'Home.md'), '[[D/Plan]] [[Far]]\n');
});

test('relative newLinkFormat: new link text is written relative to the linking note', async () => {
  const v = tempVault({ '.obsidian/app.json': '{"newLinkFormat":"relative"}', 'Docs/Guide.md': '# G\n', 'Notes/Day.md': 'See [[Guide]] and [g](Docs/Guide.md).\n' });
  const p = await proposeOk(v, ['--rename', 'Docs/Guide.md', 'Handbook', '--base', sha('# G\n')]);
  assert.deepEqual(p.proposal.files.map((f: any) => f.to ?? f.path), ['Docs/Handbook.md', 'Notes/Day.md']);
  await applyOk(v, p);
  assert.equal(read(v, 'Notes/Day.md'), 'See [[../Docs/Handbook]] and [g](../Docs/Handbook.md).\n');
});

test('attachments and whole folders move with their links, in one transaction; a folder takes no --base', async () => {
  const v = tempVault({
    'Trip/Plan.md': '# Plan\n\n![[map 1.png|300]] ![map](map%201.png) [[Notes]] [[Trip/Notes#Day 1]]\n',
    'Trip/Notes.md': '# Notes\n\n## Day 1\n\n![[map 1.png]]\n',
    'Trip/map 1.png': Buffer.from([0x89, 0x50, 0x4e, 0x47]),
    'Index.md': '[[Trip/Plan]], [[Notes]], ![[map 1.png]]\n',
    'Elsewhere/Notes.md': '# Other notes, a longer path\n',
  });
  const img = await proposeOk(v, ['--rename', 'Trip/map 1.png', 'route', '--base', sha(Buffer.from([0x89, 0x50, 0x4e, 0x47]))]);
  assert.deepEqual(img.proposal.files.map((f: any) => f.to ?? f.path), ['Trip/route.png', 'Index.md', 'Trip/Notes.md', 'Trip/Plan.md']);
  await applyOk(v, img);
  assert.equal(read(v, 'Trip/Plan.md'), '# Plan\n\n![[route.png|300]] ![map](route.png) [[Notes]] [[Trip/Notes#Day 1]]\n');
  assert.equal(read(v, 'Index.md'), '[[Trip/Plan]], [[Notes]], ![[route.png]]\n');

  const refused = await vg(v, ['propose', '--move', 'Trip/', 'Journeys/2026/', '--base', shaOf(v, 'Index.md')]);
  assert.deepEqual([refused.exitCode, refused.json.error.code], [2, 'USAGE'], 'a folder has no sha256');
  const inside = await vg(v, ['propose', '--move', 'Trip/', 'Trip/Sub/']);
  assert.deepEqual([inside.exitCode, inside.json.error.code], [2, 'USAGE']);
  const f = await proposeOk(v, ['--move', 'Trip/', 'Journeys/2026/']);
  assert.deepEqual(
    f.proposal.files.map((x: any) => [x.path, x.action, x.to ?? null]),
    [
      ['Trip/Notes.md', 'move', 'Journeys/2026/Notes.md'],
      ['Trip/Plan.md', 'move', 'Journeys/2026/Plan.md'],
      ['Trip/route.png', 'move', 'Journeys/2026/route.png'],
      ['Index.md', 'write', null],
    ],
  );
  const a = await applyOk(v, f);
  assert.equal(a.changed_paths.length, 7, 'one transaction: every file');
  assert.equal(read(v, 'Index.md'), '[[Plan]], [[2026/Notes]], ![[route.png]]\n', '[[Notes]] opened Trip/Notes as the shortest path; Elsewhere/Notes is shorter than Journeys/2026/Notes');
  assert.equal(read(v, 'Journeys/2026/Plan.md'), '# Plan\n\n![[route.png|300]] ![map](route.png) [[Notes]] [[Notes#Day 1]]\n', 'the bare name opens the note in its own folder');
  const links = (await vg(v, ['links', 'Journeys/2026/Plan.md'])).json.links.map((l: any) => l.target);
  assert.deepEqual(links, ['Journeys/2026/route.png', 'Journeys/2026/route.png', 'Journeys/2026/Notes.md', 'Journeys/2026/Notes.md']);
  // and back, by rename of the folder
  const back = await proposeOk(v, ['--rename', 'Journeys/2026', 'Trip 2026']);
  await applyOk(v, back);
  assert.equal(read(v, 'Index.md'), '[[Plan]], [[Trip 2026/Notes]], ![[route.png]]\n');
});

test('a link holder edited after the proposal blocks the whole move (all files land or none)', async () => {
  const v = tempVault({ 'N.md': '# N\n', 'A.md': '[[N]]\n', 'B.md': '[[N]] too\n' });
  const p = await proposeOk(v, ['--rename', 'N.md', 'M', '--base', sha('# N\n')]);
  fs.appendFileSync(path.join(v.root, 'B.md'), 'edited by hand\n');
  const r = await vg(v, ['apply', p.proposal.id, '--review-hash', p.review.review_hash]);
  assert.deepEqual([r.exitCode, r.json.error.code], [75, 'STALE_HASH']);
  assert.deepEqual([read(v, 'A.md'), fs.existsSync(path.join(v.root, 'N.md')), fs.existsSync(path.join(v.root, 'M.md'))], ['[[N]]\n', true, false]);
});

test('rename-heading: the heading and every link through it, here and elsewhere, nested and Markdown; a clash with another heading is refused', async () => {
  const note = '# Guide\n\n## Setup steps\n\n### Step one\n\nSee [[#Setup steps]].\n\n## Later\n';
  const v = tempVault({
    'Guide.md': note,
    'Uses.md': '[[Guide#Setup steps|setup]] [[Guide#Setup steps#Step one]] [s](Guide.md#Setup%20steps) [[Guide#Later]] [[Guide]]\n',
  });
  const p = await proposeOk(v, ['--rename-heading', 'Guide.md', 'Setup steps', 'Installation', '--base', sha(note)]);
  assert.deepEqual(failing(p), []);
  assert.deepEqual(p.review.files.map((f: any) => f.links_rewritten.length), [1, 3]);
  await applyOk(v, p);
  assert.equal(read(v, 'Guide.md'), '# Guide\n\n## Installation\n\n### Step one\n\nSee [[#Installation]].\n\n## Later\n');
  assert.equal(read(v, 'Uses.md'), '[[Guide#Installation|setup]] [[Guide#Installation#Step one]] [s](Guide.md#Installation) [[Guide#Later]] [[Guide]]\n');
  const clash = await vg(v, ['propose', '--rename-heading', 'Guide.md', 'Installation', 'later', '--base', shaOf(v, 'Guide.md')]);
  assert.deepEqual([clash.exitCode, clash.json.error.code], [2, 'EDIT_AMBIGUOUS']);
  const missing = await vg(v, ['propose', '--rename-heading', 'Guide.md', 'Nope', 'X', '--base', shaOf(v, 'Guide.md')]);
  assert.deepEqual([missing.exitCode, missing.json.error.code], [2, 'HEADING_NOT_FOUND']);
});

test('links --snapshot and check --links-baseline: every link whose target changed since, after edits made outside vaultgate', async () => {
  const v = tempVault({ 'Games/Catan/Rules.md': '# R\n', 'Games/Plan.md': '[[Rules]] [[Old]] [[Rules]]\n', 'Old.md': '# Old\n', 'Gone.md': '[[Old]]\n' });
  const dir = path.dirname(v.root);
  const s = await vg(v, ['links', '--snapshot', 'snap.json'], dir);
  assert.equal(s.exitCode, 0, s.stdout);
  assert.deepEqual([s.json.snapshot.file, s.json.snapshot.notes, s.json.snapshot.links], [path.join(dir, 'snap.json'), 4, 4]);
  const printed = await vg(v, ['links', '--snapshot']);
  assert.equal(JSON.parse(printed.stdout).schema, 'vaultgate.link-snapshot.v1', '--snapshot alone prints the snapshot itself');
  // a sync made outside vaultgate: a same-name note steals, a note is renamed, another deleted
  fs.writeFileSync(path.join(v.root, 'Games/Rules.md'), '# stolen\n');
  fs.renameSync(path.join(v.root, 'Old.md'), path.join(v.root, 'Older.md'));
  fs.rmSync(path.join(v.root, 'Gone.md'));
  const c = await vg(v, ['check', '--links-baseline', 'snap.json'], dir);
  assert.equal(c.exitCode, 0, c.stdout);
  const b = c.json.links_baseline;
  assert.deepEqual(
    b.changed.map((x: any) => [x.source, x.raw, x.before.target, x.after.target ?? x.after.status]),
    [
      ['Games/Plan.md', '[[Rules]]', 'Games/Catan/Rules.md', 'Games/Rules.md'],
      ['Games/Plan.md', '[[Old]]', 'Old.md', 'unresolved'],
      ['Games/Plan.md', '[[Rules]]', 'Games/Catan/Rules.md', 'Games/Rules.md'],
    ],
  );
  assert.deepEqual([b.compared, b.notes_gone, b.links_gone, b.links_new], [3, [{ path: 'Gone.md', links: 1 }], 0, 0]);
  // refusals: inside the vault, not a snapshot
  const inside = await vg(v, ['links', '--snapshot', path.join(v.root, 'x.json')]);
  assert.deepEqual([inside.exitCode, inside.json.error.code], [2, 'INVALID_INPUT']);
  assert.equal(fs.existsSync(path.join(v.root, 'x.json')), false);
  fs.writeFileSync(path.join(dir, 'bad.json'), '{"schema":"other"}');
  const bad = await vg(v, ['check', '--links-baseline', 'bad.json'], dir);
  assert.deepEqual([bad.exitCode, bad.json.error.code], [2, 'INVALID_INPUT']);
  const both = await vg(v, ['links', 'Games/Plan.md', '--snapshot', 'x.json'], dir);
  assert.deepEqual([both.exitCode, both.json.error.code], [2, 'USAGE']);
});

test('a note in an area proposals may not write is not rewritten: its links are listed, and --allow-relink accepts them', async () => {
  const v = tempVault({
    '.vaultgate/config.yaml': 'areas:\n  - glob: "Imported/**"\n    owner: imported\n',
    'N.md': '# N\n',
    'Imported/Feed.md': 'From the feed: [[N]]\n',
    'Mine.md': 'Mine: [[N]]\n',
  });
  const p = await proposeOk(v, ['--rename', 'N.md', 'M', '--base', sha('# N\n')]);
  assert.deepEqual(p.proposal.files.map((f: any) => f.to ?? f.path), ['M.md', 'Mine.md'], 'the imported note is left alone');
  assert.deepEqual(failing(p), ['block:link_stability']);
  assert.deepEqual(
    p.review.link_changes.filter((c: any) => !c.intended).map((c: any) => [c.source, c.raw, c.before.target, c.after.status]),
    [['Imported/Feed.md', '[[N]]', 'N.md', 'unresolved']],
  );
  const ok = await proposeOk(v, ['--rename', 'N.md', 'M', '--base', sha('# N\n'), '--allow-relink']);
  await applyOk(v, ok);
  assert.deepEqual([read(v, 'Mine.md'), read(v, 'Imported/Feed.md')], ['Mine: [[M]]\n', 'From the feed: [[N]]\n']);
});
