#!/usr/bin/env node
// `npm run demo`: a guided run of the real CLI over a copy of examples/demo-vault.
// The copy (and VAULTGATE_HOME) live in a temp folder, so the repo stays untouched.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
// `npm run demo -- atomize`: the atomize pipeline on examples/atomize (scripts/demo-atomize.mjs)
if (process.argv[2] === 'atomize') {
  await import('./demo-atomize.mjs');
  process.exit(process.exitCode ?? 0);
}
const cli = path.join(repo, 'dist/cli/main.js');
const base = fs.mkdtempSync(path.join(os.tmpdir(), 'vaultgate-demo-'));
const vault = path.join(base, 'vault');
fs.cpSync(path.join(repo, 'examples/demo-vault'), vault, { recursive: true });
const env = { ...process.env, VAULTGATE_HOME: path.join(base, 'home') };
delete env.VAULTGATE_VAULT;

// The CLI's own terminal renderers (the operation table's `text`), so what the demo shows cannot drift from what people see.
const { OPERATIONS } = await import(path.join(repo, 'dist/ops/index.js'));
function render(args, json) {
  const op = OPERATIONS.find((o) => o.command === args.slice(0, o.command.split(' ').length).join(' '));
  return op?.text && json?.ok ? op.text(json, {}) : JSON.stringify(json, null, 2);
}

let failures = 0;
function vg(args, { input, show = (j) => render(args, j), expectExit = 0 } = {}) {
  console.log(`\n$ vaultgate ${args.map((a) => (/[\s'"|#[\]!*?]/.test(a) ? `'${a}'` : a)).join(' ')}`);
  const r = spawnSync(process.execPath, [cli, '--vault', vault, ...args], { env, input, encoding: 'utf8' });
  let json;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  if (r.status !== expectExit) {
    failures++;
    console.log(`  !! exit ${r.status} (expected ${expectExit})\n${r.stdout}${r.stderr}`);
    return json;
  }
  console.log(indent(json === undefined ? r.stdout : show(json)));
  return json;
}
const indent = (s) => String(s).trimEnd().split('\n').map((l) => '  ' + l).join('\n');
const title = (t) => console.log(`\n\n## ${t}`);

console.log(`vaultgate demo on a copy of examples/demo-vault at ${vault}`);

title('Vault health: broken links, ambiguous links, broken anchors, orphans, bad frontmatter');
vg(['check']);

title('Links resolve exactly as Obsidian resolves them');
vg(['resolve', '[[Rules]]', '--from', 'Games/Catan/Strategy.md']);
vg(['resolve', '[[Rules]]', '--from', 'Home.md']);
vg(['resolve', '[[Markdown links#Heading with bold and Home a link]]', '--from', 'Home.md']);
vg(['resolve', '[[Leaven]]', '--from', 'Home.md']);
vg(['resolve', '[[2019 goals]]', '--from', 'People/Anna.md']);

title('Every link of a note, and every link into a note');
vg(['links', 'Journal/2026-11-28.md']);
vg(['backlinks', 'Wiki/Cooking/Sourdough.md']);

title('Cited search over sections (SQLite FTS5, BM25): English, Russian (ё = е, stems), Chinese');
vg(['search', 'what happens to my cards when the robber comes', '--limit', '3']);
vg(['search', 'елка', '--limit', '3']);
vg(['search', '搜索', '--limit', '3']);
vg(['search', 'cake recipe chocolate frosting', '--limit', '3']);

title('A context packet an agent answers from (cited evidence, one hop of links, budget)');
vg(['context', 'How many cards do I discard on a 7 in Catan?', '--limit', '2', '--max-linked', '1', '--budget-chars', '1500']);

title('A write is a transaction: inspect the exact plan, apply it by its hash, undo it');
const sourdough = fs.readFileSync(path.join(vault, 'Wiki/Cooking/Sourdough.md'));
const crypto = await import('node:crypto');
const sha = (b) => crypto.createHash('sha256').update(b).digest('hex');
const bundle = {
  schema: 'vaultgate.transaction.v1',
  operation_id: 'demo-0001',
  operation_type: 'note',
  writes: [
    { path: 'Wiki/Cooking/Sourdough.md', mode: 'replace', content: sourdough.toString('utf8').replace('every 12 hours', 'every 24 hours') },
    { path: 'Wiki/Cooking/Rye bread.md', mode: 'create', content: '# Rye bread\n\nUses the [[Sourdough#Starter|starter]].\n' },
  ],
  expected_hashes: { 'Wiki/Cooking/Sourdough.md': sha(sourdough), 'Wiki/Cooking/Rye bread.md': null },
  read_preconditions: {},
};
const bundleFile = path.join(base, 'bundle.json');
fs.writeFileSync(bundleFile, JSON.stringify(bundle, null, 2));
const inspected = vg(['tx', 'inspect', bundleFile]);
if (inspected?.approval_sha256) {
  vg(['tx', 'apply', bundleFile, '--approval', inspected.approval_sha256]);
  vg(['tx', 'apply', bundleFile, '--approval', inspected.approval_sha256], { expectExit: 0, show: (j) => `replaying a finished operation (same approval) returns its stored result: ${JSON.stringify(j)}` });
  vg(['tx', 'apply', bundleFile, '--approval', 'f'.repeat(64)], { expectExit: 75, show: (j) => `…and only to the approval it was applied with: ${j.error.code}` });
  vg(['undo', 'demo-0001']);
  vg(['tx', 'status']);
}

title('Similar notes are candidates; a link between them is an exact, checked plan');
// Two notes called Decisions.md: the likely-duplicate scan finds them (same name, related content).
const dups = vg(['similar', '--duplicates']);
const pair = dups?.groups?.flatMap((g) => g.pairs).find((p) => p.same_name && p.a.endsWith('Decisions.md') && p.b.endsWith('Decisions.md'));
if (!pair) {
  failures++;
  console.log('  !! the two Decisions.md notes were not found as likely duplicates');
}
vg(['similar', 'Work/Decisions.md', '--to', 'Projects/vaultgate/Decisions.md']);
// An evidence catalog: exact fragments with ids; a model answers by citing ids only.
const catalog = vg(['relate', 'prepare', 'Work/Decisions.md', 'Projects/vaultgate/Decisions.md'], {
  show: (j) => [`catalog ${j.catalog_id}`, ...j.fragments.map((f) => `${f.id}  ${f.text.replace(/\n/g, ' ')}`)].join('\n'),
});
if (catalog?.catalog_id) {
  const id = (side, start) => catalog.fragments.find((f) => f.side === side && f.text.startsWith(start))?.id;
  const rec = {
    kind: 'link_a_to_b',
    claim: 'The team review policy (approval by exact hash) is the rule the vaultgate decision on agent writes applies.',
    evidence_a: [id('A', 'Approvals are by commit hash')],
    evidence_b: [id('B', 'Agents propose')],
    anchor: id('A', 'Approvals are by commit hash'),
  };
  const answerFile = path.join(base, 'answer.json');
  // A canned answer that quotes text instead of citing, and cites a B fragment as A evidence: refused, each reason listed.
  fs.writeFileSync(answerFile, JSON.stringify({ version: 'vaultgate.relation.v1', recommendations: [{ ...rec, evidence_a: rec.evidence_b, quote: 'Approvals are by hash' }] }));
  vg(['relate', 'validate', catalog.catalog_id, answerFile], { expectExit: 2, show: (j) => j.error.details.refusals.map((r) => `refused #${r.recommendation} ${r.code} at ${r.field}: ${r.message}`).join('\n') });
  fs.writeFileSync(answerFile, JSON.stringify({ version: 'vaultgate.relation.v1', recommendations: [rec] }));
  vg(['relate', 'validate', catalog.catalog_id, answerFile], {
    show: (j) => j.recommendations.map((r) => `accepted #${r.index} ${r.kind}: ${r.claim}\n  A: ${r.evidence_a.map((f) => f.text).join(' | ')}\n  B: ${r.evidence_b.map((f) => f.text).join(' | ')}`).join('\n'),
  });
  // The plan: one file, one place, a link that names exactly the vaultgate Decisions.md (the bare name would not).
  const plan = vg(['plan', catalog.catalog_id, '--recommendation', '0']);
  if (plan?.plan) {
    const r = vg(['resolve', plan.plan.link_text, '--from', plan.plan.source]);
    if (r?.target !== 'Projects/vaultgate/Decisions.md') {
      failures++;
      console.log(`  !! the planned link resolves to ${r?.target}`);
    }
  }
}
title('Agents propose, a person reviews the exact diff and applies it by its hash');
const note = vg(['note', 'Wiki/Cooking/Sourdough.md'], { show: (j) => `sha256 ${j.sha256} (the base an edit is proposed against)` });
const agent = { ...env, VAULTGATE_AGENT: 'demo-agent' };
const asAgent = (args, opts = {}) => {
  const saved = { ...env };
  Object.assign(env, agent);
  try {
    return vg(args, opts);
  } finally {
    for (const k of Object.keys(env)) delete env[k];
    Object.assign(env, saved);
  }
};
const p1 = asAgent(['propose', 'Wiki/Cooking/Sourdough.md', '--replace', 'every 12 hours', '--with', 'every 24 hours', '--base', note?.sha256 ?? 'none', '--title', 'Feed the starter less often']);
asAgent(['propose', 'Inbox/Bread plan.md', '--content', '# Bread plan\n\nFollow [[Rules]] and [[Sourdough#Proofing]]; ask [[Someone]].\n', '--base', 'none', '--title', 'Plan the week of bread']);
asAgent(['propose', 'Wiki/Cooking/Sourdough.md', '--append', '--content', 'x', '--base', '0'.repeat(64)], { expectExit: 75, show: (j) => `a stale base is refused, nothing stored: ${j.error.code}: ${j.error.message}` });
const reviewed = vg(['review', p1?.proposal?.id ?? 'p-1']);
if (reviewed?.review_hash) {
  vg(['apply', reviewed.proposal.id, '--review-hash', reviewed.review_hash]);
  vg(['decline', 'p-2', '--reason', 'link the Catan rules by path, and Proofing is not a heading of Sourdough']);
  const rb = vg(['rollback', reviewed.proposal.id]);
  if (rb?.review?.review_hash) vg(['apply', rb.proposal.id, '--review-hash', rb.review.review_hash]);
}
vg(['proposals']);
vg(['log', '--limit', '6']);

title('A scenario’s write rules and validator join the review');
fs.cpSync(path.join(repo, 'examples/scenarios'), path.join(base, 'home', 'config', 'scenarios'), { recursive: true });
asAgent(['propose', 'Books/Dune.md', '--content', '---\ntags: [books]\n---\n# Dune (a novel)\n\nSand.\n', '--base', 'none', '--scenario', 'books', '--title', 'A note on Dune']);

title('Area owners: an imported area is proposable, never appliable (exit 77)');
fs.mkdirSync(path.join(vault, '.vaultgate'), { recursive: true });
fs.writeFileSync(path.join(vault, '.vaultgate/config.yaml'), 'areas:\n  - glob: "Books/**"\n    owner: imported\n');
const book = fs.readFileSync(path.join(vault, 'Books/Reading list.md'));
const p4 = asAgent(['propose', 'Books/Reading list.md', '--append', '--content', '- Gödel, Escher, Bach\n', '--base', sha(book)]);
if (p4?.review?.review_hash) vg(['apply', p4.proposal.id, '--review-hash', p4.review.review_hash], { expectExit: 77, show: (j) => `${j.error.code}: ${j.error.message}` });

title('Bad input gets a typed error and touches nothing');
vg(['links', '../outside.md'], { expectExit: 2, show: (j) => JSON.stringify(j) });
vg(['resolve', '', '--from', 'Home.md'], { expectExit: 2, show: (j) => JSON.stringify(j) });

console.log(`\n${failures ? `${failures} step(s) did not behave as expected` : 'demo finished: every step behaved as expected'}`);
fs.rmSync(base, { recursive: true, force: true });
process.exit(failures ? 1 : 0);
