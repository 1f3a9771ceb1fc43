/**
 * `npm run bench`: runs every `bench/*.bench.ts` in its own process, one after the
 * other (so they do not compete for the two cores), or only those whose name
 * contains one of the arguments: `npm run bench -- txn`. `peer` (vaultgate
 * against qmd) runs only when named: `npm run bench -- peer`.
 * Each bench prints its own table and writes JSON under bench/results/; the run
 * ends with one table of every issue target measured in it (bench/lib/targets.ts).
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { readTargets, targetsTable } from './lib/targets.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const only = process.argv.slice(2);
/** Run only when named: the peer bench installs qmd from the npm registry on first use. */
const OPT_IN = new Set(['peer.bench.ts']);
const files = fs
  .readdirSync(here)
  .filter((f) => f.endsWith('.bench.ts'))
  .filter((f) => (only.length === 0 ? !OPT_IN.has(f) : only.some((o) => f.includes(o))))
  .sort();
if (files.length === 0) {
  console.error('no bench files matched');
  process.exit(2);
}
const started = new Date();
let failed = 0;
for (const f of files) {
  console.log(`\n=== ${f} ===`);
  const r = spawnSync(process.execPath, ['--import', 'tsx', path.join(here, f)], { stdio: 'inherit' });
  if (r.status !== 0) failed++;
}
// One table of every issue target this run measured (each bench records its own rows).
console.log('\n=== targets (this run) ===');
console.log(targetsTable(readTargets(started)));
process.exit(failed ? 1 : 0);
