/**
 * `vaultgate atomize` end to end: a real temp vault, the CLI, and a fake
 * OpenAI-compatible chat server inside the test that answers each chunk with
 * scripted entities — one answer that breaks the schema, one invented sentence.
 * init → chunk → extract → registry → tidy → write → strip → check → promote →
 * review (`verbatim`) → apply; and the typed errors of bad input.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { BOOK, INVENTED, NARRATIVE_LINES, scriptedModel, userText } from '../helpers/atomize-book.js';
import { offMachineUrl, startFakeProvider, type FakeProvider } from '../helpers/fake-provider.js';
import { runCli } from '../helpers/run-cli.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';

const providers: FakeProvider[] = [];
after(async () => {
  for (const p of providers) await p.close();
});

async function setup(extraFiles: Record<string, string> = {}) {
  const fake = await startFakeProvider();
  providers.push(fake);
  fake.reply(scriptedModel());
  const v = tempVault({ 'Books/Ember Rules.md': BOOK, 'Lantern rules.md': '# Lantern rules\n', ...extraFiles });
  fs.mkdirSync(path.join(v.home, 'config'), { recursive: true });
  fs.writeFileSync(path.join(v.home, 'config', 'config.yaml'), JSON.stringify({ providers: { fake: { kind: 'openai', url: `${fake.url}/v1`, chat_model: 'scripted', attempts: 1 } } }));
  const work = path.join(tempDir(), 'work');
  const cli = (args: string[]) => runCli(args, { vault: v.root, home: v.home, cwd: v.root });
  return { ...v, fake, work, cli };
}

const ok = (r: { exitCode: number; stdout: string; stderr: string }) => assert.equal(r.exitCode, 0, r.stdout + r.stderr);

test('atomize: the whole pipeline — schema retry, narrative stripped, links resolve, novel sentence blocks review, promote → apply', async () => {
  const { cli, fake, work, root } = await setup();
  let r = await cli(['atomize', 'init', 'Books/Ember Rules.md', '--work', work, '--into', 'Rules', '--narrative', 'Example of play']);
  ok(r);
  assert.equal(r.json.source.vault_path, 'Books/Ember Rules.md');
  assert.deepEqual(r.json.chapters.map((c: any) => [c.heading, c.narrative]), [['Ember Rules', false], ['Basics', false], ['Combat', false], ['Example of play', true]]);
  assert.match(fs.readFileSync(path.join(work, 'chapters.tsv'), 'utf8'), /Example of play\t2\t\d+\t\d+\tyes/);

  r = await cli(['atomize', 'chunk', '--work', work, '--max-chars', '200']);
  ok(r);
  const chunks = fs.readFileSync(path.join(work, 'chunks.tsv'), 'utf8').trim().split('\n').slice(1).map((l) => l.split('\t'));
  // never inside the table or the list: each lies whole in one chunk
  const lines = BOOK.split('\n');
  const tableStart = lines.findIndex((l) => l.startsWith('| Item')) + 1;
  const listStart = lines.findIndex((l) => l.startsWith('- Parry')) + 1;
  for (const [from, to] of [[tableStart, tableStart + 2], [listStart, listStart + 1]] as const) {
    assert.ok(chunks.some((c) => Number(c[2]) <= from && Number(c[3]) >= to), `block ${from}-${to} is inside one chunk`);
  }
  assert.equal(r.json.chunks, chunks.length);

  r = await cli(['atomize', 'extract', '--work', work, '--provider', 'fake']);
  ok(r);
  assert.equal(r.json.failed, 0);
  assert.equal(r.json.done, chunks.length);
  assert.equal(fake.requests.length, chunks.length + 1, 'one retry for the answer that broke the schema');
  // the model never sees a wikilink: the link reads as its words
  for (const req of fake.requests) assert.ok(!userText(req).includes('[['), 'no wikilink in the prompt');
  assert.ok(fake.requests.some((q) => userText(q).includes('see the lantern.')));
  assert.equal(fake.requests[0]!.json.response_format.json_schema.name, 'vaultgate_atomize_extract_v1');
  const progress = fs.readdirSync(path.join(work, 'progress')).filter((f) => f.endsWith('.json'));
  assert.equal(progress.length, chunks.length, 'one progress file per chunk');
  const combat = progress.map((f) => JSON.parse(fs.readFileSync(path.join(work, 'progress', f), 'utf8'))).find((p) => p.entities?.some((e: any) => e.name === 'Strike'));
  assert.equal(combat.attempts, 2);

  const registry = fs.readFileSync(path.join(work, 'registry.tsv'), 'utf8');
  assert.match(registry, /^name\tkind\taliases\tchunks\tnote\n/);
  const rows = registry.trim().split('\n').slice(1).map((l) => l.split('\t'));
  assert.deepEqual(rows.map((x) => x[0]).sort(), ['Lantern', 'Mira', 'Parry', 'Strike', 'Warden']);
  assert.equal(rows.find((x) => x[0] === 'Warden')![2], 'Wardens', 'merged across chunks by name; the alias kept');

  // again: nothing left to ask
  const before = fake.requests.length;
  r = await cli(['atomize', 'extract', '--work', work, '--provider', 'fake']);
  ok(r);
  assert.equal(fake.requests.length, before);
  assert.equal(r.json.skipped, chunks.length);
  // --redo asks one finished chunk again, and only it
  r = await cli(['atomize', 'extract', '--work', work, '--provider', 'fake', '--redo', 'c0001']);
  ok(r);
  assert.equal(fake.requests.length, before + 1);
  assert.equal(r.json.asked, 1);
  r = await cli(['atomize', 'extract', '--work', work, '--provider', 'fake', '--redo', 'c9999']);
  assert.equal(r.json.error.code, 'USAGE');

  ok(await cli(['atomize', 'tidy', '--work', work]));
  r = await cli(['atomize', 'write', '--work', work]);
  ok(r);
  assert.equal(r.json.narrative_only, 1, 'Mira appears only in the example of play: no note');
  const notesDir = path.join(work, 'notes');
  assert.deepEqual(fs.readdirSync(notesDir).sort(), ['Lantern.md', 'Parry.md', 'Strike.md', 'Warden.md']);
  const warden = fs.readFileSync(path.join(notesDir, 'Warden.md'), 'utf8');
  assert.match(warden, /^---\nsource: Books\/Ember Rules\.md\nsource_sha256: [0-9a-f]{64}\nkind: role\naliases:\n {2}- Wardens\n---\n# Warden\n/);
  assert.ok(warden.includes(NARRATIVE_LINES[0]!), 'before strip the narrative line is there');
  assert.match(warden, /^Source: \[\[Ember Rules#Basics\|Basics\]\]/m);
  assert.ok(r.json.links_added >= 3);

  r = await cli(['atomize', 'strip', '--work', work]);
  ok(r);
  assert.ok(r.json.lines_removed >= 1);
  assert.equal(r.json.map, 'Ember Rules (narrative chapters).md');
  assert.match(fs.readFileSync(path.join(notesDir, r.json.map), 'utf8'), /^- \[\[Ember Rules#Example of play\|Example of play\]\]$/m);

  r = await cli(['atomize', 'check', '--work', work]);
  ok(r);
  assert.deepEqual(Object.keys(r.json).filter((k) => k !== 'ok'), ['notes', 'sentences', 'verbatim', 'novel']);
  assert.deepEqual(r.json.novel.map((n: any) => [n.note, n.text]), [['Parry.md', INVENTED]]);
  assert.equal(r.json.sentences, r.json.verbatim + 1);

  r = await cli(['atomize', 'status', '--work', work]);
  ok(r);
  const st = Object.fromEntries(r.json.steps.map((s: any) => [s.step, s.status]));
  assert.deepEqual(st, { init: 'done', chunk: 'done', extract: 'done', tidy: 'done', write: 'done', strip: 'done', check: 'failed', promote: 'pending' });

  // promote: the invented sentence blocks review, and the check lists it
  r = await cli(['atomize', 'promote', '--work', work, '--batch', '3']);
  ok(r);
  assert.equal(r.json.proposals.length, 2, '5 notes in batches of 3');
  const blocked = r.json.proposals.find((p: any) => p.blocking.includes('verbatim'));
  assert.ok(blocked, JSON.stringify(r.json));
  const review = await cli(['review', blocked.id]);
  const novel = review.json.checks.filter((c: any) => c.name === 'verbatim' && !c.ok);
  assert.deepEqual(novel.map((c: any) => [c.path, c.details.text, c.severity]), [['Rules/Parry.md', INVENTED, 'block']]);
  const clean = r.json.proposals.find((p: any) => p !== blocked);
  const cleanReview = await cli(['review', clean.id]);
  assert.ok(cleanReview.json.checks.some((c: any) => c.name === 'verbatim' && c.ok));
  const shown = await cli(['show', clean.id]);
  assert.equal(shown.json.proposal.provenance.kind, 'atomize');
  assert.equal(shown.json.proposal.provenance.source, 'Books/Ember Rules.md');
  const apply1 = await cli(['apply', clean.id, '--review-hash', cleanReview.json.review_hash]);
  ok(apply1);

  // the person declines the blocked one, promotes it again allowing the novel sentence: it warns
  ok(await cli(['decline', blocked.id, '--reason', 'invented sentence']));
  r = await cli(['atomize', 'promote', '--work', work, '--allow-novel']);
  ok(r);
  assert.equal(r.json.proposals.length, 1);
  const p2 = r.json.proposals[0];
  assert.deepEqual(p2.blocking, []);
  const review2 = await cli(['review', p2.id]);
  assert.ok(review2.json.checks.some((c: any) => c.name === 'verbatim' && !c.ok && c.severity === 'warn'));
  ok(await cli(['apply', p2.id, '--review-hash', review2.json.review_hash]));

  // in the vault: the notes; no narrative line in an entity note; every link resolves to the entity's note
  const rulesDir = path.join(root, 'Rules');
  assert.deepEqual(fs.readdirSync(rulesDir).sort(), ['Ember Rules (narrative chapters).md', 'Lantern.md', 'Parry.md', 'Strike.md', 'Warden.md']);
  for (const f of ['Lantern.md', 'Parry.md', 'Strike.md', 'Warden.md']) {
    const text = fs.readFileSync(path.join(rulesDir, f), 'utf8');
    for (const line of NARRATIVE_LINES) assert.ok(!text.includes(line), `${f} holds no narrative line: ${line}`);
  }
  const expected: Record<string, string[]> = { 'Warden.md': ['Rules/Lantern.md'], 'Parry.md': ['Rules/Warden.md', 'Rules/Strike.md'] };
  for (const [f, targets] of Object.entries(expected)) {
    const links = await cli(['links', `Rules/${f}`]);
    ok(links);
    const resolved = links.json.links.filter((l: any) => l.status === 'resolved').map((l: any) => l.target);
    for (const t of targets) assert.ok(resolved.includes(t), `${f} links ${t}: ${JSON.stringify(links.json.links)}`);
    assert.ok(links.json.links.every((l: any) => l.status === 'resolved'), JSON.stringify(links.json.links));
  }
});

test('atomize: a source changed since init stops every step with ATOMIZE_SOURCE_CHANGED (75) until init is re-run', async () => {
  const { cli, work, root } = await setup();
  ok(await cli(['atomize', 'init', 'Books/Ember Rules.md', '--work', work, '--into', 'Rules']));
  ok(await cli(['atomize', 'chunk', '--work', work]));
  fs.appendFileSync(path.join(root, 'Books/Ember Rules.md'), '\nA new rule.\n');
  for (const args of [['chunk'], ['extract', '--provider', 'fake'], ['tidy'], ['write'], ['strip'], ['check'], ['promote'], ['status']]) {
    const r = await cli(['atomize', ...args, '--work', work]);
    assert.equal(r.exitCode, 75, `${args[0]}: ${r.stdout}`);
    assert.equal(r.json.error.code, 'ATOMIZE_SOURCE_CHANGED');
    assert.match(r.json.error.hint, /atomize init/);
  }
  ok(await cli(['atomize', 'init', 'Books/Ember Rules.md', '--work', work]));
  const r = await cli(['atomize', 'status', '--work', work]);
  ok(r);
  assert.equal(r.json.steps.find((s: any) => s.step === 'chunk').status, 'pending', 'a new source must be cut again');
  assert.equal(r.json.into, 'Rules', 'the target folder is kept');
});

test('atomize: a missing work folder, a registry column nobody knows, a clash with a vault note, a provider that is down — typed errors, nothing half-written', async () => {
  const { cli, work, home, fake } = await setup({ 'Elsewhere/lantern.md': '# lantern\n' });
  let r = await cli(['atomize', 'status', '--work', path.join(work, 'nope')]);
  assert.equal(r.exitCode, 2);
  assert.equal(r.json.error.code, 'ATOMIZE_WORK_MISSING');

  ok(await cli(['atomize', 'init', 'Books/Ember Rules.md', '--work', work, '--into', 'Rules']));
  r = await cli(['atomize', 'extract', '--work', work, '--provider', 'fake']);
  assert.equal(r.json.error.code, 'ATOMIZE_NOT_READY');
  ok(await cli(['atomize', 'chunk', '--work', work]));

  // a provider that is down (a port nobody listens on): exit 69, no progress file
  const down = await startFakeProvider();
  await down.close();
  const cfgFile = path.join(home, 'config', 'config.yaml');
  const cfg = JSON.parse(fs.readFileSync(cfgFile, 'utf8'));
  cfg.providers.down = { kind: 'openai', url: `${down.url}/v1`, chat_model: 'm', attempts: 1, timeout_ms: 2000 };
  fs.writeFileSync(cfgFile, JSON.stringify(cfg));
  r = await cli(['atomize', 'extract', '--work', work, '--provider', 'down']);
  assert.equal(r.exitCode, 69, r.stdout);
  assert.equal(r.json.error.code, 'PROVIDER_UNAVAILABLE');
  assert.ok(!fs.existsSync(path.join(work, 'progress')) || fs.readdirSync(path.join(work, 'progress')).length === 0);
  assert.ok(!fs.existsSync(path.join(work, 'registry.tsv')));

  // a provider off this machine: nothing is sent without the person's consent (exit 77), as for relate send
  const sentBefore = fake.requests.length;
  cfg.providers.remote = { kind: 'openai', url: `${offMachineUrl(fake)}/v1`, chat_model: 'm', attempts: 1 };
  fs.writeFileSync(cfgFile, JSON.stringify(cfg));
  r = await cli(['atomize', 'extract', '--work', work, '--provider', 'remote']);
  assert.equal(r.exitCode, 77, r.stdout);
  assert.equal(r.json.error.code, 'CONSENT_REQUIRED');
  assert.equal(r.json.error.details.purpose, 'atomize');
  assert.equal(fake.requests.length, sentBefore, 'nothing sent');
  assert.ok(!fs.existsSync(path.join(work, 'registry.tsv')));

  ok(await cli(['atomize', 'extract', '--work', work, '--provider', 'fake']));
  // the registry's note Lantern.md has the file name of the vault's Elsewhere/lantern.md (case folded): tidy names the row
  r = await cli(['atomize', 'tidy', '--work', work]);
  assert.equal(r.exitCode, 2, r.stdout);
  assert.equal(r.json.error.code, 'ATOMIZE_REGISTRY_INVALID');
  const reg = path.join(work, 'registry.tsv');
  const text = fs.readFileSync(reg, 'utf8');
  const row = text.split('\n').findIndex((l) => l.startsWith('Lantern\t')) + 1;
  assert.deepEqual(r.json.error.details.problems.map((p: any) => [p.row, p.column]), [[row, 'note']]);
  assert.match(r.json.error.message, new RegExp(`row ${row}`));
  // write refuses the same way, and writes nothing
  r = await cli(['atomize', 'write', '--work', work]);
  assert.equal(r.json.error.code, 'ATOMIZE_REGISTRY_INVALID');
  assert.ok(!fs.existsSync(path.join(work, 'notes')));

  // the person renames the note, adds an alias twice, and a column nobody knows
  fs.writeFileSync(reg, text.replace('\tLantern.md', '\tLantern (item).md'));
  ok(await cli(['atomize', 'tidy', '--work', work]));
  fs.writeFileSync(reg, fs.readFileSync(reg, 'utf8').replace(/^Strike\trule\t/m, 'Strike\trule\tParry'));
  r = await cli(['atomize', 'tidy', '--work', work]);
  assert.equal(r.json.error.code, 'ATOMIZE_REGISTRY_INVALID');
  assert.match(r.json.error.message, /"Parry" is also a name or alias of row \d+/);
  fs.writeFileSync(reg, fs.readFileSync(reg, 'utf8').replace('name\tkind', 'name\tcolour\tkind'));
  r = await cli(['atomize', 'tidy', '--work', work]);
  assert.equal(r.exitCode, 2);
  assert.equal(r.json.error.code, 'ATOMIZE_REGISTRY_INVALID');
  assert.deepEqual(r.json.error.details.problems[0], { row: 1, column: 'colour', problem: 'unknown column "colour"; the columns are name, kind, aliases, chunks, note' });
});

test('atomize promote: links between batches do not block — each proposal applies after the others, in any order', async () => {
  const { cli, work, root } = await setup();
  for (const step of [['init', 'Books/Ember Rules.md', '--into', 'Rules', '--narrative', 'Example of play'], ['chunk'], ['extract', '--provider', 'fake'], ['write'], ['strip']]) ok(await cli(['atomize', ...step, '--work', work]));
  const r = await cli(['atomize', 'promote', '--work', work, '--batch', '1', '--allow-novel']);
  ok(r);
  assert.equal(r.json.proposals.length, 5);
  // Warden links Lantern, Parry links Warden and Strike: each target lands in another proposal
  for (const p of [...r.json.proposals].reverse()) {
    const review = await cli(['review', p.id]);
    const blocking = review.json.checks.filter((c: any) => !c.ok && c.severity === 'block');
    assert.deepEqual(blocking, [], `${p.id}: ${JSON.stringify(blocking)}`);
    ok(await cli(['apply', p.id, '--review-hash', review.json.review_hash]));
  }
  const links = await cli(['links', 'Rules/Warden.md']);
  assert.ok(links.json.links.some((l: any) => l.target === 'Rules/Lantern.md' && l.status === 'resolved'));
  assert.ok(fs.existsSync(path.join(root, 'Rules', 'Parry.md')));
});
