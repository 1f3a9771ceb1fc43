/**
 * What a CLI process loads before it knows whether the vault's daemon answers:
 * the static import graph of the bundled dist/cli/main.js. It must not reach
 * the index (SQLite, the schema), commander or the operation table; those are
 * imported only when the process answers the command itself. (Module loading
 * is measured by `npm run bench -- peer`; this keeps it from creeping back.)
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
    // Static imports only (`import … from "./x.js"`, `import "./x.js"`); `import("./x.js")` is deferred.
    for (const m of text.matchAll(/(?:^|\n)\s*(?:import|export)\s*(?:[^'"()]*?\sfrom\s*)?["'](\.\/[^"']+)["']/g)) visit(path.join(path.dirname(file), m[1]!));
  };
  visit(entry);
  return seen;
}

test('startup: the daemon check loads no index, SQLite, commander, operation table or node:crypto (bundled main.js)', () => {
  const main = path.join(REPO_ROOT, 'dist/cli/main.js');
  if (!fs.existsSync(main)) return assert.fail('dist/cli/main.js missing: run npm run build');
  const graph = staticGraph(main);
  const code = [...graph.values()].join('\n');
  // node:crypto alone costs 10-30 ms to load (ciphers, streams, webcrypto): the check hashes without it.
  for (const marker of ['better-sqlite3', 'CREATE VIRTUAL TABLE', 'sections_fts', 'commander', 'defineOperation', 'node:crypto']) {
    assert.ok(!code.includes(marker), `${marker} is reachable from main.js without a dynamic import`);
  }
  const bytes = [...graph.values()].reduce((n, t) => n + Buffer.byteLength(t), 0);
  assert.ok(bytes < 64 * 1024, `the entry's static graph is ${bytes} bytes in ${graph.size} files`);
  // And the CLI itself is one dynamic import away.
  assert.match(graph.get(main)!, /import\("\.\/chunk-[A-Z0-9]+\.js"\)/);
});
