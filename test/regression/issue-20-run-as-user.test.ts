import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT } from '../helpers/run-cli.js';
import { CAN_DROP_ROOT, cliReadableBy, NOBODY, runAs } from '../helpers/run-as.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';

/**
 * Issue 20 §7: `npm test` as root from a checkout inside a folder other users
 * cannot enter failed the read-only-folder test: the unprivileged user it
 * switches to could not load `dist/cli/main.cjs`. Tests that switch user now
 * run a build that user can read (test/helpers/run-as.ts), or skip saying why.
 * Here the checkout is a copy of the build inside a 0700 folder, as `mktemp -d`
 * makes it.
 */
test('issue 20.7: a build inside a folder nobody may enter is run as nobody through a readable copy', { skip: CAN_DROP_ROOT ? false : 'needs root and setpriv to become another user' }, () => {
  const hidden = tempDir('vaultgate-checkout-'); // 0700, like mktemp -d
  assert.equal(fs.statSync(hidden).mode & 0o777, 0o700);
  fs.cpSync(path.join(REPO_ROOT, 'dist'), path.join(hidden, 'dist'), { recursive: true });
  fs.copyFileSync(path.join(REPO_ROOT, 'package.json'), path.join(hidden, 'package.json'));
  const bin = path.join(hidden, 'dist/cli/main.cjs');
  assert.notEqual(runAs(NOBODY, [bin, '--version']).exitCode, 0, 'nobody cannot load the build in place (the reason the test failed)');

  const cli = cliReadableBy(NOBODY, bin);
  assert.ok('bin' in cli, 'skip' in cli ? cli.skip : '');
  assert.ok(!cli.bin.startsWith(hidden));
  const { root, home } = tempVault({ 'a.md': 'A' });
  fs.chmodSync(path.dirname(root), 0o777);
  const r = runAs(NOBODY, [cli.bin, '--vault', root, 'tx', 'status'], { VAULTGATE_HOME: home });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  assert.equal(r.json.initialised, false);
});
