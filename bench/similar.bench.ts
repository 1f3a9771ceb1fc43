/**
 * `npm run bench -- similar`: `vaultgate similar` on the synthetic vault
 * (10k notes; VAULTGATE_BENCH_SIZES=1000,10000 for others), whole process:
 * - first run: no vectors yet (the index is built beforehand, untimed) —
 *   reading every section from the index, tokenising it, training the LSA
 *   model, projecting and storing every section;
 * - warm: nothing changed (load the vectors, score against every note);
 * - incremental: one note changed (index refresh + fold-in of that note);
 * - `--to` (one pair) and `--duplicates` (the whole vault), warm.
 * Each figure is the median of a few runs; CPU time (user + sys, steadier
 * than wall time on a shared machine) and peak RSS under GNU time. Targets
 * (issue 26): first run ≤ 20 s and < 300 MB, warm `similar NOTE` ≤ 0.5 s. The vault is a private copy, so other benches are not disturbed.
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { run, summarize, type Timing } from './lib/measure.js';
import { snapshotCli } from './lib/snapshot-cli.js';
import { ensureSyntheticVault } from './synthetic-vault.js';
import { recordTargets, type TargetRow } from './lib/targets.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');
const BENCH_DIR = process.env.VAULTGATE_BENCH_DIR ?? '/tmp/vaultgate-bench';
const SIZES = process.env.VAULTGATE_BENCH_SIZES ? process.env.VAULTGATE_BENCH_SIZES.split(',').map(Number) : [10_000];

function notesOf(dir: string, rel = ''): string[] {
  const out: string[] = [];
  for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true }).sort((a, b) => (a.name < b.name ? -1 : 1))) {
    if (e.name.startsWith('.')) continue;
    const r = rel ? `${rel}/${e.name}` : e.name;
    if (e.isDirectory()) out.push(...notesOf(dir, r));
    else if (e.name.endsWith('.md')) out.push(r);
  }
  return out;
}

// a private copy of dist/ (others rebuild dist/ while a bench runs)
const CLI = snapshotCli(repo, path.join(BENCH_DIR, 'cli-snapshot-similar'));
const results: Record<string, unknown> = {};
const targets: TargetRow[] = [];
for (const n of SIZES) {
  const shared = path.join(BENCH_DIR, `vault-${n}`);
  const vaultDir = path.join(BENCH_DIR, `similar-vault-${n}`);
  const home = path.join(BENCH_DIR, `similar-home-${n}`);
  if (!fs.existsSync(vaultDir)) {
    if (fs.existsSync(path.join(shared, '.synthetic-vault.json'))) fs.cpSync(shared, vaultDir, { recursive: true });
    else ensureSyntheticVault(vaultDir, { notes: n, seed: 1 });
  }
  const vg = (args: string[], rss = false) => {
    const r = run(process.execPath, [CLI, '--vault', vaultDir, ...args], { env: { VAULTGATE_HOME: home }, rss, timeoutMs: 30 * 60_000 });
    if (r.status !== 0) throw new Error(`${args.join(' ')} failed (exit ${r.status}): ${r.stdout.slice(0, 400)} ${r.stderr.slice(0, 400)}`);
    return r;
  };
  const notes = notesOf(vaultDir);
  const query = notes[Math.floor(notes.length / 3)]!;
  const other = notes[Math.floor((2 * notes.length) / 3)]!;
  const victim = notes[Math.floor(notes.length / 2)]!;
  fs.rmSync(home, { recursive: true, force: true });
  vg(['index']);
  const vectorsFile = () => {
    const cache = path.join(home, 'cache');
    // The vault's cache folder (the one holding its index), not the code cache beside it.
    return path.join(cache, fs.readdirSync(cache).find((d) => fs.existsSync(path.join(cache, d, 'index.sqlite')))!, 'vectors.sqlite');
  };
  const self = (r: { stdout: string }) => (JSON.parse(r.stdout) as { vectors: { took_ms: number; embedded: number; retrained: boolean; notes: number } }).vectors;

  const first: number[] = [];
  const firstCpu: number[] = [];
  const firstSelf: number[] = [];
  let rss: number | null = null;
  for (let i = 0; i < 2; i++) {
    for (const f of [vectorsFile(), `${vectorsFile()}-wal`, `${vectorsFile()}-shm`]) fs.rmSync(f, { force: true });
    const r = vg(['similar', query], true);
    rss = Math.max(rss ?? 0, r.maxRssKb ?? 0) || null;
    first.push(r.ms);
    if (r.cpuMs != null) firstCpu.push(r.cpuMs);
    firstSelf.push(self(r).took_ms);
    if (i === 0) {
      const s = self(r);
      console.error(`[${n}] first run: ${s.notes} notes, retrained ${s.retrained}, vectors ${s.took_ms} ms`);
    }
  }
  const warmRuns = Array.from({ length: 5 }, () => vg(['similar', query], true));
  const warm = summarize(warmRuns.map((r) => r.ms));
  const warmCpu = warmRuns.every((r) => r.cpuMs != null) ? summarize(warmRuns.map((r) => r.cpuMs!)) : null;
  const original = fs.readFileSync(path.join(vaultDir, victim));
  const incremental: number[] = [];
  const incrementalSelf: number[] = [];
  try {
    for (let i = 0; i < 5; i++) {
      fs.writeFileSync(path.join(vaultDir, victim), Buffer.concat([original, Buffer.from(`\nEdited in similar bench round ${i}: cache expiry and eviction.\n`)]));
      const r = vg(['similar', query]);
      const s = self(r);
      if (s.embedded !== 1 || s.retrained) throw new Error(`expected one note folded in, got ${JSON.stringify(s)}`);
      incremental.push(r.ms);
      incrementalSelf.push(s.took_ms);
    }
  } finally {
    fs.writeFileSync(path.join(vaultDir, victim), original);
  }
  vg(['similar', query]);
  const to = summarize(Array.from({ length: 3 }, () => vg(['similar', query, '--to', other]).ms));
  const dup = summarize(Array.from({ length: 2 }, () => vg(['similar', '--duplicates']).ms));
  const vectorsBytes = fs.statSync(vectorsFile()).size;
  const row = {
    notes: notes.length,
    first_run: summarize(first),
    first_run_cpu_ms: firstCpu.length ? summarize(firstCpu) : null,
    first_run_vectors_ms: summarize(firstSelf),
    first_run_peak_rss_kb: rss,
    warm,
    warm_cpu_ms: warmCpu,
    incremental_one_note: summarize(incremental),
    incremental_vectors_ms: summarize(incrementalSelf),
    pair_to: to,
    duplicates: dup,
    vectors_bytes: vectorsBytes,
  };
  results[String(n)] = row;
  const k = `${n / 1000}k notes`;
  targets.push(
    { issue: '#26', what: `similar first run, ${k}`, value: row.first_run.median / 1000, unit: 's', bound: '<=', limit: 20, note: 'wall' },
    { issue: '#26', what: `similar first run peak RSS, ${k}`, value: rss ? rss / 1024 : null, unit: 'MB', bound: '<', limit: 300 },
    { issue: '#26', what: `warm similar NOTE, ${k}`, value: warm.median / 1000, unit: 's', bound: '<=', limit: 0.5, note: 'wall' },
  );
  const f = (t: Timing) => `${Math.round(t.median)} ms`;
  const cpu = (t: Timing | null) => (t ? f(t) : 'n/a');
  console.log(`\nsimilar on ${notes.length} synthetic notes (whole process, median; CPU = user + sys)`);
  console.log(`| case | wall | CPU | of which vectors | target |`);
  console.log(`|---|---|---|---|---|`);
  console.log(`| first run (train LSA, embed every section) | ${f(row.first_run)} | ${cpu(row.first_run_cpu_ms)} | ${f(row.first_run_vectors_ms)} | ≤ 20 s, < 300 MB |`);
  console.log(`| warm \`similar NOTE\`, nothing changed | ${f(warm)} | ${cpu(warmCpu)} | | ≤ 0.5 s |`);
  console.log(`| one note changed (refresh + fold-in) | ${f(row.incremental_one_note)} | | ${f(row.incremental_vectors_ms)} | |`);
  console.log(`| --to (one pair) | ${f(to)} | | | |`);
  console.log(`| --duplicates (whole vault) | ${f(dup)} | | | |`);
  console.log(`peak RSS of the first run (largest of ${first.length}): ${rss ? `${Math.round(rss / 1024)} MB` : 'n/a'}; vectors.sqlite ${(vectorsBytes / 1e6).toFixed(1)} MB`);
}
recordTargets('similar', targets);
fs.mkdirSync(path.join(here, 'results'), { recursive: true });
fs.writeFileSync(path.join(here, 'results', 'similar.json'), `${JSON.stringify({ date: new Date().toISOString(), results }, null, 2)}\n`);
