/**
 * Every TypeScript file in the repository type-checks: src through the build,
 * and here bench/, eval/, scripts/ (tsconfig.tools.json) and test/
 * (tsconfig.test.json). tsx runs those without checking types, so a changed core
 * signature used to break a bench or leave a test fixture a shape behind with
 * nothing noticing. Full run only (about 20 s of CPU): not in the fast lane.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { test } from 'node:test';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const tsc = createRequire(import.meta.url).resolve('typescript/bin/tsc');

for (const project of ['tsconfig.tools.json', 'tsconfig.test.json']) {
  test(`${project} type-checks`, () => {
    const r = spawnSync(process.execPath, [tsc, '-p', project], { cwd: root, encoding: 'utf8' });
    assert.equal(r.status, 0, `npx tsc -p ${project} failed:\n${r.stdout}${r.stderr}`);
  });
}
