import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { loadScenario, scenarioReviewChecks, scenarioRuleChecks, validatorInput, type ProposedFile, type Scenario } from '../../../src/policy/index.js';
import { tempVault } from '../../helpers/temp-vault.js';
import { writeScenario, yaml } from './scenario-fixtures.js';

const sha = (t: string) => crypto.createHash('sha256').update(t).digest('hex');

function write(path: string, text: string, old: string | null = null): ProposedFile {
  return { path, action: 'write', old_text: old, new_text: text, old_sha256: old === null ? null : sha(old), new_sha256: sha(text) };
}

function scenario(lines: string[], files: Record<string, string> = {}): Scenario {
  const { root, home } = tempVault();
  writeScenario({ home }, 'books', { 'scenario.yaml': yaml('books', ...lines), 'AGENT.md': 'x\n', ...files });
  return loadScenario('books', { root, env: { VAULTGATE_HOME: home } });
}

const BOOKS = scenario([
  'areas: ["Books/**", "Quotes/*.md"]',
  'write:',
  '  required_frontmatter: [type, source]',
  '  frontmatter:',
  '    type: {one_of: [quote, note]}',
  '    tags: {contains: [books]}',
  '    year: {type: number, optional: true}',
  '    read: {type: date, optional: true}',
]);

const GOOD = '---\ntype: quote\nsource: "[[Thinking in Systems]]"\ntags: [books, systems]\n---\n> A quote.\n';

test('scenario checks: a change that follows the rules gets one passing check', () => {
  const checks = scenarioRuleChecks(BOOKS, [write('Quotes/q.md', GOOD), write('Books/cover.png', 'png bytes')]);
  assert.deepEqual(checks, [{ name: 'scenario', ok: true, severity: 'block', message: '2 files follow scenario books (areas Books/**, Quotes/*.md)' }]);
});

test('scenario checks: a write, a delete or either end of a move outside the areas blocks, one check per path', () => {
  const move: ProposedFile = { path: 'Books/a.md', action: 'move', to: 'Archive/a.md', old_text: GOOD, new_text: GOOD, old_sha256: sha(GOOD), new_sha256: sha(GOOD) };
  const del: ProposedFile = { path: 'Home.md', action: 'delete', old_text: 'x', new_text: null, old_sha256: sha('x'), new_sha256: null };
  const checks = scenarioRuleChecks(BOOKS, [write('Quotes/sub/q.md', GOOD), move, del]);
  assert.deepEqual(
    checks.map((c) => [c.name, c.ok, c.severity, c.path, c.details?.rule]),
    [
      ['scenario', false, 'block', 'Quotes/sub/q.md', 'areas'],
      ['scenario', false, 'block', 'Archive/a.md', 'areas'],
      ['scenario', false, 'block', 'Home.md', 'areas'],
    ],
  );
  assert.equal(checks[0]!.message, 'Quotes/sub/q.md is outside the areas of scenario books (Books/**, Quotes/*.md)');
});

test('scenario checks: required properties, one_of, contains, types — every problem of a note in one blocking check', () => {
  const cases: [string, string[]][] = [
    ['# no frontmatter\n', ['required:type', 'required:source', 'required:tags']],
    ['---\ntype: essay\nsource: x\ntags: [books]\n---\n', ['one_of:type']],
    ['---\ntype: [quote]\nsource: x\ntags: books\n---\n', ['one_of:type']], // a list is not one value; a single tag counts as a list of one
    ['---\ntype: quote\nsource: ""\ntags: [systems]\n---\n', ['required:source', 'contains:tags']],
    ['---\ntype: note\nsource: x\ntags: [Books]\n---\n', ['contains:tags']], // exact values
    ['---\ntype: note\nsource: x\ntags: [books]\nyear: "2008"\nread: 2026-02-30\n---\n', ['type:year', 'type:read']],
    ['---\ntype: note\nsource: x\ntags: [books]\nyear: 2008\nread: 2026-02-28\n---\n', []],
    ['---\ntype: note\nsource: [x\n---\n', ['frontmatter:null']],
    ['---\n- a\n- b\n---\n', ['frontmatter:null']],
  ];
  for (const [text, want] of cases) {
    const checks = scenarioRuleChecks(BOOKS, [write('Books/n.md', text)]);
    if (want.length === 0) {
      assert.equal(checks[0]!.ok, true, text);
      continue;
    }
    assert.equal(checks.length, 1, text);
    const c = checks[0]!;
    assert.equal(c.ok, false);
    assert.equal(c.path, 'Books/n.md');
    assert.deepEqual((c.details!.problems as { rule: string; key: string | null }[]).map((p) => `${p.rule}:${p.key}`), want, text);
  }
});

test('scenario checks: rules apply where the text lands (a move’s destination), and only to notes', () => {
  const move: ProposedFile = { path: 'Books/a.md', action: 'move', to: 'Books/b.md', old_text: '# a\n', new_text: '# a\n', old_sha256: sha('# a\n'), new_sha256: sha('# a\n') };
  const [c] = scenarioRuleChecks(BOOKS, [move]);
  assert.equal(c!.path, 'Books/b.md');
  assert.equal(scenarioRuleChecks(BOOKS, [write('Books/data.json', '{}')])[0]!.ok, true);
});

test('scenario checks: the validator gets the change and the parsed frontmatter, and its answer is a validator check', async () => {
  const s = scenario(['areas: ["**"]'], {
    'validate.mjs': `let t = ''; for await (const c of process.stdin) t += c; const x = JSON.parse(t);
      const f = x.files[0];
      const ok = x.schema === 'vaultgate.validator-input.v1' && x.scenario.name === 'books' && x.proposal.title === 'T' && f.frontmatter.data.type === 'quote' && f.new_text.startsWith('---');
      console.log(JSON.stringify({ok, messages: ok ? ['fine'] : [t.slice(0, 300)]}));`,
  });
  const input = validatorInput(s, [write('Q.md', GOOD)], { title: 'T' });
  assert.deepEqual(input.files[0]!.frontmatter, { data: { type: 'quote', source: '[[Thinking in Systems]]', tags: ['books', 'systems'] }, error: null });
  const checks = await scenarioReviewChecks(s, [write('Q.md', GOOD)], { proposal: { title: 'T' } });
  assert.deepEqual(checks.map((c) => [c.name, c.ok, c.message]), [
    ['scenario', true, '1 file follows scenario books (areas **)'],
    ['validator', true, 'the validator of scenario books accepted the change: fine'],
  ]);
});
