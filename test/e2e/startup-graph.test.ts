/**
 * What a CLI process loads before it knows whether the vault's daemon answers:
 * the static import graph of the bundled entries (dist/cli/main.cjs, the
 * package's bin, and dist/cli/main.js, the same as an ES module). It must not
 * reach the index (SQLite, the schema), commander, the operation table or
 * node:crypto; those are loaded only when the process answers the command
 * itself. (Start-up time is measured by `npm run bench -- peer`; this keeps
 * what it loads from creeping back.)
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { spawnSync } from 'node:child_process';
import { CLI_BIN, REPO_ROOT } from '../helpers/run-cli.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';

function staticGraph(entry: string): Map<string, string> {
  const seen = new Map<string, string>();
  const visit = (file: string) => {
    if (seen.has(file)) return;
    const text = fs.readFileSync(file, 'utf8');
    seen.set(file, text);
    // Static imports only (`import … from "./x.js"`, `import "./x.js"`, `require("./x")`); `import("./x.js")` is deferred.
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s*(?:[^'"()]*?\sfrom\s*)?["'](\.\/[^"']+)["']|\brequire\(["'](\.\/[^"']+)["']\)/g)) {
      visit(path.join(path.dirname(file), (m[1] ?? m[2])!));
    }
  };
  visit(entry);
  return seen;
}

for (const entry of ['main.cjs', 'main.js']) {
  test(`startup: ${entry} checks for a daemon without loading the index, SQLite, commander, the operation table or node:crypto`, () => {
    const main = path.join(REPO_ROOT, 'dist/cli', entry);
    if (!fs.existsSync(main)) return assert.fail(`dist/cli/${entry} missing: run npm run build`);
    const graph = staticGraph(main);
    const code = [...graph.values()].join('\n');
    // node:crypto alone costs 10-30 ms to load (ciphers, streams, webcrypto).
    for (const marker of ['better-sqlite3', 'CREATE VIRTUAL TABLE', 'sections_fts', 'commander', 'defineOperation', 'node:crypto']) {
      assert.ok(!code.includes(marker), `${marker} is reachable from ${entry} without a dynamic import`);
    }
    assert.equal(graph.size, 1, `${entry} is one file`);
    const bytes = Buffer.byteLength(code);
    assert.ok(bytes < 64 * 1024, `${entry} is ${bytes} bytes`);
    // And the CLI itself is one dynamic import away.
    assert.match(graph.get(main)!, /import\("\.\/cli\.js"\)/);
  });
}

/**
 * What a whole process loads, watched from inside (process.moduleLoadList): Node
 * modules that few runs use stay unloaded until used (scripts/bundle.mjs makes
 * node:crypto lazy; the daemon client loads node:net only when a daemon runs).
 */
function nodeModulesLoaded(args: string[], env: Record<string, string>): string[] {
  const dir = tempDir();
  const preload = path.join(dir, 'loaded.cjs');
  fs.writeFileSync(preload, "process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify(process.moduleLoadList.filter((m) => m.startsWith('NativeModule ')))))\n");
  // Output to files, not pipes: a piped stdout is a socket, which loads node:net by itself.
  const out = fs.openSync(path.join(dir, 'out'), 'w');
  const err = fs.openSync(path.join(dir, 'err'), 'w');
  const r = spawnSync(process.execPath, ['--require', preload, CLI_BIN, ...args], { env: { ...process.env, ...env }, stdio: ['ignore', out, err] });
  fs.closeSync(out);
  fs.closeSync(err);
  const stderr = fs.readFileSync(path.join(dir, 'err'), 'utf8');
  assert.equal(r.status, 0, stderr);
  const line = stderr.split('\n').find((l) => l.startsWith('LOADED '));
  return (JSON.parse(line!.slice('LOADED '.length)) as string[]).map((m) => m.slice('NativeModule '.length));
}

test('startup: --version, and a search of an initialised or an already indexed uninitialised vault, load neither node:crypto nor node:net', () => {
  const { root, home } = tempVault({ 'Rules.md': '# Rules\nRoll two dice.\n' });
  const env = { VAULTGATE_HOME: home };
  assert.equal(spawnSync(process.execPath, [CLI_BIN, '--vault', root, 'init'], { env: { ...process.env, ...env } }).status, 0);
  assert.equal(spawnSync(process.execPath, [CLI_BIN, '--vault', root, 'index'], { env: { ...process.env, ...env } }).status, 0);
  for (const args of [['--version'], ['--vault', root, 'search', 'dice', '--json']]) {
    const loaded = nodeModulesLoaded(args, env);
    assert.ok(loaded.includes('fs'), 'the list is read');
    for (const name of ['crypto', 'net']) assert.ok(!loaded.includes(name), `${args.join(' ')} loaded node:${name}`);
  }
  // Never initialised: its index folder is named by a predicted id, remembered by the first run.
  const bare = tempVault({ 'Rules.md': '# Rules\nRoll two dice.\n' });
  const bareEnv = { VAULTGATE_HOME: bare.home };
  assert.equal(spawnSync(process.execPath, [CLI_BIN, '--vault', bare.root, 'index'], { env: { ...process.env, ...bareEnv } }).status, 0);
  assert.ok(!nodeModulesLoaded(['--vault', bare.root, 'search', 'dice', '--json'], bareEnv).includes('crypto'), 'the predicted id was remembered');
});
