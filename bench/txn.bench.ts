/**
 * `npm run bench -- txn`: what the transaction engine's guarantees cost.
 *
 * For bundles replacing 1, 4 and 40 notes (4 KiB each), the engine's apply is
 * timed in-process (lock, recovery scan, re-plan with hashing, journal, backups,
 * temp + fsync + rename + folder fsync per file, verify, history) against the
 * least a durable writer can do for the same files in the same folder: temp +
 * write + fsync + rename + folder fsync, per file. Same run, same disk,
 * interleaved repetitions, medians. Target (issue 3): ≤ 3× for 4 files; reported,
 * never asserted. Inspect (hashing for the approval) happens before each timed
 * apply and is not counted: a person reads the diff between the two.
 *
 * Results: a table on stdout and bench/results/txn.json.
 */
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { applyBundle, inspectBundle, initVault, parseBundle } from '../src/txn/index.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const SIZES = [1, 4, 40];
const REPS = Number(process.env.VAULTGATE_BENCH_REPS ?? 21);
const FILE_BYTES = 4096;
const BASE = fs.mkdtempSync(path.join(process.env.VAULTGATE_BENCH_DIR ?? os.tmpdir(), 'vaultgate-txn-bench-'));

const note = (n: number, rep: number) => Buffer.alloc(FILE_BYTES, `note ${n} revision ${rep}\n`);

/** The minimal durable write of one file: what any careful editor does. */
function durableWrite(dir: string, name: string, bytes: Buffer): void {
  const tmp = path.join(dir, `.${name}.tmp`);
  const fd = fs.openSync(tmp, 'wx', 0o644);
  fs.writeSync(fd, bytes);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(tmp, path.join(dir, name));
  const dfd = fs.openSync(dir, 'r');
  fs.fsyncSync(dfd);
  fs.closeSync(dfd);
}

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)]!;
}

async function main() {
  const rows: Array<{ files: number; engine_ms: number; baseline_ms: number; ratio: number; engine_p90_ms: number; baseline_p90_ms: number }> = [];
  for (const n of SIZES) {
    const vault = path.join(BASE, `vault-${n}`);
    const plain = path.join(BASE, `plain-${n}`);
    fs.mkdirSync(path.join(vault, 'notes'), { recursive: true });
    fs.mkdirSync(path.join(plain, 'notes'), { recursive: true });
    for (let i = 0; i < n; i++) {
      fs.writeFileSync(path.join(vault, 'notes', `n${i}.md`), note(i, 0));
      fs.writeFileSync(path.join(plain, 'notes', `n${i}.md`), note(i, 0));
    }
    initVault(vault);
    const engine: number[] = [];
    const baseline: number[] = [];
    for (let rep = 1; rep <= REPS + 2; rep++) {
      const writes = Array.from({ length: n }, (_, i) => ({ path: `notes/n${i}.md`, mode: 'replace', content: note(i, rep).toString() }));
      const expected = Object.fromEntries(writes.map((w) => [w.path, sha(fs.readFileSync(path.join(vault, w.path)))]));
      const bundle = parseBundle(
        Buffer.from(JSON.stringify({ schema: 'vaultgate.transaction.v1', operation_id: `bench-${n}-${rep}`, operation_type: 'note', writes, expected_hashes: expected, read_preconditions: {} })),
        { baseDir: vault },
      );
      const { approval_sha256 } = inspectBundle(vault, bundle);
      // interleave, alternating which goes first, so drift in the disk hits both
      const runEngine = async () => {
        const t0 = process.hrtime.bigint();
        await applyBundle(vault, bundle, approval_sha256);
        return Number(process.hrtime.bigint() - t0) / 1e6;
      };
      const runBaseline = () => {
        const t0 = process.hrtime.bigint();
        for (let i = 0; i < n; i++) durableWrite(path.join(plain, 'notes'), `n${i}.md`, note(i, rep));
        return Number(process.hrtime.bigint() - t0) / 1e6;
      };
      let e: number;
      let b: number;
      if (rep % 2) (e = await runEngine(), b = runBaseline());
      else (b = runBaseline(), e = await runEngine());
      if (rep > 2) (engine.push(e), baseline.push(b)); // two warm-up rounds
    }
    const p90 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length * 0.9)]!;
    rows.push({ files: n, engine_ms: round(median(engine)), baseline_ms: round(median(baseline)), ratio: round(median(engine) / median(baseline)), engine_p90_ms: round(p90(engine)), baseline_p90_ms: round(p90(baseline)) });
  }
  const fsType = (() => {
    try {
      return fs.readFileSync('/proc/mounts', 'utf8').split('\n').map((l) => l.split(' ')).filter((f) => f[1] && BASE.startsWith(f[1])).sort((a, b) => b[1]!.length - a[1]!.length)[0]?.[2] ?? 'unknown';
    } catch {
      return 'unknown';
    }
  })();
  console.log(`txn apply vs minimal durable write (temp + fsync + rename + dir fsync), ${FILE_BYTES}-byte notes, ${REPS} reps, medians; ${BASE} (${fsType})`);
  console.log('files | engine ms | baseline ms | ratio | engine p90 | baseline p90');
  console.log('------|-----------|-------------|-------|------------|-------------');
  for (const r of rows) {
    console.log(`${String(r.files).padStart(5)} | ${r.engine_ms.toFixed(2).padStart(9)} | ${r.baseline_ms.toFixed(2).padStart(11)} | ${r.ratio.toFixed(2).padStart(5)} | ${r.engine_p90_ms.toFixed(2).padStart(10)} | ${r.baseline_p90_ms.toFixed(2).padStart(12)}`);
  }
  const four = rows.find((r) => r.files === 4)!;
  console.log(`4-file ratio ${four.ratio.toFixed(2)}× (target ≤ 3×): ${four.ratio <= 3 ? 'met' : 'NOT met'}`);
  const out = path.join(here, 'results', 'txn.json');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  fs.writeFileSync(out, JSON.stringify({ bench: 'txn', date: new Date().toISOString(), node: process.version, cpus: os.cpus().length, fs: fsType, file_bytes: FILE_BYTES, reps: REPS, target: { files: 4, max_ratio: 3 }, rows }, null, 2) + '\n');
  fs.rmSync(BASE, { recursive: true, force: true });
}

const round = (x: number) => Math.round(x * 100) / 100;
function sha(b: Buffer): string {
  return crypto.createHash('sha256').update(b).digest('hex');
}
await main();
