/**
 * One process for the whole suite (node's runner spawns a process per file, which
 * costs seconds on two cores). Imports every `*.test.ts` under test/ so each
 * file's tests register here. `VAULTGATE_TEST_FILTER=substring` runs a subset.
 * `VAULTGATE_TEST_LANE=fast` (`npm run test:fast`) runs the fast lane: unit,
 * conformance and golden tests, under a minute; the full run adds the e2e,
 * corpus and crash suites.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const here = path.dirname(fileURLToPath(import.meta.url));
const filter = process.env.VAULTGATE_TEST_FILTER;
const FAST_LANE = ['unit', 'conformance', 'golden'];
const fast = process.env.VAULTGATE_TEST_LANE === 'fast';

function find(dir: string): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    if (e.isDirectory() && e.name !== 'fixtures' && e.name !== 'helpers') out.push(...find(p));
    else if (e.isFile() && e.name.endsWith('.test.ts') && p !== fileURLToPath(import.meta.url)) out.push(p);
  }
  return out.sort();
}

for (const file of find(here)) {
  if (filter && !file.includes(filter)) continue;
  if (fast && !FAST_LANE.includes(path.relative(here, file).split(path.sep)[0]!)) continue;
  await import(pathToFileURL(file).href);
}
