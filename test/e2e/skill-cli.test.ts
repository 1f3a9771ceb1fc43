/**
 * `vaultgate skill install|uninstall` through the compiled binary, with HOME
 * and the data root in temporary folders: what each runtime reads, the exit
 * code of a foreign file, and a full round trip that leaves the home as it was.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { CLI_BIN, runCliProcess } from '../helpers/run-cli.js';
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

/** Run a command line as an agent's shell does: a fresh `sh -c` with only PATH and HOME (no aliases, no functions). */
function agentShell(script: string, env: { PATH: string; HOME: string; VAULTGATE_HOME?: string }): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('/bin/sh', ['-c', script], { env, encoding: 'utf8', timeout: 60_000 });
  return { status: r.status, stdout: r.stdout, stderr: r.stderr };
}

test('skill install: vaultgate not on PATH → a shim the skill and the guard name, which runs from a fresh shell (issue 21 §4)', async () => {
  const base = tempDir();
  const home = path.join(base, 'home');
  const vgHome = path.join(base, 'vault gate home'); // a space: the shim's path must be quoted wherever a shell reads it
  const vault = path.join(base, 'vault');
  fs.mkdirSync(home);
  fs.mkdirSync(vault);
  fs.writeFileSync(path.join(vault, 'Note.md'), '# Note\n\nhello\n');
  const PATH = '/usr/bin:/bin'; // no vaultgate here (an alias in the person's shell would not reach the agent either)
  assert.notEqual(agentShell('command -v vaultgate', { PATH, HOME: home }).status, 0, 'precondition: vaultgate is not on this PATH');

  const r = await runCliProcess(['skill', 'install', '--runtime', 'claude', '--guard'], { home: vgHome, env: { HOME: home, PATH } });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  const c = r.json.command;
  assert.equal(c.via, 'shim');
  assert.equal(c.checked, true, JSON.stringify(c));
  assert.match(c.reason, /not on the PATH/);
  assert.ok(c.shim.startsWith(vgHome + path.sep));
  assert.equal(c.run, `'${c.shim}'`);
  const skill = fs.readFileSync(path.join(home, '.claude/skills/vaultgate/SKILL.md'), 'utf8');
  assert.ok(skill.includes(`\`${c.run} search `), 'the skill shows the command that runs');
  assert.ok(!/`vaultgate (search|note|propose)/.test(skill), 'no command in the skill is the bare name that does not run');
  const deny = JSON.parse(fs.readFileSync(path.join(home, '.claude/settings.json'), 'utf8')).permissions.deny as string[];
  assert.ok(deny.includes(`Bash(${c.run} apply *)`), 'the guard matches the command the skill uses');
  assert.ok(deny.includes('Bash(vaultgate apply *)'), 'and the plain name, for when it is on PATH later');

  // What the agent will type, from a fresh shell: it runs this vaultgate on the vault.
  const files = agentShell(`${c.run} --vault ${vault} files`, { PATH, HOME: home, VAULTGATE_HOME: vgHome });
  assert.equal(files.status, 0, files.stderr);
  assert.deepEqual(JSON.parse(files.stdout).files.map((f: { path: string }) => f.path), ['Note.md']);

  // The text says which command agents run and why.
  const again = await runCliProcess(['skill', 'install', '--runtime', 'claude', '--text'], { home: vgHome, env: { HOME: home, PATH } });
  assert.match(again.stdout, /agents run: '.*\/skill\/bin\/vaultgate'/);
  assert.match(again.stdout, /npm link/);

  // Once vaultgate is on PATH (here: a directory with a working `vaultgate`), a reinstall says plain `vaultgate` and retires the shim.
  const bin = path.join(base, 'bin');
  fs.mkdirSync(bin);
  fs.writeFileSync(path.join(bin, 'vaultgate'), `#!/bin/sh\nexec '${process.execPath}' '${CLI_BIN}' "$@"\n`, { mode: 0o755 });
  const linked = await runCliProcess(['skill', 'install', '--runtime', 'claude'], { home: vgHome, env: { HOME: home, PATH: `${bin}:${PATH}` } });
  assert.equal(linked.exitCode, 0, linked.stdout + linked.stderr);
  assert.equal(linked.json.command.via, 'path');
  assert.equal(linked.json.command.on_path, path.join(bin, 'vaultgate'));
  assert.ok(!fs.existsSync(c.shim), 'the shim is gone');
  assert.match(fs.readFileSync(path.join(home, '.claude/skills/vaultgate/SKILL.md'), 'utf8'), /`vaultgate search /);

  // A `vaultgate` on PATH that does not run is not trusted: the shim again, and the reason names the failure.
  fs.writeFileSync(path.join(bin, 'vaultgate'), '#!/bin/sh\necho broken >&2\nexit 3\n', { mode: 0o755 });
  const broken = await runCliProcess(['skill', 'install', '--runtime', 'claude'], { home: vgHome, env: { HOME: home, PATH: `${bin}:${PATH}` } });
  assert.equal(broken.json.command.via, 'shim');
  assert.match(broken.json.command.reason, /failed \(exit 3: broken\)/);

  const u = await runCliProcess(['skill', 'uninstall'], { home: vgHome, env: { HOME: home, PATH } });
  assert.equal(u.exitCode, 0, u.stdout + u.stderr);
  assert.ok(!fs.existsSync(c.shim), 'uninstall removes the shim with the skill');
});
