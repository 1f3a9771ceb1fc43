import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { inspectBundle, parseBundle, txStatus } from '../../src/txn/index.js';
import { CLI_BIN, runCliProcess } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';
import { sha, vaultImage } from '../unit/txn/txn-helpers.js';

/**
 * Real crashes (issue #3 §5): a child process applies a 200-file bundle of 200 KB
 * files (replace, create, delete, move) and is killed with SIGKILL at a random
 * moment. A new process recovers (with a lock timeout of 0: the dead owner's lock
 * must be reaped at once). The vault must equal all-before or all-after, with no
 * temp file or created folder left. The vault flips between the two states, so
 * each round applies the forward or the backward bundle.
 */
const FILES = 200;
const SIZE = 200 * 1024;
const KILLS = Number(process.env.VAULTGATE_CRASH_KILLS ?? 24);

let seed = 0x5eed;
const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);

function content(tag: string, n: number): Buffer {
  const b = Buffer.alloc(SIZE, `${tag}-${n}-`);
  b.write(`${tag} file ${n}\n`);
  return b;
}

test(`SIGKILL at ${KILLS} random moments of a 200 × 200 KB apply: recovery leaves all-before or all-after`, async (t) => {
  const files: Record<string, Buffer> = {};
  for (let n = 0; n < 150; n++) files[`notes/n${n}.md`] = content('old', n);
  const { root, home } = tempVault(files);
  // The backward bundle cannot delete folders, so both states have them; creating
  // folders (and sweeping them on rollback) is covered by the fault matrix.
  for (const d of ['created/c0', 'created/c1', 'created/c2', 'created/c3', 'moved']) fs.mkdirSync(path.join(root, d), { recursive: true });
  const work = path.dirname(root);
  const cdir = path.join(work, 'content');
  fs.mkdirSync(cdir);
  // forward: 120 replace, 40 create (in new folders), 20 delete, 20 move
  type W = { path: string; mode: string; content_file?: string; sha256?: string; to?: string };
  const fwd: W[] = [];
  const bwd: W[] = [];
  const put = (name: string, bytes: Buffer) => {
    fs.writeFileSync(path.join(cdir, name), bytes);
    return { content_file: path.join(cdir, name), sha256: sha(bytes) };
  };
  for (let n = 0; n < 120; n++) {
    fwd.push({ path: `notes/n${n}.md`, mode: 'replace', ...put(`new${n}`, content('new', n)) });
    bwd.push({ path: `notes/n${n}.md`, mode: 'replace', ...put(`old${n}`, content('old', n)) });
  }
  for (let n = 0; n < 40; n++) {
    fwd.push({ path: `created/c${n % 4}/c${n}.md`, mode: 'create', ...put(`c${n}`, content('created', n)) });
    bwd.push({ path: `created/c${n % 4}/c${n}.md`, mode: 'delete' });
  }
  for (let n = 120; n < 140; n++) {
    fwd.push({ path: `notes/n${n}.md`, mode: 'delete' });
    bwd.push({ path: `notes/n${n}.md`, mode: 'create', ...put(`old${n}`, content('old', n)) });
  }
  for (let n = 140; n < 150; n++) {
    fwd.push({ path: `notes/n${n}.md`, mode: 'move', to: `moved/n${n}.md` });
    bwd.push({ path: `moved/n${n}.md`, mode: 'move', to: `notes/n${n}.md` });
  }
  assert.equal(fwd.length, FILES - 10);
  const imageBefore = vaultImage(root);
  const bundleFor = (dir: 'fwd' | 'bwd', round: number) => {
    const writes = dir === 'fwd' ? fwd : bwd;
    const expected: Record<string, string | null> = {};
    for (const w of writes) {
      for (const p of w.to ? [w.path, w.to] : [w.path]) {
        const abs = path.join(root, p);
        expected[p] = fs.existsSync(abs) ? sha(fs.readFileSync(abs)) : null;
      }
    }
    const b = { schema: 'vaultgate.transaction.v1', operation_id: `${dir}-${round}`, operation_type: 'note', writes, expected_hashes: expected, read_preconditions: {} };
    const file = path.join(work, `${dir}-${round}.json`);
    fs.writeFileSync(file, JSON.stringify(b));
    const approval = inspectBundle(root, parseBundle(fs.readFileSync(file), { baseDir: work })).approval_sha256;
    return { file, approval };
  };
  /**
   * Run an apply in a child. With `killAt` (0..1) the child is killed that far into
   * its write phase: from the moment its journal folder appears to the time a full
   * write phase took in the reference run. Earlier kills would only hit parsing.
   */
  const pending = path.join(root, '.vaultgate/txn/pending');
  const applyChild = (file: string, approval: string, op: string, killAt: number | null, writePhaseMs = 0, killWhenExists?: string) =>
    new Promise<{ code: number | null; signal: string | null; ms: number; writeMs: number }>((resolve) => {
      const started = Date.now();
      let journaled = 0;
      const child = spawn(process.execPath, [CLI_BIN, '--vault', root, 'tx', 'apply', file, '--approval', approval], {
        env: { ...process.env, VAULTGATE_HOME: home },
        stdio: 'ignore',
      });
      let timer: NodeJS.Timeout | null = null;
      const poll = setInterval(() => {
        if (killWhenExists) {
          // aim at the window after the last write and before the commit record: roll forward
          if (fs.existsSync(killWhenExists)) (clearInterval(poll), child.kill('SIGKILL'));
          return;
        }
        if (journaled || !fs.existsSync(path.join(pending, op))) return;
        journaled = Date.now();
        clearInterval(poll);
        if (killAt !== null) timer = setTimeout(() => child.kill('SIGKILL'), Math.floor(killAt * writePhaseMs));
      }, 1);
      child.on('exit', (code, signal) => {
        clearInterval(poll);
        if (timer) clearTimeout(timer);
        const end = Date.now();
        resolve({ code, signal, ms: end - started, writeMs: journaled ? end - journaled : 0 });
      });
    });
  // reference: a full apply gives the all-after image and the duration to aim kills at
  const ref = bundleFor('fwd', 0);
  const full = await applyChild(ref.file, ref.approval, 'fwd-0', null);
  assert.equal(full.code, 0);
  const imageAfter = vaultImage(root);
  let state: 'before' | 'after' = 'after';
  let midway = 0;
  let killed = 0;
  const outcome = { rolled_back: 0, landed: 0 };
  for (let round = 1; round <= KILLS; round++) {
    const dir = state === 'before' ? 'fwd' : 'bwd';
    const { file, approval } = bundleFor(dir, round);
    // every fourth round: kill as soon as the last write (a move) has landed
    const last = dir === 'fwd' ? path.join(root, 'moved/n149.md') : path.join(root, 'notes/n149.md');
    const r = await applyChild(file, approval, `${dir}-${round}`, rand(), full.writeMs, round % 4 === 0 ? last : undefined);
    if (r.signal === 'SIGKILL') killed++;
    const interrupted = txStatus(root).pending.length > 0;
    if (interrupted) midway++;
    const rec = await runCliProcess(['tx', 'recover'], { vault: root, home, env: { VAULTGATE_LOCK_TIMEOUT_MS: '0' } });
    assert.equal(rec.exitCode, 0, `round ${round}: recover after kill: ${rec.stdout}${rec.stderr}`);
    const img = vaultImage(root);
    const now = isDeepStrictEqual(img, imageAfter) ? 'after' : isDeepStrictEqual(img, imageBefore) ? 'before' : null;
    assert.ok(now, `round ${round} (${dir}, ${r.signal ?? r.code}): vault is neither all-before nor all-after`);
    assert.deepEqual(txStatus(root).pending, []);
    outcome[now === state ? 'rolled_back' : 'landed']++;
    state = now;
  }
  t.diagnostic(`full apply ${full.ms} ms (write phase ${full.writeMs} ms); ${KILLS} rounds, ${killed} SIGKILLs landed before the child exited, ${midway} of them mid-transaction (pending journal found); after recovery the bundle had ${JSON.stringify(outcome)}`);
});
