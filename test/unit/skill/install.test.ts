import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { CLAUDE_DENY_RULES, installSkill, renderSkill, RUNTIMES, SKILL_DESCRIPTION, uninstallSkill, readAgentsDoc, skillLayout } from '../../../src/skill/index.js';
import { isVaultgateError } from '../../../src/errors.js';
import { snapshotTree, tempDir } from '../../helpers/temp-vault.js';

const content = renderSkill(readAgentsDoc(), '0.0.0-test');

function setup() {
  const base = tempDir();
  const home = path.join(base, 'home');
  const data = path.join(base, 'data');
  fs.mkdirSync(home);
  return { base, home, data };
}

test('SKILL.md: front matter with name and a description every runtime accepts, then the guide with its real field names', () => {
  const m = /^---\nname: vaultgate\ndescription: (".*")\n---\n/.exec(content);
  assert.ok(m, content.slice(0, 300));
  assert.equal(JSON.parse(m[1]!), SKILL_DESCRIPTION);
  assert.ok(SKILL_DESCRIPTION.length <= 500, 'Codex takes at most 500 characters');
  for (const must of ['total', 'hits', 'sha256', 'heading_path', 'evidence', 'propose', 'apply', '75', '77', '--format markdown']) assert.ok(content.includes(must), must);
  assert.ok(!/^# vaultgate for agents$/m.test(content), 'the guide’s own title is replaced');
});

test('SKILL.md and the MCP prompt carry the rule: never hide a failing exit status from the person (issue 22 §4)', async () => {
  const { answerPromptText } = await import('../../../src/mcp/agent-text.js');
  assert.match(content, /Never hide a failing command's exit status from the person/);
  assert.ok(content.includes('|| true'), 'names the usual way to hide it');
  assert.match(content, /swallow a 75 or a 77/);
  // Over MCP there is no shell and no exit status: the same rule in the words of tool results (issue 21 §2).
  assert.match(answerPromptText('q', '/vault'), /Never hide a failed call from the person: a result with `isError` is the answer/);
});

test('skill install: written once under the data root, symlinked into every runtime; idempotent', () => {
  const { home, data } = setup();
  const r = installSkill({ home, dataRoot: data, runtimes: RUNTIMES, content, dryRun: false, guard: false });
  const layout = skillLayout(data);
  assert.equal(fs.readFileSync(layout.file, 'utf8'), content);
  for (const rt of r.runtimes) {
    assert.equal(rt.action, 'linked');
    assert.equal(fs.readFileSync(path.join(rt.path, 'SKILL.md'), 'utf8'), content);
    assert.ok(fs.lstatSync(rt.path).isSymbolicLink());
    assert.ok(fs.lstatSync(path.dirname(rt.path)).isDirectory(), 'the skills folder itself is a real folder');
  }
  assert.deepEqual(r.runtimes.map((x) => path.relative(home, x.path)), ['.claude/skills/vaultgate', '.codex/skills/vaultgate', '.pi/agent/skills/vaultgate']);
  const before = snapshotTree(home, { includeHidden: true });
  const again = installSkill({ home, dataRoot: data, runtimes: RUNTIMES, content, dryRun: false, guard: false });
  assert.deepEqual(again.runtimes.map((x) => x.action), ['unchanged', 'unchanged', 'unchanged']);
  assert.deepEqual(snapshotTree(home, { includeHidden: true }), before);
  // A new version of the guide reaches every runtime through the links.
  installSkill({ home, dataRoot: data, runtimes: RUNTIMES, content: content + '\nmore\n', dryRun: false, guard: false });
  assert.ok(fs.readFileSync(path.join(home, '.codex/skills/vaultgate/SKILL.md'), 'utf8').endsWith('more\n'));
});

test('skill install: a foreign file of the same name is FOREIGN_FILE (exit 75) and nothing at all is changed', () => {
  const { home, data } = setup();
  fs.mkdirSync(path.join(home, '.codex/skills/vaultgate'), { recursive: true });
  fs.writeFileSync(path.join(home, '.codex/skills/vaultgate/SKILL.md'), 'mine');
  const before = snapshotTree(home, { includeHidden: true });
  try {
    installSkill({ home, dataRoot: data, runtimes: RUNTIMES, content, dryRun: false, guard: true });
    assert.fail('expected FOREIGN_FILE');
  } catch (e) {
    assert.ok(isVaultgateError(e) && e.code === 'FOREIGN_FILE' && e.exitCode === 75, String(e));
    assert.match(e.hint ?? '', /move it away/);
  }
  assert.deepEqual(snapshotTree(home, { includeHidden: true }), before, 'the claude and pi folders were not created either');
  assert.ok(!fs.existsSync(data), 'nothing under the data root');
  // A symlink pointing elsewhere is foreign too.
  fs.rmSync(path.join(home, '.codex'), { recursive: true });
  fs.mkdirSync(path.join(home, '.pi/agent/skills'), { recursive: true });
  fs.symlinkSync('/tmp', path.join(home, '.pi/agent/skills/vaultgate'));
  assert.throws(() => installSkill({ home, dataRoot: data, runtimes: ['pi'], content, dryRun: false, guard: false }), /not installed by vaultgate/);
});

test('skill install --dry-run changes nothing and says what it would do', () => {
  const { home, data } = setup();
  const r = installSkill({ home, dataRoot: data, runtimes: RUNTIMES, content, dryRun: true, guard: true });
  assert.deepEqual(r.runtimes.map((x) => x.action), ['link', 'link', 'link']);
  assert.equal(r.guard?.action, 'create');
  assert.deepEqual(fs.readdirSync(home), []);
  assert.ok(!fs.existsSync(data));
});

test('skill install: copies where symlinks cannot be made; uninstall removes an unchanged copy and leaves an edited one', () => {
  const { home, data } = setup();
  const r = installSkill({ home, dataRoot: data, runtimes: ['claude', 'pi'], content, dryRun: false, guard: false, linkMode: 'copy' });
  assert.deepEqual(r.runtimes.map((x) => x.action), ['copied', 'copied']);
  assert.ok(fs.lstatSync(path.join(home, '.claude/skills/vaultgate')).isDirectory());
  // Reinstalling a new text updates an unchanged copy.
  const r2 = installSkill({ home, dataRoot: data, runtimes: ['claude', 'pi'], content: content + 'v2\n', dryRun: false, guard: false, linkMode: 'copy' });
  assert.deepEqual(r2.runtimes.map((x) => x.action), ['updated', 'updated']);
  fs.appendFileSync(path.join(home, '.pi/agent/skills/vaultgate/SKILL.md'), 'my own note\n');
  const u = uninstallSkill({ home, dataRoot: data, runtimes: RUNTIMES, dryRun: false });
  const by = Object.fromEntries(u.runtimes.map((x) => [x.runtime, x]));
  assert.equal(by.claude!.action, 'removed');
  assert.equal(by.pi!.action, 'left');
  assert.equal(by.codex!.action, 'absent');
  assert.ok(!fs.existsSync(path.join(home, '.claude')), 'folders it created are removed when empty');
  assert.ok(fs.readFileSync(path.join(home, '.pi/agent/skills/vaultgate/SKILL.md'), 'utf8').endsWith('my own note\n'));
});

test('skill uninstall: removes only what it installed, only for the runtimes and home asked; the guard’s rules go, the user’s stay', () => {
  const { base, home, data } = setup();
  fs.mkdirSync(path.join(home, '.claude/skills/other'), { recursive: true });
  fs.writeFileSync(path.join(home, '.claude/skills/other/SKILL.md'), 'other skill');
  fs.writeFileSync(path.join(home, '.claude/settings.json'), '{\n  "permissions": {\n    "deny": ["Read(.env)"]\n  },\n  "theme": "dark"\n}\n');
  const otherHome = path.join(base, 'other-home');
  fs.mkdirSync(otherHome);
  installSkill({ home, dataRoot: data, runtimes: RUNTIMES, content, dryRun: false, guard: true, now: () => new Date('2026-01-02T03:04:05Z') });
  installSkill({ home: otherHome, dataRoot: data, runtimes: ['codex'], content, dryRun: false, guard: false });
  const backup = path.join(home, '.claude/settings.json.vaultgate-backup-2026-01-02T03-04-05-000Z');
  assert.equal(fs.readFileSync(backup, 'utf8'), '{\n  "permissions": {\n    "deny": ["Read(.env)"]\n  },\n  "theme": "dark"\n}\n', 'backup of the original bytes');
  const settings = JSON.parse(fs.readFileSync(path.join(home, '.claude/settings.json'), 'utf8'));
  assert.equal(settings.permissions.deny.length, 1 + CLAUDE_DENY_RULES.length);

  const u1 = uninstallSkill({ home, dataRoot: data, runtimes: ['codex'], dryRun: false });
  assert.deepEqual(u1.runtimes.map((x) => [x.runtime, x.action]), [['codex', 'removed']]);
  assert.ok(fs.existsSync(path.join(home, '.claude/skills/vaultgate/SKILL.md')), 'claude untouched');
  assert.ok(fs.existsSync(path.join(otherHome, '.codex/skills/vaultgate/SKILL.md')), 'the other home untouched');
  assert.equal(u1.guard, null, 'the guard belongs to claude');

  const u2 = uninstallSkill({ home, dataRoot: data, runtimes: RUNTIMES, dryRun: false, now: () => new Date('2026-01-02T03:04:06Z') });
  assert.deepEqual(u2.guard?.rules.length, CLAUDE_DENY_RULES.length);
  assert.deepEqual(JSON.parse(fs.readFileSync(path.join(home, '.claude/settings.json'), 'utf8')), { permissions: { deny: ['Read(.env)'] }, theme: 'dark' });
  assert.equal(fs.readFileSync(path.join(home, '.claude/skills/other/SKILL.md'), 'utf8'), 'other skill');
  assert.ok(!fs.existsSync(path.join(home, '.claude/skills/vaultgate')));
  assert.equal(u2.skill_removed, false, 'the other home still links to it');
  assert.ok(fs.existsSync(skillLayout(data).file));
  const u3 = uninstallSkill({ home: otherHome, dataRoot: data, runtimes: RUNTIMES, dryRun: false });
  assert.equal(u3.skill_removed, true);
  assert.ok(!fs.existsSync(skillLayout(data).manifest));
});

test('skill uninstall: a link replaced by the user is left alone', () => {
  const { home, data } = setup();
  installSkill({ home, dataRoot: data, runtimes: ['claude'], content, dryRun: false, guard: false });
  const link = path.join(home, '.claude/skills/vaultgate');
  fs.unlinkSync(link);
  fs.mkdirSync(link);
  fs.writeFileSync(path.join(link, 'SKILL.md'), 'mine now');
  const u = uninstallSkill({ home, dataRoot: data, runtimes: ['claude'], dryRun: false });
  assert.equal(u.runtimes[0]!.action, 'left');
  assert.equal(fs.readFileSync(path.join(link, 'SKILL.md'), 'utf8'), 'mine now');
});
