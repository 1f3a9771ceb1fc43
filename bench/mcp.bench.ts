/**
 * `npm run bench -- mcp`: a warm `search` through the long-lived MCP server
 * (`vaultgate mcp`, index kept open, still refreshed before every call) against
 * the whole-process CLI `search` an agent pays when it shells out, on the 10k
 * synthetic vault (VAULTGATE_BENCH_SIZES=1000 for a quick run).
 *
 * - CLI: `node dist/cli/main.js search Q --limit 10`, wall time of the process.
 * - MCP warm: one `tools/call search` from the SDK client over stdio to a
 *   server started once, wall time from request to parsed result.
 * - MCP first call: server start + initialize + the first search (index
 *   already built), for scale.
 * Rounds interleave CLI and MCP calls (the machine is shared). Medians.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { benchEnv, run, summarize, type Timing } from './lib/measure.js';
import { ensureSyntheticVault } from './synthetic-vault.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const repo = path.resolve(here, '..');
const BENCH_DIR = process.env.VAULTGATE_BENCH_DIR ?? '/tmp/vaultgate-bench';
const SIZES = process.env.VAULTGATE_BENCH_SIZES ? process.env.VAULTGATE_BENCH_SIZES.split(',').map(Number) : [10_000];
const REPS = 15;

/** A private copy of dist/ (others rebuild it while a bench runs). */
function snapshotCli(): string {
  const snap = path.join(BENCH_DIR, 'cli-snapshot-mcp');
  fs.rmSync(snap, { recursive: true, force: true });
  fs.mkdirSync(snap, { recursive: true });
  fs.cpSync(path.join(repo, 'dist'), path.join(snap, 'dist'), { recursive: true });
  fs.cpSync(path.join(repo, 'docs'), path.join(snap, 'docs'), { recursive: true });
  fs.copyFileSync(path.join(repo, 'package.json'), path.join(snap, 'package.json'));
  fs.symlinkSync(path.join(repo, 'node_modules'), path.join(snap, 'node_modules'));
  return path.join(snap, 'dist/cli/main.js');
}

const ms = (t: Timing) => `${t.median.toFixed(1)} ms (min ${t.min.toFixed(1)}, max ${t.max.toFixed(1)})`;

async function benchSize(cli: string, n: number) {
  const vault = path.join(BENCH_DIR, `vault-${n}`);
  const home = path.join(BENCH_DIR, `home-${n}`);
  const summary = ensureSyntheticVault(vault, { notes: n, seed: 1 });
  const env = { VAULTGATE_HOME: home };
  const index = run(process.execPath, [cli, '--vault', vault, 'index'], { env });
  if (index.status !== 0) throw new Error(`index failed: ${index.stderr}`);
  const queries = [summary.plantedTerm, 'what did we decide about the budget'];

  const started = performance.now();
  const transport = new StdioClientTransport({ command: process.execPath, args: [cli, 'mcp', '--vault', vault], env: benchEnv(env) as Record<string, string>, stderr: 'ignore' });
  const client = new Client({ name: 'vaultgate-bench', version: '1' });
  await client.connect(transport);
  const first = await client.callTool({ name: 'search', arguments: { query: queries[0], limit: 10 } });
  const firstCallMs = performance.now() - started;
  if (first.isError) throw new Error(`mcp search failed: ${JSON.stringify(first.content)}`);

  const out: Record<string, { cli: Timing; mcp: Timing; hits: { cli: number; mcp: number } }> = {};
  for (const q of queries) {
    const cliSamples: number[] = [];
    const mcpSamples: number[] = [];
    let cliTotal = -1;
    let mcpTotal = -1;
    // one untimed warm-up of each
    run(process.execPath, [cli, '--vault', vault, 'search', q, '--limit', '10'], { env });
    await client.callTool({ name: 'search', arguments: { query: q, limit: 10 } });
    for (let i = 0; i < REPS; i++) {
      const r = run(process.execPath, [cli, '--vault', vault, 'search', q, '--limit', '10'], { env });
      if (r.status !== 0) throw new Error(r.stderr);
      cliSamples.push(r.ms);
      cliTotal = JSON.parse(r.stdout).total;
      const t0 = performance.now();
      const m = (await client.callTool({ name: 'search', arguments: { query: q, limit: 10 } })) as { structuredContent?: { total: number } };
      mcpSamples.push(performance.now() - t0);
      mcpTotal = m.structuredContent!.total;
    }
    out[q] = { cli: summarize(cliSamples), mcp: summarize(mcpSamples), hits: { cli: cliTotal, mcp: mcpTotal } };
  }
  await client.close();
  return { notes: summary.notes, bytes: summary.bytes, firstCallMs, queries: out };
}

const cli = snapshotCli();
const results = [];
for (const n of SIZES) {
  const r = await benchSize(cli, n);
  results.push(r);
  console.log(`\n${r.notes} notes (${(r.bytes / 1e6).toFixed(1)} MB); MCP server start + initialize + first search: ${r.firstCallMs.toFixed(0)} ms`);
  for (const [q, t] of Object.entries(r.queries)) {
    console.log(`  search ${JSON.stringify(q)}  (total ${t.hits.cli} / ${t.hits.mcp})`);
    console.log(`    CLI, whole process   ${ms(t.cli)}`);
    console.log(`    MCP, warm tool call  ${ms(t.mcp)}   ${(t.cli.median / t.mcp.median).toFixed(1)}× faster`);
  }
}
const git = (...args: string[]) => {
  try {
    return execFileSync('git', args, { cwd: repo, encoding: 'utf8' }).trim();
  } catch {
    return null;
  }
};
fs.mkdirSync(path.join(here, 'results'), { recursive: true });
fs.writeFileSync(
  path.join(here, 'results/mcp.json'),
  JSON.stringify(
    {
      bench: 'mcp',
      date: new Date().toISOString(),
      commit: git('rev-parse', '--short', 'HEAD'),
      machine: { cpus: os.cpus().length, node: process.version, loadavg: os.loadavg() },
      notes: `medians of ${REPS} interleaved rounds; CLI = whole process; MCP = one tools/call to a running server (index open, refreshed before the call)`,
      results,
    },
    null,
    2,
  ) + '\n',
);
console.log('\nwrote bench/results/mcp.json');
