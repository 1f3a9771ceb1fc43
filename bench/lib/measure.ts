/**
 * Whole-process timing for benchmarks. Every child runs with
 * NODE_EXTRA_CA_CERTS removed: this machine sets it and it adds ~30 ms to each
 * Node start, which would inflate the floor and flatter every ratio.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';

export interface RunOptions {
  env?: Record<string, string | undefined>;
  cwd?: string;
  /** Wrap in /usr/bin/time -v to read the child's peak RSS (adds ~1 ms; used only for RSS runs). */
  rss?: boolean | undefined;
  timeoutMs?: number;
}

export interface RunResult {
  ms: number;
  status: number;
  stdout: string;
  stderr: string;
  /** Peak resident set size in KiB when `rss` was asked for and measurable. */
  maxRssKb: number | null;
  /** User + system CPU time in ms, read with the peak RSS (null otherwise): steadier than wall time on a shared machine. */
  cpuMs?: number | null;
}

export const GNU_TIME = fs.existsSync('/usr/bin/time') ? '/usr/bin/time' : null;

export function benchEnv(extra: Record<string, string | undefined> = {}): NodeJS.ProcessEnv {
  const env: Record<string, string | undefined> = { ...process.env, ...extra };
  delete env.NODE_EXTRA_CA_CERTS;
  delete env.VAULTGATE_VAULT;
  for (const [k, v] of Object.entries(env)) if (v === undefined) delete env[k];
  return env as NodeJS.ProcessEnv;
}

export function run(cmd: string, args: string[], opts: RunOptions = {}): RunResult {
  const wrap = opts.rss === true && GNU_TIME !== null;
  const [file, argv] = wrap ? [GNU_TIME!, ['-v', cmd, ...args]] : [cmd, args];
  const started = process.hrtime.bigint();
  const r = spawnSync(file, argv, {
    env: benchEnv(opts.env),
    cwd: opts.cwd,
    encoding: 'utf8',
    maxBuffer: 256 * 1024 * 1024,
    timeout: opts.timeoutMs ?? 30 * 60_000,
  });
  const ms = Number(process.hrtime.bigint() - started) / 1e6;
  let stderr = r.stderr ?? '';
  let maxRssKb: number | null = null;
  let cpuMs: number | null = null;
  if (wrap) {
    const m = /Maximum resident set size \(kbytes\): (\d+)/.exec(stderr);
    if (m) maxRssKb = Number(m[1]);
    const u = /User time \(seconds\): ([\d.]+)/.exec(stderr);
    const sy = /System time \(seconds\): ([\d.]+)/.exec(stderr);
    if (u && sy) cpuMs = Math.round((Number(u[1]) + Number(sy[1])) * 1000);
    // GNU time appends its report; keep the child's own stderr readable.
    const cut = stderr.lastIndexOf('\tCommand being timed:');
    if (cut >= 0) stderr = stderr.slice(0, cut);
  }
  return { ms, status: r.status ?? (r.signal ? 128 : 1), stdout: r.stdout ?? '', stderr, maxRssKb, cpuMs };
}

export interface Timing {
  median: number;
  min: number;
  max: number;
  samples: number[];
}

export function summarize(samples: number[]): Timing {
  const s = [...samples].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  const median = s.length % 2 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  return { median, min: s[0]!, max: s[s.length - 1]!, samples };
}

/**
 * Time several commands in rounds (A B C, A B C, ...) rather than A A A, B B B:
 * the machine is shared, and interleaving spreads a burst of someone else's
 * load over all contenders instead of one. One untimed warm-up round first
 * (page cache, JIT of the loader).
 */
export function interleave(reps: number, cases: Record<string, (rss?: boolean) => RunResult>): Record<string, Timing> {
  const samples: Record<string, number[]> = {};
  for (const [name, fn] of Object.entries(cases)) {
    const r = fn();
    if (r.status !== 0) throw new Error(`${name} failed (exit ${r.status}): ${r.stderr.slice(0, 500) || r.stdout.slice(0, 500)}`);
    samples[name] = [];
  }
  for (let i = 0; i < reps; i++) {
    for (const [name, fn] of Object.entries(cases)) {
      const r = fn();
      if (r.status !== 0) throw new Error(`${name} failed (exit ${r.status}): ${r.stderr.slice(0, 500)}`);
      samples[name]!.push(r.ms);
    }
  }
  return Object.fromEntries(Object.entries(samples).map(([k, v]) => [k, summarize(v)]));
}
