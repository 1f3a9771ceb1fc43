import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isDeepStrictEqual } from 'node:util';
import { readDone, realFsOps, txStatus } from '../../src/txn/index.js';
import { CLI_BIN, runCli, runCliProcess } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';
import { sha, vaultImage } from '../unit/txn/txn-helpers.js';

/**
 * A crash during a proposal's apply (issue #8 §3): a child process applies a
 * large multi-file proposal and is SIGKILLed in its write phase. The proposal is
 * left in `recovery`; what follows is either `tx recover` (then any proposal
 * command settles the state from the engine's record) or simply the next
 * `apply`. Either way the vault is all-before or all-after and the proposal's
 * state says which: applied ⇔ all-after; pending ⇔ all-before.
 *
 * The vault flips between two images: round 1 proposes A → B, every later round
 * rolls back the last applied proposal (B → A, A → B, …), so rollback proposals
 * go through the same crash.
 */
const NOTES = 40;
const LINES = 1000; // ~60 KB per note
const ROUNDS = Number(process.env.VAULTGATE_PROPOSAL_CRASH_ROUNDS ?? 6);

let seed = 0x7e57;
const rand = () => ((seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff);

function noteText(n: number, variant: string): string {
  const lines: string[] = [`# Note ${n}`, ''];
  for (let k = 0; k < LINES; k++) lines.push(`line ${k} of note ${n}: ${k === 500 ? variant : 'steady text that stays the same'}`);
  return lines.join('\n') + '\n';
}

test(`SIGKILL during a proposal's apply (${ROUNDS} rounds, ${NOTES} × 60 KB notes + creates): all-before or all-after, and the proposal's state says which`, async (t) => {
  const files: Record<string, string> = {};
  for (let n = 0; n < NOTES; n++) files[`notes/n${n}.md`] = noteText(n, 'original');
  const { root, home } = tempVault(files);
  const work = path.dirname(root);
  const vg = (args: string[]) => runCli(args, { vault: root, home, env: { VAULTGATE_LOCK_TIMEOUT_MS: '0' } });

  // proposal A → B: every note changes one line, and ten notes are created
  const changes = [
    ...Array.from({ length: NOTES }, (_, n) => ({ path: `notes/n${n}.md`, action: 'write', content: noteText(n, 'changed'), base: sha(files[`notes/n${n}.md`]!) })),
    ...Array.from({ length: 10 }, (_, n) => ({ path: `created/c${n}.md`, action: 'write', content: `# Created ${n}\n`, base: null })),
  ];
  fs.mkdirSync(path.join(root, 'created')); // a rollback cannot remove folders; both images have it
  const imageA = vaultImage(root);
  fs.writeFileSync(path.join(work, 'changes.json'), JSON.stringify({ title: 'A to B', changes }));
  const first = await runCli(['propose', '--changes', 'changes.json'], { vault: root, home, cwd: work });
  assert.equal(first.exitCode, 0, first.stdout);
  assert.equal(first.json.proposal.state, 'pending', JSON.stringify(first.json.review.checks.filter((c: any) => !c.ok)));

  /** Apply in a child; with `killAt` it is killed that far into its write phase (from the journal's appearance). */
  const applyChild = (v: { root: string; home: string }, id: string, hash: string, op: string, killAt: number | null, writeMs = 0) =>
    new Promise<{ code: number | null; signal: string | null; writeMs: number }>((resolve) => {
      let journaled = 0;
      const pending = path.join(v.root, '.vaultgate/txn/pending');
      const child = spawn(process.execPath, [CLI_BIN, '--vault', v.root, 'apply', id, '--review-hash', hash], { env: { ...process.env, VAULTGATE_HOME: v.home }, stdio: 'ignore' });
      let timer: NodeJS.Timeout | null = null;
      const poll = setInterval(() => {
        if (journaled || !fs.existsSync(path.join(pending, op))) return;
        journaled = Date.now();
        clearInterval(poll);
        if (killAt !== null) timer = setTimeout(() => child.kill('SIGKILL'), Math.floor(killAt * writeMs));
      }, 1);
      child.on('exit', (code, signal) => {
        clearInterval(poll);
        if (timer) clearTimeout(timer);
        resolve({ code, signal, writeMs: journaled ? Date.now() - journaled : 0 });
      });
    });

  // a reference apply of a copy gives image B and the length of a write phase
  const refVault = tempVault(files);
  fs.mkdirSync(path.join(refVault.root, 'created'));
  const ref = await runCli(['propose', '--changes', path.join(work, 'changes.json')], { vault: refVault.root, home: refVault.home });
  const refOp = (await runCli(['show', 'p-1'], { vault: refVault.root, home: refVault.home })).json.proposal.operation_id;
  const refRun = await applyChild(refVault, 'p-1', ref.json.review.review_hash, refOp, null);
  assert.equal(refRun.code, 0);
  const imageB = vaultImage(refVault.root);
  assert.deepEqual(txStatus(refVault.root).pending, []);
  const writeMs = Math.max(20, refRun.writeMs);

  let proposal = { id: first.json.proposal.id as string, hash: first.json.review.review_hash as string };
  let state: 'A' | 'B' = 'A';
  const seen = { recovery: 0, applied_by_recovery: 0, rolled_back: 0, finished_before_kill: 0 };
  for (let round = 1; round <= ROUNDS; round++) {
    const op = (await vg(['show', proposal.id])).json.proposal.operation_id;
    const r = await applyChild({ root, home }, proposal.id, proposal.hash, op, rand(), writeMs);
    const shown = (await vg(['show', proposal.id])).json.proposal.state;
    if (r.signal === 'SIGKILL' && txStatus(root).pending.length > 0) {
      // killed mid-write: recovery — unless the kill fell after the commit point (the done
      // record is written) and before the journal's folder moved away; then the record
      // says applied, and the next look (this `show`) settles the proposal as applied
      const committed = readDone(root, op, realFsOps)?.outcome === 'applied';
      assert.equal(shown, committed ? 'applied' : 'recovery', `round ${round}: killed mid-write (committed: ${committed})`);
      seen.recovery++;
    } else if (r.code === 0) seen.finished_before_kill++;

    if (round % 2 === 1) {
      // recovery by the engine alone, then the proposal settles from its record
      const rec = await runCliProcess(['tx', 'recover'], { vault: root, home, env: { VAULTGATE_LOCK_TIMEOUT_MS: '0' } });
      assert.equal(rec.exitCode, 0, rec.stdout + rec.stderr);
      const img = vaultImage(root);
      const now = isDeepStrictEqual(img, imageA) ? 'A' : isDeepStrictEqual(img, imageB) ? 'B' : null;
      assert.ok(now, `round ${round}: the vault is neither all-before nor all-after`);
      const after = (await vg(['show', proposal.id])).json.proposal.state;
      assert.equal(after, now === state ? 'pending' : 'applied', `round ${round}: state ${after} but the vault is all-${now === state ? 'before' : 'after'}`);
      if (after === 'pending') {
        seen.rolled_back++;
        const again = await vg(['apply', proposal.id, '--review-hash', proposal.hash]);
        assert.equal(again.exitCode, 0, `round ${round}: ${again.stdout}`);
      } else if (shown === 'recovery') seen.applied_by_recovery++;
    } else {
      // the next apply finishes it, whichever way recovery went
      const again = await vg(['apply', proposal.id, '--review-hash', proposal.hash]);
      assert.equal(again.exitCode, 0, `round ${round}: ${again.stdout}`);
    }
    state = state === 'A' ? 'B' : 'A';
    assert.ok(isDeepStrictEqual(vaultImage(root), state === 'B' ? imageB : imageA), `round ${round}: after the apply the vault is all-after`);
    assert.equal((await vg(['show', proposal.id])).json.proposal.state, 'applied');
    assert.deepEqual(txStatus(root).pending, []);
    const events = (await vg(['log', '--proposal', proposal.id])).json.events.map((e: any) => e.event);
    assert.equal(events.filter((e: string) => e === 'applied').length + events.filter((e: string) => e === 'recovery').length >= 1, true);
    if (round < ROUNDS) {
      const rb = await vg(['rollback', proposal.id]);
      assert.equal(rb.json.proposal.state, 'pending', `round ${round}: ${JSON.stringify(rb.json.review?.checks?.filter((c: any) => !c.ok))}`);
      proposal = { id: rb.json.proposal.id, hash: rb.json.review.review_hash };
    }
  }
  t.diagnostic(`reference write phase ${refRun.writeMs} ms; ${ROUNDS} rounds: ${JSON.stringify(seen)}`);
  assert.ok(seen.recovery > 0, 'at least one kill landed mid-write');
});
