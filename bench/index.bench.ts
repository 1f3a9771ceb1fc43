/**
 * `npm run bench -- index`: the read path against whole-process baselines, on
 * synthetic vaults of 1k and 10k notes (100k with VAULTGATE_BENCH_100K=1).
 *
 * Every figure is a whole process (Node start included), because that is what an
 * agent pays per call. Baselines:
 * - floor / stat walk: Node starts, walks the vault and stats every note, the
 *   least a search that guarantees a fresh index can do (bench/lib/stat-walk.mjs);
 * - `grep -ril TERM` and, when installed, `rg -il TERM` over the same notes;
 * - `node -e 0`, for scale.
 * Targets (issue 9, on 10k notes, common query words) are reported, never asserted.
 *
 * Vaults are generated once under $VAULTGATE_BENCH_DIR (default
 * /tmp/vaultgate-bench) and reused while the generator and options are unchanged.
 * Timings are warm page cache, medians of interleaved repetitions.
 *
 * VAULTGATE_BENCH_BUSY=1 measures a busy machine (issue 26 asks for idle and
 * busy figures): another process spins on one core for the whole run, so the
 * baselines share the machine with it too and the ratios stay same-run. Its
 * results go to bench/results/index-busy.json and its target rows are marked busy.
 */
import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { GNU_TIME, interleave, run, summarize, type RunResult, type Timing } from './lib/measure.js';
import { ensureSyntheticVault, type SyntheticVaultSummary } from './synthetic-vault.js';
import { recordTargets, type TargetRow } from './lib/targets.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');
const BENCH_DIR_EARLY = process.env.VAULTGATE_BENCH_DIR ?? '/tmp/vaultgate-bench';

/**
 * Run a private copy of dist/: other engineers rebuild dist/ (npm test does)
 * while a bench runs for minutes, and a schema change mid-run would turn a
 * "no-change refresh" into a full rebuild. package.json comes along for
 * `"type": "module"`, node_modules is linked so bare imports still resolve.
 */
function snapshotCli(): string {
  const snap = path.join(BENCH_DIR_EARLY, 'cli-snapshot');
  fs.rmSync(snap, { recursive: true, force: true });
  fs.mkdirSync(snap, { recursive: true });
  if (!fs.existsSync(path.join(repo, 'dist/cli/main.js'))) return path.join(repo, 'dist/cli/main.js');
  fs.cpSync(path.join(repo, 'dist'), path.join(snap, 'dist'), { recursive: true });
  fs.copyFileSync(path.join(repo, 'package.json'), path.join(snap, 'package.json'));
  fs.symlinkSync(path.join(repo, 'node_modules'), path.join(snap, 'node_modules'));
  return path.join(snap, 'dist/cli/main.js');
}
/**
 * The package's bin (dist/cli/main.cjs), as the peer bench runs it: what
 * `vaultgate` is. Its ES module twin main.js pays Node's ES module loader for the
 * entry too (10–20 ms); figures before commit 2be4eed were of main.js.
 */
const CLI = snapshotCli().replace(/main\.js$/, 'main.cjs');
const STAT_WALK = path.join(here, 'lib/stat-walk.mjs');
const BENCH_DIR = BENCH_DIR_EARLY;
// VAULTGATE_BENCH_SIZES=1000 narrows a run (quick checks); 100k is opt-in: it takes minutes on two cores.
const SIZES = process.env.VAULTGATE_BENCH_SIZES
  ? process.env.VAULTGATE_BENCH_SIZES.split(',').map(Number)
  : [1_000, 10_000, ...(process.env.VAULTGATE_BENCH_100K === '1' ? [100_000] : [])];
const reps = (n: number) => (n >= 100_000 ? 3 : 7);
const BUSY = process.env.VAULTGATE_BENCH_BUSY === '1';
/** The other process of a busy run: one core kept busy until this bench exits. */
function startSpinner(): void {
  const spinner = spawn(process.execPath, ['-e', 'for (;;) {}'], { stdio: 'ignore' });
  // Not a reason to stay alive: the bench exits when done, and takes the spinner with it.
  spinner.unref();
  process.on('exit', () => spinner.kill('SIGKILL'));
  // Interrupted: exit (so the exit handler kills the spinner) with the shell's code for the signal.
  for (const [signal, code] of [['SIGINT', 130], ['SIGTERM', 143]] as const) process.on(signal, () => process.exit(code));
}
const coldReps = (n: number) => (n >= 100_000 ? 1 : 3);
const CONTEXT_QUESTION = 'what did we decide about zephyrine and the budget';
/**
 * Common words (issue 9): every tenth note or more holds them, so a query cost
 * that grows with the number of matching sections shows here and not with the
 * planted term. Words from the generator's common English stock.
 */
const COMMON_QUERY = 'project meeting';
const COMMON_QUESTION = 'what did the team decide about the project budget';

function which(cmd: string): string | null {
  try {
    return execFileSync('sh', ['-c', `command -v ${cmd}`], { encoding: 'utf8' }).trim() || null;
  } catch {
    return null;
  }
}

/** Which read verbs the compiled CLI has: the index engineer lands them concurrently. */
function cliVerbs(): Set<string> {
  if (!fs.existsSync(CLI)) return new Set();
  const r = run(process.execPath, [CLI, '--help']);
  const verbs = new Set<string>();
  for (const line of `${r.stdout}\n${r.stderr}`.split('\n')) {
    const m = /^\s{2}([a-z][\w-]*)/.exec(line);
    if (m) verbs.add(m[1]!);
  }
  return verbs;
}

interface SizeResult {
  notes: number;
  markdownBytes: number;
  vault: SyntheticVaultSummary;
  timings: Record<string, Timing>;
  /** Refresh time reported by the command itself (JSON `took_ms` / `index.took_ms`). */
  selfReportedRefresh: Record<string, Timing>;
  /** Cases whose timed run said it refreshed something although no note changed: such a figure is suspect. */
  unexpectedRefreshes: string[];
  /** `diskBytes`: the cache folder right after the cold index (database, WAL and all). */
  firstSearchAfterCold?: number;
  coldIndex?: Timing & { mbPerSec: number; maxRssKb: number | null; diskBytes: number; cpuMs: number | null; mbPerCpuSec: number | null };
  refreshOneChange?: Timing;
  maxRssKb: Record<string, number | null>;
  hits: Record<string, number | null>;
  skipped: string[];
}

function tookMs(r: RunResult): number | null {
  try {
    const j = JSON.parse(r.stdout) as { took_ms?: number; index?: { took_ms?: number } };
    return j.took_ms ?? j.index?.took_ms ?? null;
  } catch {
    return null;
  }
}

function didRefresh(r: RunResult): boolean {
  try {
    const j = JSON.parse(r.stdout) as { refreshed?: boolean; index?: { refreshed?: boolean } };
    return (j.refreshed ?? j.index?.refreshed) === true;
  } catch {
    return false;
  }
}

function parseTotal(r: RunResult): number | null {
  try {
    const j = JSON.parse(r.stdout) as { total?: number; hits?: unknown[]; evidence?: unknown[] };
    return j.total ?? j.hits?.length ?? j.evidence?.length ?? null;
  } catch {
    return null;
  }
}

function benchSize(n: number, verbs: Set<string>, rg: string | null): SizeResult {
  const vaultDir = path.join(BENCH_DIR, `vault-${n}`);
  const home = path.join(BENCH_DIR, `home-${n}`);
  const t0 = performance.now();
  const vault = ensureSyntheticVault(vaultDir, { notes: n, seed: 1 });
  console.error(`[${n}] vault ready (${(vault.bytes / 1e6).toFixed(1)} MB) in ${Math.round(performance.now() - t0)} ms`);
  const term = vault.plantedTerm;
  const node = process.execPath;
  const env = { VAULTGATE_HOME: home };
  const vg = (...args: string[]) => (rss?: boolean) => run(node, [CLI, '--vault', vaultDir, ...args], { env, rss });
  const result: SizeResult = { notes: vault.notes, markdownBytes: vault.bytes, vault, timings: {}, selfReportedRefresh: {}, unexpectedRefreshes: [], maxRssKb: {}, hits: {}, skipped: [] };
  // The refresh time each command reports about itself (`took_ms`), to split
  // Node start and module loading from the index's own work.
  const selfMs: Record<string, number[]> = {};
  const tap = (name: string, fn: (rss?: boolean) => RunResult) => (rss?: boolean) => {
    const r = fn(rss);
    const t = tookMs(r);
    if (t !== null && !rss) (selfMs[name] ??= []).push(t);
    if (didRefresh(r)) result.unexpectedRefreshes.push(name);
    return r;
  };

  // Each case can run plain (timed) or under GNU time (for peak RSS, untimed).
  const cases: Record<string, (rss?: boolean) => RunResult> = {
    'node -e 0': (rss) => run(node, ['-e', '0'], { rss }),
    'floor (stat walk)': (rss) => run(node, [STAT_WALK, vaultDir], { rss }),
    [`grep -ril ${term}`]: (rss) => run('grep', ['-ril', '--include=*.md', term, vaultDir], { rss }),
  };
  if (rg) cases[`rg -il ${term}`] = (rss) => run(rg, ['-il', term, vaultDir], { rss });

  // The CLI's fixed cost (Node start + loading commander and the command table), no vault work.
  if (verbs.size > 0) cases['vaultgate --version'] = (rss) => run(node, [CLI, '--version'], { rss });
  const hasIndex = verbs.has('index');
  if (hasIndex) {
    // Cold: no cache at all. Wrapped in GNU time for peak RSS (its ~1 ms is noise at this scale).
    const cold: number[] = [];
    const coldCpu: number[] = [];
    let coldRss: number | null = null;
    for (let i = 0; i < coldReps(n); i++) {
      fs.rmSync(home, { recursive: true, force: true });
      const r = vg('index')(true);
      if (r.status !== 0) throw new Error(`index failed: ${r.stdout.slice(0, 400)} ${r.stderr.slice(0, 400)}`);
      cold.push(r.ms);
      if (r.cpuMs != null) coldCpu.push(r.cpuMs);
      coldRss = Math.max(coldRss ?? 0, r.maxRssKb ?? 0) || null;
    }
    const t = summarize(cold);
    // CPU (user + system) per byte: what issue 26 targets, and steadier than wall time on a shared machine.
    const cpuMs = coldCpu.length > 0 ? summarize(coldCpu).median : null;
    result.coldIndex = {
      ...t,
      mbPerSec: vault.bytes / 1e6 / (t.median / 1000),
      maxRssKb: coldRss,
      diskBytes: treeBytes(home),
      cpuMs,
      mbPerCpuSec: cpuMs ? vault.bytes / 1e6 / (cpuMs / 1000) : null,
    };
    console.error(`[${n}] cold index ${Math.round(t.median)} ms`);
    // What the first agent call after a build pays (the interleaved rounds below start warm).
    if (verbs.has('search')) result.firstSearchAfterCold = vg('search', term, '--limit', '10')().ms;
    cases['refresh, no change (index)'] = tap('refresh, no change (index)', vg('index'));
  } else result.skipped.push('index');
  if (verbs.has('search')) cases[`search ${term}`] = tap(`search ${term}`, vg('search', term, '--limit', '10'));
  else result.skipped.push('search');
  if (verbs.has('search')) cases[`search ${COMMON_QUERY}`] = tap(`search ${COMMON_QUERY}`, vg('search', COMMON_QUERY, '--limit', '10'));
  if (verbs.has('context')) {
    cases['context QUESTION'] = tap('context QUESTION', vg('context', CONTEXT_QUESTION));
    cases['context COMMON'] = tap('context COMMON', vg('context', COMMON_QUESTION));
  } else result.skipped.push('context');

  result.timings = interleave(reps(n), cases);
  result.selfReportedRefresh = Object.fromEntries(Object.entries(selfMs).map(([k, v]) => [k, summarize(v)]));
  console.error(`[${n}] interleaved timings done`);

  for (const [name, fn] of Object.entries(cases)) {
    if (name.startsWith('node') || name.startsWith('vaultgate')) continue;
    const r = fn(true);
    result.maxRssKb[name] = r.maxRssKb;
    if (name.startsWith('search') || name.startsWith('context')) result.hits[name] = parseTotal(r);
  }

  if (hasIndex) {
    // One changed note per repetition; the original bytes go back at the end.
    const victim = path.join(vaultDir, firstNote(vaultDir));
    const original = fs.readFileSync(victim);
    const samples: number[] = [];
    try {
      for (let i = 0; i < reps(n); i++) {
        fs.writeFileSync(victim, Buffer.concat([original, Buffer.from(`\nEdited in bench round ${i}.\n`)]));
        const r = vg('index')();
        if (r.status !== 0) throw new Error(`index after change failed: ${r.stderr.slice(0, 400)}`);
        samples.push(r.ms);
      }
    } finally {
      fs.writeFileSync(victim, original);
      vg('index')();
    }
    result.refreshOneChange = summarize(samples);
  }
  return result;
}

function treeBytes(dir: string): number {
  let total = 0;
  for (const e of fs.readdirSync(dir, { withFileTypes: true })) {
    const p = path.join(dir, e.name);
    total += e.isDirectory() ? treeBytes(p) : fs.statSync(p).size;
  }
  return total;
}

function firstNote(vaultDir: string): string {
  const dirs = fs.readdirSync(vaultDir).filter((d) => !d.startsWith('.') && d !== 'Journal').sort();
  for (const d of dirs) {
    const stack = [d];
    while (stack.length) {
      const rel = stack.pop()!;
      for (const e of fs.readdirSync(path.join(vaultDir, rel), { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        if (e.isFile() && e.name.endsWith('.md')) return `${rel}/${e.name}`;
        if (e.isDirectory()) stack.push(`${rel}/${e.name}`);
      }
    }
  }
  throw new Error('no note found');
}

const ms = (t?: Timing) => (t ? `${t.median.toFixed(0)} ms` : 'n/a');
const ratio = (a?: Timing, b?: Timing) => (a && b ? ` (${(a.median / b.median).toFixed(2)}×)` : '');
const mb = (kb: number | null | undefined) => (kb ? `${(kb / 1024).toFixed(0)} MB` : 'n/a');

function table(results: SizeResult[], rgName: string | null): string {
  const term = results[0]!.vault.plantedTerm;
  const rows: [string, (r: SizeResult) => string, string][] = [
    ['notes / Markdown', (r) => `${r.notes} / ${(r.markdownBytes / 1e6).toFixed(1)} MB`, ''],
    ['cold index', (r) => ms(r.coldIndex), ''],
    ['cold index throughput', (r) => (r.coldIndex ? `${r.coldIndex.mbPerSec.toFixed(1)} MB/s` : 'n/a'), '≥ 6 MB/s (idle)'],
    ['cold index CPU (user+sys) / MB per CPU-s', (r) => (r.coldIndex?.cpuMs ? `${(r.coldIndex.cpuMs / 1000).toFixed(1)} s / ${r.coldIndex.mbPerCpuSec!.toFixed(1)} MB/s` : 'n/a'), ''],
    ['cold index peak RSS', (r) => mb(r.coldIndex?.maxRssKb), '100k: < 300 MB'],
    ['index on disk after cold index', (r) => (r.coldIndex ? `${(r.coldIndex.diskBytes / 1e6).toFixed(0)} MB` : 'n/a'), ''],
    ['first search after cold index (1 run)', (r) => (r.firstSearchAfterCold === undefined ? 'n/a' : `${r.firstSearchAfterCold.toFixed(0)} ms`), ''],
    ['node -e 0', (r) => ms(r.timings['node -e 0']), ''],
    ['floor = stat walk', (r) => ms(r.timings['floor (stat walk)']), ''],
    ['vaultgate --version (CLI start)', (r) => ms(r.timings['vaultgate --version']) + ratio(r.timings['vaultgate --version'], r.timings['floor (stat walk)']), ''],
    ['refresh, no change', (r) => ms(r.timings['refresh, no change (index)']) + ratio(r.timings['refresh, no change (index)'], r.timings['floor (stat walk)']), '≤ 1.2× stat walk'],
    ['  refresh inside it (self-reported)', (r) => ms(r.selfReportedRefresh['refresh, no change (index)']), ''],
    ['refresh, one note changed', (r) => ms(r.refreshOneChange) + ratio(r.refreshOneChange, r.timings['floor (stat walk)']), ''],
    [`search ${term} (rare)`, (r) => ms(r.timings[`search ${term}`]) + ratio(r.timings[`search ${term}`], r.timings['floor (stat walk)']), '≤ 1.3× floor'],
    ['  refresh inside search (self-reported)', (r) => ms(r.selfReportedRefresh[`search ${term}`]), ''],
    [`search ${COMMON_QUERY} (common)`, (r) => ms(r.timings[`search ${COMMON_QUERY}`]) + ratio(r.timings[`search ${COMMON_QUERY}`], r.timings['floor (stat walk)']), '≤ 1.3× floor'],
    ['context QUESTION (rare word)', (r) => ms(r.timings['context QUESTION']) + ratio(r.timings['context QUESTION'], r.timings['floor (stat walk)']), '≤ 1.6× floor'],
    ['context COMMON (common words)', (r) => ms(r.timings['context COMMON']) + ratio(r.timings['context COMMON'], r.timings['floor (stat walk)']), '≤ 1.6× floor'],
    [`grep -ril ${term}`, (r) => ms(r.timings[`grep -ril ${term}`]) + ratio(r.timings[`grep -ril ${term}`], r.timings['floor (stat walk)']), ''],
    ...(rgName ? ([[rgName, (r: SizeResult) => ms(r.timings[rgName]) + ratio(r.timings[rgName], r.timings['floor (stat walk)']), '']] as [string, (r: SizeResult) => string, string][]) : []),
    ['search / context peak RSS (common)', (r) => `${mb(r.maxRssKb[`search ${COMMON_QUERY}`])} / ${mb(r.maxRssKb['context COMMON'])}`, ''],
    ['search hits (planted notes)', (r) => `${r.hits[`search ${term}`] ?? 'n/a'} (${r.vault.plantedNotes})`, ''],
    [`search ${COMMON_QUERY}: total`, (r) => `${r.hits[`search ${COMMON_QUERY}`] ?? 'n/a'}`, ''],
  ];
  const head = ['measurement (median, whole process)', ...results.map((r) => `${r.notes / 1000}k notes`), 'target (10k)'];
  const body = rows.map(([label, f, target]) => [label, ...results.map(f), target]);
  const widths = head.map((_, c) => Math.max(...[head, ...body].map((row) => row[c]!.length)));
  const line = (row: string[]) => `| ${row.map((cell, c) => cell.padEnd(widths[c]!)).join(' | ')} |`;
  return [line(head), `|${widths.map((w) => '-'.repeat(w + 2)).join('|')}|`, ...body.map(line)].join('\n');
}

const rgPath = which('rg');
const verbs = cliVerbs();
console.error(`vaultgate verbs: ${[...verbs].join(', ') || '(none: run `npx tsc -p .`)'}; rg: ${rgPath ?? 'absent'}; GNU time: ${GNU_TIME ?? 'absent'}`);
fs.mkdirSync(BENCH_DIR, { recursive: true });
if (BUSY) {
  startSpinner();
  console.error('busy machine: another process spins on one core for the whole run (VAULTGATE_BENCH_BUSY=1)');
}
const results = SIZES.map((n) => benchSize(n, verbs, rgPath));
const rgName = rgPath ? `rg -il ${results[0]!.vault.plantedTerm}` : null;
if (BUSY) console.log('busy machine: another process spun one core for the whole run (VAULTGATE_BENCH_BUSY=1)');
console.log(table(results, rgName));
for (const r of results) {
  const odd = [...new Set(r.unexpectedRefreshes)];
  if (odd.length) console.log(`\nwarning (${r.notes} notes): these runs refreshed the index although nothing changed: ${odd.join(', ')}`);
}
const skipped = [...new Set(results.flatMap((r) => r.skipped))];
if (skipped.length) console.log(`\nnot measured (verbs missing from the CLI): ${skipped.join(', ')}`);

// Issue 26's targets, for the one table bench/run.ts prints (bench/lib/targets.ts).
{
  const at = (n: number) => results.find((r) => r.notes === n);
  const over = (r: SizeResult | undefined, a: string, b: string) => (r?.timings[a] && r.timings[b] ? r.timings[a]!.median / r.timings[b]!.median : null);
  const r10 = at(10_000);
  const r100 = at(100_000);
  const term = results[0]!.vault.plantedTerm;
  const rows: TargetRow[] = [
    { issue: '#26', what: 'cold index, 10k notes', value: r10?.coldIndex?.mbPerSec ?? null, unit: 'MB/s', bound: '>=', limit: 6, note: 'wall' },
    { issue: '#26', what: 'cold index, 10k notes, per CPU-second', value: r10?.coldIndex?.mbPerCpuSec ?? null, unit: 'MB/s', bound: '>=', limit: 6, note: 'user+sys' },
    { issue: '#26', what: 'cold index peak RSS, 100k notes', value: r100?.coldIndex?.maxRssKb ? r100.coldIndex.maxRssKb / 1024 : null, unit: 'MB', bound: '<', limit: 300, note: r100 ? undefined : 'VAULTGATE_BENCH_100K=1' },
    { issue: '#26', what: 'search (common words) / floor, 10k', value: over(r10, `search ${COMMON_QUERY}`, 'floor (stat walk)'), unit: '×', bound: '<=', limit: 1.3 },
    { issue: '#26', what: `search (rare word) / floor, 10k`, value: over(r10, `search ${term}`, 'floor (stat walk)'), unit: '×', bound: '<=', limit: 1.3 },
    { issue: '#26', what: 'refresh, no change / stat walk, 10k', value: over(r10, 'refresh, no change (index)', 'floor (stat walk)'), unit: '×', bound: '<=', limit: 1.2 },
    { issue: '#26', what: 'context (rare word) / floor, 10k', value: over(r10, 'context QUESTION', 'floor (stat walk)'), unit: '×', bound: '<=', limit: 1.6 },
    { issue: '#26', what: 'context (common words) / floor, 10k', value: over(r10, 'context COMMON', 'floor (stat walk)'), unit: '×', bound: '<=', limit: 1.6 },
    { issue: '#26', what: 'vaultgate --version / node -e 0', value: over(r10 ?? results[0], 'vaultgate --version', 'node -e 0'), unit: '×', bound: '<=', limit: 1.5 },
  ];
  if (BUSY) for (const row of rows) row.note = row.note ? `${row.note}, busy` : 'busy';
  recordTargets(BUSY ? 'index-busy' : 'index', rows);
}

const git = (...a: string[]) => {
  try {
    return execFileSync('git', a, { cwd: repo, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
};
const out = {
  schema: 1,
  bench: 'index',
  busy: BUSY,
  date: new Date().toISOString(),
  commit: git('rev-parse', '--short', 'HEAD'),
  // dist/ is built from the working tree: figures from a dirty src/ are not reproducible from the commit alone.
  srcDirty: (git('status', '--porcelain', '--', 'src') ?? '') !== '',
  machine: { cpus: os.cpus().length, cpuModel: os.cpus()[0]?.model ?? null, node: process.version, loadavg: os.loadavg(), totalMemMb: Math.round(os.totalmem() / 2 ** 20) },
  notes: 'whole-process wall times in ms, medians of interleaved repetitions, warm page cache; NODE_EXTRA_CA_CERTS unset in children; RSS in KiB from GNU time',
  contextQuestion: CONTEXT_QUESTION,
  commonQuery: COMMON_QUERY,
  commonQuestion: COMMON_QUESTION,
  targets10k: { searchVsFloor: 1.3, contextVsFloor: 1.6, refreshVsStatWalk: 1.2, coldIndexMbPerSec: 6, rss100kMb: 300 },
  results: results.map(({ vault, ...r }) => ({ ...r, vault: { ...vault, options: undefined } })),
};
fs.mkdirSync(path.join(here, 'results'), { recursive: true });
const resultsFile = BUSY ? 'results/index-busy.json' : 'results/index.json';
fs.writeFileSync(path.join(here, resultsFile), `${JSON.stringify(out, null, 2)}\n`);
console.log(`\nwrote bench/${resultsFile}`);
