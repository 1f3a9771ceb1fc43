import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { listScenarios, loadScenario } from '../../../src/policy/index.js';
import { tempVault } from '../../helpers/temp-vault.js';
import { writeScenario, yaml } from './scenario-fixtures.js';
import { errorCode as code } from '../../helpers/error-code.js';

function error(f: () => unknown): { code: string; message: string; details?: Record<string, unknown> } {
  try {
    f();
  } catch (e) {
    return e as { code: string; message: string };
  }
  assert.fail('expected an error');
}

const AGENT = 'Follow the rules.\n';

test('scenario: loaded from the machine config with its AGENT.md and validator path', () => {
  const { root, home } = tempVault();
  const dir = writeScenario({ home }, 'books', {
    'scenario.yaml': yaml('books', 'description: Books', 'areas: ["Books/**"]', 'context: {limit: 7}'),
    'AGENT.md': AGENT,
    'validate.mjs': 'console.log(JSON.stringify({ok: true, messages: []}))\n',
    'lib/helpers.mjs': 'export const x = 1;\n', // subfolders are free
  });
  const s = loadScenario('books', { root, env: { VAULTGATE_HOME: home } });
  assert.equal(s.source, 'machine');
  assert.equal(s.dir, dir);
  assert.equal(s.instruction, AGENT);
  assert.equal(s.validator, path.join(dir, 'validate.mjs'));
  assert.deepEqual(s.areas, ['Books/**']);
  assert.deepEqual(s.context, { limit: 7 });
  assert.deepEqual(s.write.required_frontmatter, []);
  assert.deepEqual(Object.keys(s.write.frontmatter), []);
});

test('scenario: the vault’s own scenario comes first, even when it is broken (never falls back)', () => {
  const { root, home } = tempVault();
  const env = { VAULTGATE_HOME: home };
  writeScenario({ home }, 'books', { 'scenario.yaml': yaml('books', 'areas: ["Books/**"]'), 'AGENT.md': 'machine\n' });
  writeScenario({ vault: root }, 'books', { 'scenario.yaml': yaml('books', 'areas: ["Reading/**"]'), 'AGENT.md': 'vault\n' });
  const s = loadScenario('books', { root, env });
  assert.equal(s.source, 'vault');
  assert.equal(s.instruction, 'vault\n');
  assert.equal(loadScenario('books', { env }).source, 'machine', 'without a vault: the machine scenario');
  const listed = listScenarios({ root, env });
  assert.deepEqual(listed.map((l) => [l.name, l.source, l.active, l.error]), [['books', 'vault', true, null], ['books', 'machine', false, null]]);
  fs.writeFileSync(path.join(root, '.vaultgate/scenarios/books/scenario.yaml'), yaml('books', 'areas: ["Reading/**"]', 'writes: {}'));
  assert.equal(code(() => loadScenario('books', { root, env })), 'SCENARIO_INVALID');
});

test('scenario: unknown name, bad names and path tricks are typed errors', () => {
  const { root, home } = tempVault();
  const env = { VAULTGATE_HOME: home };
  const e = error(() => loadScenario('nope', { root, env }));
  assert.equal(e.code, 'SCENARIO_NOT_FOUND');
  assert.equal((e.details!.looked_in as string[]).length, 2);
  for (const bad of ['../books', 'books/../x', '.hidden', 'Books', 'a b', '', 'x'.repeat(65), 'a.b', '/etc']) {
    assert.equal(code(() => loadScenario(bad, { root, env })), 'INVALID_INPUT', bad);
  }
});

test('scenario: a missing or empty AGENT.md, a stray file (validate.js), a file as folder, bad UTF-8 are SCENARIO_INVALID naming the file', () => {
  const { root, home } = tempVault();
  const env = { VAULTGATE_HOME: home };
  const spec = yaml('s', 'areas: ["**"]');
  writeScenario({ home }, 's', { 'scenario.yaml': spec });
  assert.match(error(() => loadScenario('s', { root, env })).message, /AGENT\.md: missing/);
  writeScenario({ home }, 's', { 'AGENT.md': '  \n' });
  assert.match(error(() => loadScenario('s', { root, env })).message, /AGENT\.md: is empty/);
  writeScenario({ home }, 's', { 'AGENT.md': AGENT, 'validate.js': '' });
  const stray = error(() => loadScenario('s', { root, env }));
  assert.equal(stray.code, 'SCENARIO_INVALID');
  assert.match(stray.message, /validate\.js: unknown file/);
  fs.rmSync(path.join(home, 'config/scenarios/s/validate.js'));
  fs.writeFileSync(path.join(home, 'config/scenarios/s/.DS_Store'), 'x'); // dot-files are ignored
  assert.equal(loadScenario('s', { root, env }).validator, null);
  fs.writeFileSync(path.join(home, 'config/scenarios/s/AGENT.md'), Buffer.from([0x66, 0xff, 0x0a]));
  assert.match(error(() => loadScenario('s', { root, env })).message, /not valid UTF-8/);
  fs.mkdirSync(path.join(home, 'config/scenarios/f'), { recursive: true });
  fs.rmSync(path.join(home, 'config/scenarios/f'), { recursive: true });
  fs.writeFileSync(path.join(home, 'config/scenarios/f'), 'not a folder');
  assert.equal(code(() => loadScenario('f', { root, env })), 'SCENARIO_INVALID');
});

test('scenario list: broken scenarios are listed with their error, not hidden; nothing throws', () => {
  const { root, home } = tempVault();
  const env = { VAULTGATE_HOME: home };
  writeScenario({ home }, 'good', { 'scenario.yaml': yaml('good', 'areas: ["**"]'), 'AGENT.md': AGENT });
  writeScenario({ home }, 'typo', { 'scenario.yaml': yaml('typo', 'area: ["**"]'), 'AGENT.md': AGENT });
  writeScenario({ home }, 'Upper', { 'scenario.yaml': yaml('Upper', 'areas: ["**"]'), 'AGENT.md': AGENT });
  const listed = listScenarios({ root, env });
  assert.deepEqual(listed.map((l) => [l.name, l.error?.code ?? null]), [['Upper', 'INVALID_INPUT'], ['good', null], ['typo', 'SCENARIO_INVALID']]);
  assert.match(listed[2]!.error!.message, /unknown key "area"/);
  assert.deepEqual(listScenarios({ root: tempVault().root, env: { VAULTGATE_HOME: tempVault().home } }), []);
});

test('scenario: a validated scenario.yaml is cached by its bytes; any change is validated again (a typo is never served from the cache)', () => {
  const { root, home } = tempVault();
  const env = { VAULTGATE_HOME: home };
  const dir = writeScenario({ home }, 'books', { 'scenario.yaml': yaml('books', 'areas: ["Books/**"]', 'write: {required_frontmatter: [tags]}'), 'AGENT.md': AGENT });
  const first = loadScenario('books', { root, env });
  const entries = fs.readdirSync(path.join(home, 'cache', 'scenarios'));
  assert.equal(entries.length, 1, 'the validated spec is cached');
  const again = loadScenario('books', { root, env });
  assert.deepEqual(JSON.parse(JSON.stringify(again)), JSON.parse(JSON.stringify(first)));
  fs.writeFileSync(path.join(dir, 'scenario.yaml'), yaml('books', 'areas: ["Books/**"]', 'write: {required_frontmater: [tags]}'));
  assert.equal(code(() => loadScenario('books', { root, env })), 'SCENARIO_INVALID');
  assert.equal(fs.readdirSync(path.join(home, 'cache', 'scenarios')).length, 1, 'an invalid file is never cached');
  fs.writeFileSync(path.join(home, 'cache', 'scenarios', entries[0]!), 'not json');
  fs.writeFileSync(path.join(dir, 'scenario.yaml'), yaml('books', 'areas: ["Books/**"]', 'write: {required_frontmatter: [tags]}'));
  assert.deepEqual(loadScenario('books', { root, env }).write.required_frontmatter, ['tags'], 'a damaged cache entry is a miss');
});
