/**
 * Concurrency of the proposal loop with real processes (issue #8 §3): many
 * agents proposing at once lose nothing, and two applies of one proposal make
 * exactly one transaction.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { REPO_ROOT, runCli, runCliProcess } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const WORKER = path.join(REPO_ROOT, 'test/helpers/propose-worker.mjs');

/** Run a proposer process (test/helpers/propose-worker.mjs); resolves with the ids it got. */
function proposer(root: string, home: string, agent: number, count: number): Promise<string[]> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [WORKER, root, String(agent), String(count)], { env: { ...process.env, VAULTGATE_HOME: home }, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    let err = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (err += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolve(JSON.parse(out) as string[]) : reject(new Error(`proposer ${agent} exited ${code}: ${err}`))));
  });
}

test('8 processes × 10 proposals at once: 80 distinct ids, every one stored whole and readable', async () => {
  const { root, home } = tempVault({ 'Shared.md': '# Shared\n\ntext\n' });
  // build the index once, so the processes race on the proposal store, not on a cold index
  assert.equal((await runCli(['index'], { vault: root, home })).exitCode, 0);
  const AGENTS = 8;
  const EACH = 10;
  // one proposal through the CLI as well, in the middle of the race
  const [made, cli] = await Promise.all([
    Promise.all(Array.from({ length: AGENTS }, (_, a) => proposer(root, home, a, EACH))),
    runCliProcess(['propose', 'Cli.md', '--stdin', '--base', 'none', '--title', 'cli'], { vault: root, home, input: 'cli\n' }),
  ]);
  assert.equal(cli.exitCode, 0, cli.stdout + cli.stderr);
  const ids = made.flat();
  ids.push(cli.json.proposal.id);
  const TOTAL = AGENTS * EACH + 1;
  assert.equal(new Set(ids).size, TOTAL, 'every proposal got its own id');
  assert.deepEqual(ids.map((id) => Number(id.slice(2))).sort((x, y) => x - y), Array.from({ length: TOTAL }, (_, i) => i + 1));
  const list = await runCli(['proposals', '--limit', '1000'], { vault: root, home });
  assert.equal(list.json.total, TOTAL);
  for (let a = 0; a < AGENTS; a++) {
    const mine = (await runCli(['proposals', '--agent', `agent-${a}`], { vault: root, home })).json.proposals;
    assert.deepEqual(mine.map((p: any) => p.title).sort(), Array.from({ length: EACH }, (_, n) => `a${a} n${n}`).sort());
    assert.ok(mine.every((p: any) => p.state === 'pending' && p.files[0].path.startsWith(`Agent${a}/`)));
  }
  for (const id of ids.slice(0, -1)) {
    const s = await runCli(['show', id], { vault: root, home });
    const [, a, n] = /^a(\d+) n(\d+)$/.exec(s.json.proposal.title)!;
    assert.equal(s.json.files[0].new_sha256, sha(`# Note ${n} by agent ${a}\n`), `${id} holds its own text`);
    assert.match(s.json.review_hash, /^[0-9a-f]{64}$/);
  }
  const log = await runCli(['log', '--limit', '1000'], { vault: root, home });
  assert.equal(log.json.events.filter((e: any) => e.event === 'proposed').length, TOTAL);
});

test('4 processes apply one proposal at once: exactly one transaction; the others get the stored result or exit 75', async () => {
  const text = '# A\n\nbody\n';
  const { root, home } = tempVault({ 'A.md': text });
  const p = await runCli(['propose', 'A.md', '--append', '--content', 'added\n', '--base', sha(text)], { vault: root, home });
  assert.equal(p.exitCode, 0, p.stdout);
  const hash = p.json.review.review_hash;
  const runs = await Promise.all(Array.from({ length: 4 }, () => runCliProcess(['apply', 'p-1', '--review-hash', hash], { vault: root, home })));
  for (const r of runs) assert.ok(r.exitCode === 0 || r.exitCode === 75, `exit ${r.exitCode}: ${r.stdout}${r.stderr}`);
  const ok = runs.filter((r) => r.exitCode === 0);
  assert.ok(ok.length >= 1);
  assert.equal(ok.filter((r) => !r.json.replayed).length, 1, 'one apply ran the transaction; the rest replayed it');
  assert.ok(ok.every((r) => r.json.operation_id === ok[0]!.json.operation_id));
  assert.equal(fs.readFileSync(path.join(root, 'A.md'), 'utf8'), text + 'added\n');
  const history = fs.readFileSync(path.join(root, '.vaultgate/txn/history.jsonl'), 'utf8').trim().split('\n').map((l) => JSON.parse(l));
  assert.deepEqual(history.map((h) => [h.operation_id, h.outcome]), [[ok[0]!.json.operation_id, 'applied']]);
  const log = await runCli(['log', '--proposal', 'p-1'], { vault: root, home });
  assert.equal(log.json.events.filter((e: any) => e.event === 'applied').length, 1, 'one applied event');
  assert.equal((await runCli(['show', 'p-1'], { vault: root, home })).json.proposal.state, 'applied');
});
