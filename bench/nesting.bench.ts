/**
 * `npm run bench -- nesting`: parse time of notes nested 500 to 3,000 levels deep
 * (lists, quotes, and lists and quotes mixed; bench/lib/nested-notes.ts), the
 * input of issue 7 defect 4. Each (kind, depth) is one child process running
 * parseNote once, so a slow or out-of-memory case cannot disturb the next; a
 * child is stopped after 5 minutes, and its heap is capped at 4 GB.
 *
 * VAULTGATE_BENCH_SRC=/path/to/src measures another source tree (e.g. an export
 * of an older commit with node_modules linked next to it): the before/after
 * figures in lezer-guards.ts were taken this way.
 *
 * Results: a table on stdout and bench/results/nesting.json.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { benchEnv } from './lib/measure.js';
import { NESTED_NOTES, type NestingKind } from './lib/nested-notes.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SRC = path.resolve(process.env.VAULTGATE_BENCH_SRC ?? path.join(here, '../src'));
const DEPTHS = [500, 1000, 2000, 3000];
const KINDS = Object.keys(NESTED_NOTES) as NestingKind[];
const TIMEOUT_MS = 5 * 60_000;

interface Row {
  kind: NestingKind;
  depth: number;
  mb: number;
  /** parseNote alone, in ms; null when the child timed out or ran out of memory. */
  parse_ms: number | null;
  links: number | null;
  outcome: 'ok' | 'timeout' | 'out of memory' | 'failed';
}

if (process.argv[2] === '--child') {
  const [kind, depth] = [process.argv[3] as NestingKind, Number(process.argv[4])];
  const { parseNote } = (await import(pathToFileURL(path.join(SRC, 'markdown/index.ts')).href)) as typeof import('../src/markdown/index.js');
  const text = NESTED_NOTES[kind](depth);
  const started = performance.now();
  const m = parseNote(text);
  const ms = performance.now() - started;
  console.log(JSON.stringify({ mb: text.length / 1e6, parse_ms: ms, links: m.links.length }));
} else {
  const rows: Row[] = [];
  console.log(`source: ${SRC}`);
  console.log('kind   depth     MB   parse ms  links');
  for (const kind of KINDS) {
    for (const depth of DEPTHS) {
      const r = spawnSync(process.execPath, ['--max-old-space-size=4096', '--import', 'tsx', fileURLToPath(import.meta.url), '--child', kind, String(depth)], {
        env: benchEnv(),
        encoding: 'utf8',
        timeout: TIMEOUT_MS,
      });
      const mb = NESTED_NOTES[kind](depth).length / 1e6;
      let row: Row;
      if (r.status === 0) {
        const out = JSON.parse(r.stdout.trim().split('\n').pop()!) as { parse_ms: number; links: number };
        row = { kind, depth, mb, parse_ms: out.parse_ms, links: out.links, outcome: 'ok' };
      } else {
        const outcome = r.error && (r.error as NodeJS.ErrnoException).code === 'ETIMEDOUT' ? 'timeout' : /heap out of memory/.test(r.stderr) ? 'out of memory' : 'failed';
        row = { kind, depth, mb, parse_ms: null, links: null, outcome };
      }
      rows.push(row);
      const ms = row.parse_ms === null ? row.outcome : row.parse_ms.toFixed(0);
      console.log(`${kind.padEnd(6)} ${String(depth).padStart(5)} ${mb.toFixed(2).padStart(6)} ${ms.padStart(10)} ${String(row.links ?? '-').padStart(6)}`);
    }
  }
  fs.mkdirSync(path.join(here, 'results'), { recursive: true });
  fs.writeFileSync(path.join(here, 'results/nesting.json'), JSON.stringify({ source: SRC, rows }, null, 2) + '\n');
}
