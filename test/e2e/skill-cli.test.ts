/**
 * `vaultgate skill install|uninstall` through the compiled binary, with HOME
 * and the data root in temporary folders: what each runtime reads, the exit
 * code of a foreign file, and a full round trip that leaves the home as it was.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliProcess } from '../helpers/run-cli.js';
import { snapshotTree, tempDir } from '../helpers/temp-vault.js';

test('skill: install links one SKILL.md into every runtime, a foreign file is exit 75, uninstall restores the home', async () => {
  const base = tempDir();
  const home = path.join(base, 'home');
  const vgHome = path.join(base, 'vg');
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
  fs.writeFileSync(path.join(home, '.claude/settings.json'), '{\n  "model": "opus"\n}\n');
  const before = snapshotTree(home, { includeHidden: true });
  const env = { HOME: home };

  const dry = await runCliProcess(['skill', 'install', '--dry-run', '--guard'], { home: vgHome, env });
  assert.equal(dry.exitCode, 0, dry.stdout + dry.stderr);
  assert.deepEqual(snapshotTree(home, { includeHidden: true }), before, 'dry run changes nothing');

  const r = await runCliProcess(['skill', 'install', '--guard'], { home: vgHome, env });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  for (const dir of ['.claude/skills/vaultgate', '.codex/skills/vaultgate', '.pi/agent/skills/vaultgate']) {
    const skill = fs.readFileSync(path.join(home, dir, 'SKILL.md'), 'utf8');
    assert.match(skill, /^---\nname: vaultgate\ndescription: /, dir);
  }
  const settings = JSON.parse(fs.readFileSync(path.join(home, '.claude/settings.json'), 'utf8'));
  assert.equal(settings.model, 'opus');
  assert.ok(settings.permissions.deny.includes('Bash(vaultgate apply *)'));
  assert.match(r.json.recipes.codex, /sandbox_mode = "workspace-write"/);

  const again = await runCliProcess(['skill', 'install'], { home: vgHome, env });
  assert.deepEqual(again.json.runtimes.map((x: { action: string }) => x.action), ['unchanged', 'unchanged', 'unchanged']);

  const otherHome = path.join(base, 'other');
  fs.mkdirSync(path.join(otherHome, '.pi/agent/skills/vaultgate'), { recursive: true });
  fs.writeFileSync(path.join(otherHome, '.pi/agent/skills/vaultgate/SKILL.md'), 'my own');
  const foreign = await runCliProcess(['skill', 'install', '--home', otherHome], { home: vgHome, env });
  assert.equal(foreign.exitCode, 75);
  assert.equal(foreign.json.error.code, 'FOREIGN_FILE');
  assert.ok(!fs.existsSync(path.join(otherHome, '.claude')), 'nothing changed');

  const u = await runCliProcess(['skill', 'uninstall'], { home: vgHome, env });
  assert.equal(u.exitCode, 0, u.stdout + u.stderr);
  const after = snapshotTree(home, { includeHidden: true });
  const backups = Object.keys(after).filter((p) => p.includes('vaultgate-backup'));
  assert.equal(backups.length, 2, 'one backup per change of settings.json');
  for (const b of backups) delete after[b];
  assert.deepEqual(after, before, 'the home is as it was, but for the backups');
});
