import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildContext, renderContextMarkdown, type ScenarioSlot } from '../../../src/context/index.js';
import { tempVault } from '../../helpers/temp-vault.js';

function vault() {
  return tempVault({
    'Books/Systems.md': '# Systems\n## Feedback\nFeedback loops balance a stock. See [[Garden]] and [[Books/Deep/Flows]].\n',
    'Books/Deep/Flows.md': '# Flows\nFlows change a stock over time; feedback again.\n',
    'Garden.md': '# Garden\nFeedback from the soil: compost loops.\n',
    'Journal/2026-01-01.md': '# 2026-01-01\nThought about feedback loops all day.\n',
  });
}

const BOOKS: ScenarioSlot = { name: 'books', description: 'Books', instruction: 'Cite the book.\n## Not a packet heading\n', areas: ['Books/**'] };

test('context --scenario: evidence comes only from the scenario’s areas, linked sections included', () => {
  const { root, home } = vault();
  const env = { VAULTGATE_HOME: home };
  const all = buildContext(root, env, { question: 'feedback loops', budgetChars: 100_000, maxLinked: 10 });
  assert.ok(all.evidence.some((e) => !e.path.startsWith('Books/')), 'without a scenario, other notes match');
  const p = buildContext(root, env, { question: 'feedback loops', budgetChars: 100_000, maxLinked: 10, scenario: BOOKS });
  assert.ok(p.evidence.length >= 2);
  assert.deepEqual(p.evidence.filter((e) => !e.path.startsWith('Books/')).map((e) => e.path), [], 'a link out of the areas is not followed');
  assert.ok(p.evidence.some((e) => e.path === 'Books/Deep/Flows.md'), '** reaches subfolders');
  assert.equal(p.total, p.evidence.length + p.truncated.length);
  const none = buildContext(root, env, { question: 'feedback loops', scenario: { ...BOOKS, areas: ['Recipes/**'] } });
  assert.equal(none.total, 0, 'areas with no notes: nothing in scope, total 0');
  const journal = buildContext(root, env, { question: 'feedback loops', scenario: { ...BOOKS, areas: ['Journal/*.md'] } });
  assert.deepEqual(journal.evidence.map((e) => e.path), ['Journal/2026-01-01.md']);
});

test('context --scenario: the scenario (its AGENT.md) comes first, in the JSON and in the Markdown', () => {
  const { root, home } = vault();
  const p = buildContext(root, { VAULTGATE_HOME: home }, { question: 'feedback', scenario: BOOKS });
  assert.deepEqual(Object.keys(p).slice(0, 3), ['schema', 'scenario', 'question']);
  assert.deepEqual(p.scenario, BOOKS);
  const md = renderContextMarkdown(p);
  const at = (s: string) => md.indexOf(s);
  assert.ok(at('## Scenario: books') > 0 && at('## Scenario: books') < at('## Instructions'), md.slice(0, 400));
  assert.ok(at('Cite the book.') < at('## Instructions'));
  assert.ok(at('## Instructions') < at('## Evidence'));
});
