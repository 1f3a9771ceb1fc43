import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliProcess } from '../helpers/run-cli.js';
import { demoWithScenarios, writeScenario, yaml } from '../unit/policy/scenario-fixtures.js';

/**
 * Scenarios through the real CLI on a copy of the demo vault, with the example
 * scenarios (examples/scenarios) installed in the machine config (issue 8 §4).
 */

test('scenario list|show|check: the example scenarios are valid on the demo vault, and their validators run', async () => {
  const { root, home } = demoWithScenarios();
  const list = await runCliProcess(['scenario', 'list'], { vault: root, home });
  assert.equal(list.exitCode, 0, list.stdout + list.stderr);
  assert.deepEqual(
    list.json.scenarios.map((s: any) => [s.name, s.source, s.valid, s.validator]),
    [['books', 'machine', true, true], ['cooking', 'machine', true, false], ['journal', 'machine', true, true]],
  );
  const show = await runCliProcess(['scenario', 'show', 'books'], { vault: root, home });
  assert.equal(show.exitCode, 0);
  assert.deepEqual(show.json.areas, ['Books/**', 'Quotes/**']);
  assert.match(show.json.instruction, /Quotes\//);
  for (const name of ['books', 'journal', 'cooking']) {
    const check = await runCliProcess(['scenario', 'check', name], { vault: root, home });
    assert.equal(check.exitCode, 0, `${name}: ${check.stdout}${check.stderr}`);
    assert.equal(check.json.checks[0].ok, true, `${name}: the made-up sample follows the property rules`);
    if (name !== 'cooking') assert.equal(check.json.validator.outcome, 'answered');
  }
  // journal's validator refuses a made-up name, and accepts a real entry given as the sample
  const entry = path.join(path.dirname(root), 'entry.md');
  fs.writeFileSync(entry, '---\nmood: good\n---\n# 2026-12-02\n\nPlayed chess.\n');
  const journal = await runCliProcess(['scenario', 'check', 'journal', '--path', 'Journal/2026-12-02.md', '--content-file', entry], { vault: root, home });
  assert.equal(journal.exitCode, 0, journal.stdout);
  assert.deepEqual([journal.json.validator.ok, journal.json.validator.messages], [true, []]);
  fs.writeFileSync(entry, '# 2026-12-03\n');
  const wrong = await runCliProcess(['scenario', 'check', 'journal', '--path', 'Journal/2026-12-02.md', '--content-file', entry], { vault: root, home });
  assert.equal(wrong.exitCode, 0, 'a validator that says no is working');
  assert.deepEqual(wrong.json.validator.messages, ['Journal/2026-12-02.md: the entry must start with "# 2026-12-02"']);
});

test('scenario: an unknown key, a broken validator, an unknown or malformed name are typed errors (exit 2)', async () => {
  const { root, home } = demoWithScenarios();
  // the vault's own scenario shadows the machine one, and its typo is an error, not a weaker rule
  writeScenario({ vault: root }, 'books', {
    'scenario.yaml': yaml('books', 'areas: ["Books/**"]', 'write:', '  required_frontmatter: [tags]', '  frontmatter:', '    tags: {contain: [books]}'),
    'AGENT.md': 'x\n',
  });
  for (const argv of [['scenario', 'check', 'books'], ['scenario', 'show', 'books'], ['context', 'systems', '--scenario', 'books']]) {
    const r = await runCliProcess(argv, { vault: root, home });
    assert.equal(r.exitCode, 2, argv.join(' '));
    assert.equal(r.json.error.code, 'SCENARIO_INVALID');
    assert.match(r.json.error.message, /\.vaultgate\/scenarios\/books\/scenario\.yaml: unknown key "write\.frontmatter\.tags\.contain"/);
  }
  const listed = await runCliProcess(['scenario', 'list'], { vault: root, home });
  assert.deepEqual(listed.json.scenarios.filter((s: any) => s.name === 'books').map((s: any) => [s.source, s.active, s.valid]), [['vault', true, false], ['machine', false, true]]);

  writeScenario({ vault: root }, 'crashy', { 'scenario.yaml': yaml('crashy', 'areas: ["**"]'), 'AGENT.md': 'x\n', 'validate.mjs': "throw new Error('boom in validator');\n" });
  const crashy = await runCliProcess(['scenario', 'check', 'crashy'], { vault: root, home });
  assert.equal(crashy.exitCode, 2);
  assert.equal(crashy.json.error.code, 'SCENARIO_INVALID');
  assert.equal(crashy.json.error.details.outcome, 'crashed');
  assert.match(crashy.json.error.message, /boom in validator/);

  const missing = await runCliProcess(['context', 'x', '--scenario', 'nope'], { vault: root, home });
  assert.deepEqual([missing.exitCode, missing.json.error.code], [2, 'SCENARIO_NOT_FOUND']);
  const tricky = await runCliProcess(['scenario', 'show', '../../etc'], { vault: root, home });
  assert.deepEqual([tricky.exitCode, tricky.json.error.code], [2, 'INVALID_INPUT']);
});

test('context --scenario: only the scenario’s areas, its defaults unless a flag is given, AGENT.md first (JSON and Markdown)', async () => {
  const { root, home } = demoWithScenarios();
  const plain = await runCliProcess(['context', 'feedback loops and leverage'], { vault: root, home });
  assert.ok(plain.json.evidence.some((e: any) => !e.path.startsWith('Books/')), 'the unscoped packet reaches outside Books/');
  const r = await runCliProcess(['context', 'feedback loops and leverage', '--scenario', 'books'], { vault: root, home });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  assert.deepEqual(Object.keys(r.json).slice(0, 3), ['ok', 'schema', 'scenario']);
  assert.equal(r.json.scenario.name, 'books');
  assert.match(r.json.scenario.instruction, /^You are working on the user's reading notes/);
  assert.deepEqual(r.json.scenario.areas, ['Books/**', 'Quotes/**']);
  assert.ok(r.json.evidence.length > 0);
  assert.deepEqual(r.json.evidence.filter((e: any) => !e.path.startsWith('Books/')), []);
  assert.equal(r.json.budget.chars, 8000, "the scenario's budget_chars");
  const flag = await runCliProcess(['context', 'feedback loops and leverage', '--scenario', 'books', '--budget-chars', '300', '--max-linked', '0'], { vault: root, home });
  assert.equal(flag.json.budget.chars, 300, 'an explicit flag wins');
  assert.ok(!flag.json.evidence.some((e: any) => e.reason.startsWith('linked')));
  const md = await runCliProcess(['context', 'pancakes', '--scenario', 'cooking', '--format', 'markdown'], { vault: root, home });
  assert.equal(md.exitCode, 0);
  assert.ok(md.stdout.startsWith('# Context packet from vaultgate\n\n## Scenario: cooking\n\nYou are answering questions about the user'), md.stdout.slice(0, 200));
  assert.ok(md.stdout.indexOf('## Scenario: cooking') < md.stdout.indexOf('## Instructions'));
  assert.match(md.stdout, /Wiki\/Cooking\/Pancakes\.md/);
});
