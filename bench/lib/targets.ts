/**
 * Issue targets, one row each, collected across benches so `npm run bench`
 * ends with one table of every target and what this run measured.
 *
 * Each bench records its rows (`recordTargets`) in bench/results/targets-<bench>.json;
 * bench/run.ts prints the rows of the files written during its own run, so a
 * figure from an earlier run never stands beside today's. A target is a
 * bound on a number (`value ≤ limit` or `value < limit` or `value ≥ limit`);
 * `met` is left null when the value could not be measured.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

export interface TargetRow {
  /** Where the target comes from, e.g. `#26`. */
  issue: string;
  /** What is measured, e.g. `search (common words) / floor, 10k notes`. */
  what: string;
  /** The measured number, or null when it could not be measured. */
  value: number | null;
  unit: string;
  bound: '<=' | '<' | '>=';
  limit: number;
  /** How the number was taken when it matters (e.g. `CPU`, `wall, busy machine`). */
  note?: string;
}

export interface RecordedTargets {
  bench: string;
  date: string;
  loadavg: number[];
  rows: TargetRow[];
}

const RESULTS = path.join(path.dirname(path.dirname(fileURLToPath(import.meta.url))), 'results');

export function targetMet(row: TargetRow): boolean | null {
  if (row.value === null || !Number.isFinite(row.value)) return null;
  if (row.bound === '<=') return row.value <= row.limit;
  if (row.bound === '<') return row.value < row.limit;
  return row.value >= row.limit;
}

export function recordTargets(bench: string, rows: TargetRow[], dir = RESULTS): void {
  fs.mkdirSync(dir, { recursive: true });
  const out: RecordedTargets = { bench, date: new Date().toISOString(), loadavg: os.loadavg(), rows };
  fs.writeFileSync(path.join(dir, `targets-${bench}.json`), `${JSON.stringify(out, null, 2)}\n`);
}

/** The targets recorded at or after `since` (this run's), oldest bench first. */
export function readTargets(since: Date, dir = RESULTS): RecordedTargets[] {
  if (!fs.existsSync(dir)) return [];
  return fs
    .readdirSync(dir)
    .filter((f) => /^targets-.+\.json$/.test(f))
    .map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as RecordedTargets)
    .filter((t) => new Date(t.date) >= since)
    .sort((a, b) => a.date.localeCompare(b.date));
}

const num = (v: number): string => (Math.abs(v) >= 100 ? v.toFixed(0) : Math.abs(v) >= 10 ? v.toFixed(1) : v.toFixed(2));

export function targetsTable(recorded: readonly RecordedTargets[]): string {
  const head = ['bench', 'issue', 'target', 'measured', 'bound', 'met'];
  const body = recorded.flatMap((t) =>
    t.rows.map((r) => {
      const met = targetMet(r);
      return [
        t.bench,
        r.issue,
        r.what + (r.note ? ` (${r.note})` : ''),
        r.value === null ? 'n/a' : `${num(r.value)} ${r.unit}`,
        `${r.bound} ${r.limit} ${r.unit}`,
        met === null ? '?' : met ? 'yes' : 'NO',
      ];
    }),
  );
  if (body.length === 0) return 'no targets recorded in this run';
  const widths = head.map((_, c) => Math.max(...[head, ...body].map((row) => row[c]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ')} |`;
  const loads = recorded.map((t) => `${t.bench} ${t.loadavg[0]?.toFixed(1) ?? '?'}`).join(', ');
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line), `load average at each bench's end: ${loads} (${os.cpus().length} cores)`].join('\n');
}
