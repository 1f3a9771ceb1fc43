import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliProcess } from '../helpers/run-cli.js';
import { snapshotTree, tempDir } from '../helpers/temp-vault.js';

/**
 * Issue 20 §5: `skill install --guard` replaced a `~/.claude/settings.json` that is
 * a symlink (into a dotfiles repo) by a regular file: the linked file never got
 * the rules, and uninstall did not bring the link back. Now no file skill install
 * touches is ever replaced when it is a link: the settings are written through
 * the link when it leads to a regular file of this user inside the home folder,
 * and otherwise refused like a foreign file (FOREIGN_FILE, 75, nothing changed).
 * The real CLI, with HOME and the data root in temporary folders.
 */
const ORIGINAL = '{\n  "model": "opus"\n}\n';

function setupHome(): { base: string; home: string; vgHome: string; env: Record<string, string> } {
  const base = tempDir();
  const home = path.join(base, 'home');
  fs.mkdirSync(path.join(home, '.claude'), { recursive: true });
  return { base, home, vgHome: path.join(base, 'vg'), env: { HOME: home } };
}

test('issue 20.5: a settings.json symlinked into a dotfiles folder: the rules are written through the link, which stays; uninstall restores the text', async () => {
  const { home, vgHome, env } = setupHome();
  const dot = path.join(home, 'dotfiles/claude');
  fs.mkdirSync(dot, { recursive: true });
  const target = path.join(dot, 'settings.json');
  fs.writeFileSync(target, ORIGINAL);
  const link = path.join(home, '.claude/settings.json');
  fs.symlinkSync('../dotfiles/claude/settings.json', link);

  const r = await runCliProcess(['skill', 'install', '--guard', '--runtime', 'claude'], { home: vgHome, env });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  assert.ok(fs.lstatSync(link).isSymbolicLink(), 'the link was replaced by a file');
  assert.equal(fs.readlinkSync(link), '../dotfiles/claude/settings.json');
  const written = JSON.parse(fs.readFileSync(target, 'utf8'));
  assert.equal(written.model, 'opus');
  assert.ok(written.permissions.deny.includes('Bash(vaultgate apply *)'), 'the linked file holds the rules');
  assert.deepEqual(fs.readdirSync(dot), ['settings.json'], 'no backup or temp file left in the dotfiles folder');

  const u = await runCliProcess(['skill', 'uninstall', '--runtime', 'claude'], { home: vgHome, env });
  assert.equal(u.exitCode, 0, u.stdout + u.stderr);
  assert.ok(fs.lstatSync(link).isSymbolicLink(), 'uninstall replaced the link');
  assert.equal(fs.readFileSync(target, 'utf8'), ORIGINAL);
});

test('issue 20.5: a settings.json link that dangles, leads outside the home, or to a folder: FOREIGN_FILE (75), nothing changed anywhere', async () => {
  for (const kind of ['dangling', 'outside', 'folder'] as const) {
    const { base, home, vgHome, env } = setupHome();
    const link = path.join(home, '.claude/settings.json');
    const outside = path.join(base, 'elsewhere');
    fs.mkdirSync(outside);
    if (kind === 'dangling') fs.symlinkSync(path.join(home, 'missing.json'), link);
    if (kind === 'outside') {
      fs.writeFileSync(path.join(outside, 'settings.json'), ORIGINAL);
      fs.symlinkSync(path.join(outside, 'settings.json'), link);
    }
    if (kind === 'folder') {
      fs.mkdirSync(path.join(home, 'dir'));
      fs.symlinkSync(path.join(home, 'dir'), link);
    }
    const homeBefore = snapshotTree(home, { includeHidden: true });
    const outsideBefore = snapshotTree(outside, { includeHidden: true });
    const r = await runCliProcess(['skill', 'install', '--guard'], { home: vgHome, env });
    assert.deepEqual([r.exitCode, r.json?.error?.code], [75, 'FOREIGN_FILE'], `${kind}: ${r.stdout}${r.stderr}`);
    assert.match(r.json.error.message, /symbolic link/, kind);
    assert.ok(fs.lstatSync(link).isSymbolicLink(), kind);
    assert.deepEqual(snapshotTree(home, { includeHidden: true }), homeBefore, `${kind}: the home changed`);
    assert.deepEqual(snapshotTree(outside, { includeHidden: true }), outsideBefore, `${kind}: outside the home changed`);
  }
});
