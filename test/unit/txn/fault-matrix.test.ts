import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { isVaultgateError } from '../../../src/errors.js';
import {
  applyBundle,
  faultyFsOps,
  initVault,
  inspectBundle,
  parseBundle,
  realFsOps,
  recoverVault,
  SimulatedCrash,
  txStatus,
  type FaultKind,
  type FsOps,
} from '../../../src/txn/index.js';
import { tempVault, writeFiles } from '../../helpers/temp-vault.js';
import { makeBundle, vaultImage, type WriteSpec } from './txn-helpers.js';

/**
 * The all-or-nothing proof (issue #3 §5): for every mutating step k of a bundle
 * mixing create/replace/delete/move, crash before step k (throw, lose all memory)
 * or fail step k with ENOSPC / EIO (once, or from k on). Then recover as a new
 * process would. The vault must equal all-before or all-after, byte for byte and
 * mode for mode, with no temp file and no created folder left.
 *
 * fsync is a no-op in this matrix and the vaults live on tmpfs when available (an
 * in-process crash loses no page cache, so only the order of steps matters); the
 * real-process SIGKILL test in test/crash/ runs on disk with real fsync.
 */
const fastOps: FsOps = { ...realFsOps, fsync: () => {} };
const KINDS: FaultKind[] = ['crash', 'ENOSPC', 'EIO', 'EIO-sticky'];

interface Scenario {
  files: Record<string, string>;
  modes: Record<string, number>;
  writes: WriteSpec[];
}

function small(): Scenario {
  return {
    files: { 'a.md': 'alpha', 'b.md': 'bravo', 'c.md': 'charlie', 'keep.md': 'untouched' },
    modes: { 'a.md': 0o640 },
    writes: [
      { path: 'a.md', mode: 'replace', content: 'alpha 2' },
      { path: 'new/sub/x.md', mode: 'create', content: 'x' },
      { path: 'b.md', mode: 'delete' },
      { path: 'c.md', mode: 'move', to: 'moved/c.md' },
    ],
  };
}

function large(): Scenario {
  const files: Record<string, string> = {};
  const writes: WriteSpec[] = [];
  for (let n = 0; n < 10; n++) {
    files[`r/r${n}.md`] = `replace me ${n}`;
    files[`d/d${n}.md`] = `delete me ${n}`;
    files[`m/m${n}.md`] = `move me ${n}`;
    writes.push({ path: `r/r${n}.md`, mode: 'replace', content: `replaced ${n}\n`.repeat(n + 1) });
    writes.push({ path: `c${n % 3}/deep${n % 2}/c${n}.md`, mode: 'create', content: `created ${n}` });
    writes.push({ path: `d/d${n}.md`, mode: 'delete' });
    writes.push({ path: `m/m${n}.md`, mode: 'move', to: `m2/sub/m${n}.md` });
  }
  return { files, modes: { 'r/r3.md': 0o600, 'm/m4.md': 0o755 }, writes };
}

/** Matrix vaults live on tmpfs when there is one: the matrix proves logic, not disk durability. */
const SHM = fs.existsSync('/dev/shm') ? fs.mkdtempSync('/dev/shm/vaultgate-matrix-') : null;
after(() => {
  if (SHM) fs.rmSync(SHM, { recursive: true, force: true });
});
let seq = 0;

async function setup(s: Scenario) {
  let root: string;
  if (SHM) {
    root = path.join(SHM, `v${seq++}`);
    fs.mkdirSync(root);
    writeFiles(root, s.files);
  } else root = tempVault(s.files).root;
  for (const [p, m] of Object.entries(s.modes)) fs.chmodSync(path.join(root, p), m);
  initVault(root, fastOps);
  const bundle = parseBundle(Buffer.from(JSON.stringify(makeBundle(root, 'op-matrix', s.writes))), { baseDir: root });
  const { approval_sha256 } = inspectBundle(root, bundle);
  return { root, bundle, approval: approval_sha256 };
}

/** What a dead process leaves behind that a live one would have removed: its lock. */
function simulateExit(root: string) {
  const base = path.join(root, '.vaultgate');
  for (const name of fs.readdirSync(base)) {
    if (name === 'lock' || name.startsWith('.lock-')) fs.rmSync(path.join(base, name), { recursive: true, force: true });
  }
}

async function runMatrix(name: string, scenario: () => Scenario) {
  // reference run: the all-after image and the number of steps
  const ref = await setup(scenario());
  const before = vaultImage(ref.root);
  const counter = faultyFsOps({ atStep: Number.MAX_SAFE_INTEGER, kind: 'crash' }, fastOps);
  await applyBundle(ref.root, ref.bundle, ref.approval, { ops: counter });
  const after = vaultImage(ref.root);
  const steps = counter.steps;
  assert.notDeepEqual(before, after);
  let runs = 0;
  const outcomes: Record<string, number> = { before: 0, after: 0 };
  for (const kind of KINDS) {
    for (let k = 1; k <= steps + 1; k++) {
      const v = await setup(scenario());
      assert.deepEqual(vaultImage(v.root), before);
      const ops = faultyFsOps({ atStep: k, kind }, fastOps);
      let ok = false;
      let code = '';
      try {
        await applyBundle(v.root, v.bundle, v.approval, { ops, lockTimeoutMs: 0 });
        ok = true;
      } catch (e) {
        if (kind === 'crash') assert.ok(e instanceof SimulatedCrash, `${name} k=${k}: ${(e as Error).stack}`);
        else assert.ok(isVaultgateError(e), `${name} ${kind} k=${k}: untyped error ${(e as Error).stack}`);
        code = isVaultgateError(e) ? e.code : '';
      }
      if (kind === 'ENOSPC' || kind === 'EIO') {
        // a one-shot fault is always handled in-process: success, or a typed error with the vault rolled back
        assert.ok(ok || code === 'WRITE_FAILED', `${name} ${kind} k=${k}: ${code}`);
        if (!ok) assert.deepEqual(vaultImage(v.root), before, `${name} ${kind} k=${k}: failed but not rolled back in-process`);
        assert.deepEqual(txStatus(v.root).pending, [], `${name} ${kind} k=${k}: left pending after a one-shot fault`);
      }
      simulateExit(v.root);
      await recoverVault(v.root, { ops: fastOps });
      const img = vaultImage(v.root);
      const which = isDeepStrictEqual(img, after) ? 'after' : isDeepStrictEqual(img, before) ? 'before' : null;
      assert.ok(which, `${name} ${kind} k=${k}: vault is neither all-before nor all-after:\n${diff(img, before, after)}`);
      if (ok) assert.equal(which, 'after', `${name} ${kind} k=${k}: apply reported success but the vault is all-before`);
      assert.deepEqual(txStatus(v.root).pending, [], `${name} ${kind} k=${k}: something still pending`);
      outcomes[which]!++;
      runs++;
    }
  }
  return { steps, runs, outcomes };
}
const diff = (img: Record<string, string>, before: Record<string, string>, after: Record<string, string>) =>
  Object.keys({ ...img, ...before, ...after })
    .sort()
    .filter((k) => img[k] !== before[k] || img[k] !== after[k])
    .map((k) => `${k}: now=${img[k] ?? '-'} before=${before[k] ?? '-'} after=${after[k] ?? '-'}`)
    .join('\n');

test('fault matrix: a crash or ENOSPC/EIO at every step of a 4-write bundle (all four modes) leaves all-before or all-after', async (t) => {
  const r = await runMatrix('small', small);
  t.diagnostic(`small bundle: ${r.steps} steps × ${KINDS.length} fault kinds = ${r.runs} runs (${r.outcomes.before} before, ${r.outcomes.after} after)`);
  assert.equal(r.runs, (r.steps + 1) * KINDS.length);
});

test('fault matrix: a crash or ENOSPC/EIO at every step of a 40-write bundle leaves all-before or all-after', async (t) => {
  const r = await runMatrix('large', large);
  t.diagnostic(`large bundle: ${r.steps} steps × ${KINDS.length} fault kinds = ${r.runs} runs (${r.outcomes.before} before, ${r.outcomes.after} after)`);
  assert.equal(r.runs, (r.steps + 1) * KINDS.length);
});

test('fault matrix: recovery itself crashed at every one of its steps, then recovered again, still leaves all-before or all-after', async (t) => {
  const ref = await setup(small());
  const before = vaultImage(ref.root);
  const counter = faultyFsOps({ atStep: Number.MAX_SAFE_INTEGER, kind: 'crash' }, fastOps);
  await applyBundle(ref.root, ref.bundle, ref.approval, { ops: counter });
  const after = vaultImage(ref.root);
  let runs = 0;
  // every third apply step as the first crash (the matrix above covers each one alone)
  for (let k1 = 2; k1 <= counter.steps; k1 += 3) {
    // count the steps of the recovery that follows this crash
    const probe = await setup(small());
    await applyBundle(probe.root, probe.bundle, probe.approval, { ops: faultyFsOps({ atStep: k1, kind: 'crash' }, fastOps) }).catch(() => {});
    simulateExit(probe.root);
    const recCounter = faultyFsOps({ atStep: Number.MAX_SAFE_INTEGER, kind: 'crash' }, fastOps);
    await recoverVault(probe.root, { ops: recCounter });
    for (let k2 = 1; k2 <= recCounter.steps; k2++) {
      const v = await setup(small());
      await applyBundle(v.root, v.bundle, v.approval, { ops: faultyFsOps({ atStep: k1, kind: 'crash' }, fastOps) }).catch(() => {});
      simulateExit(v.root);
      await assert.rejects(recoverVault(v.root, { ops: faultyFsOps({ atStep: k2, kind: 'crash' }, fastOps) }), SimulatedCrash);
      simulateExit(v.root);
      await recoverVault(v.root, { ops: fastOps });
      const img = vaultImage(v.root);
      assert.ok(isDeepStrictEqual(img, before) || isDeepStrictEqual(img, after), `apply crash k1=${k1}, recovery crash k2=${k2}:\n${diff(img, before, after)}`);
      assert.deepEqual(txStatus(v.root).pending, []);
      runs++;
    }
  }
  t.diagnostic(`${runs} runs: apply crashed at every third step, then recovery crashed at each of its steps, then a clean recovery`);
});
