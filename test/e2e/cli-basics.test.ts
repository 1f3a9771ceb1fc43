import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli, runCliProcess } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

test('an unknown option is a usage error with exit 2 and JSON on stdout', async () => {
  const r = await runCli(['files', '--bogus']);
  assert.equal(r.exitCode, 2);
  assert.equal(r.json.ok, false);
  assert.equal(r.json.error.code, 'USAGE');
});

test('a bare vaultgate, or a command group without its subcommand, shows its help on stderr (exit 0, stdout empty)', async () => {
  const bare = await runCli([]);
  assert.equal(bare.exitCode, 0);
  assert.equal(bare.stdout, '');
  assert.match(bare.stderr, /^Usage: vaultgate \[options\] \[command\]/);
  assert.match(bare.stderr, /\bsearch\b/);
  const group = await runCli(['daemon']);
  assert.equal(group.exitCode, 0);
  assert.match(group.stderr, /^Usage: vaultgate daemon/);
  // an unknown option still answers a typed error, never help text
  const bad = await runCli(['files', '--bogus']);
  assert.equal(bad.stderr, '');
});

test('a missing vault is VAULT_NOT_FOUND (exit 2); a file given as vault is VAULT_NOT_DIRECTORY', async () => {
  const { root, home } = tempVault({ 'a.md': 'x' });
  const r = await runCli(['files'], { vault: root + '/nope', home });
  assert.equal(r.exitCode, 2);
  assert.equal(r.json.error.code, 'VAULT_NOT_FOUND');
  const f = await runCli(['files'], { vault: root + '/a.md', home });
  assert.equal(f.json.error.code, 'VAULT_NOT_DIRECTORY');
  const none = await runCli(['files'], { home });
  assert.equal(none.json.error.code, 'VAULT_NOT_FOUND');
});

test('vault selection: VAULTGATE_VAULT, then default_vault from the machine config (by name or path)', async () => {
  const { root, home } = tempVault({ 'a.md': 'x' });
  const viaEnv = await runCli(['files'], { home, env: { VAULTGATE_VAULT: root } });
  assert.equal(viaEnv.json.vault, root);
  const fs = await import('node:fs');
  fs.mkdirSync(`${home}/config`, { recursive: true });
  fs.writeFileSync(`${home}/config/config.yaml`, `default_vault: main\nvaults:\n  main: ${root}\n`);
  const viaConfig = await runCli(['files'], { home });
  assert.equal(viaConfig.json.vault, root);
  fs.writeFileSync(`${home}/config/config.yaml`, `default_vault: ${root}\nsurprise: 1\n`);
  const bad = await runCli(['files'], { home });
  assert.equal(bad.exitCode, 2);
  assert.equal(bad.json.error.code, 'CONFIG_INVALID');
});

test('the compiled binary runs and prints JSON when piped', async () => {
  const { root, home } = tempVault({ 'n.md': 'x' });
  const r = await runCliProcess(['files'], { vault: root, home });
  assert.equal(r.exitCode, 0, r.stderr);
  assert.deepEqual(r.json.files, [{ path: 'n.md', size: 1 }]);
});
