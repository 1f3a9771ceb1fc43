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
import { REPO_ROOT } from '../helpers/run-cli.js';

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
