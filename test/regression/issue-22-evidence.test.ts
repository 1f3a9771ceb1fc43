/**
 * Issue #22 §2: the evidence sits beside the claim in review. A proposal made
 * by `plan --propose` carried the claim (in its summary) and a catalog id; the
 * fragments it rests on were in neither `show` nor `review`, so the person had
 * to go back to the `relate` output to judge the claim, and nothing noticed
 * when a cited sentence was edited away after the proposal. Now the proposal
 * stores every cited fragment (id, side, note, heading, lines, text, as
 * verified at propose time); show and review list them beside the claim, with
 * a status review re-checks; a fragment no longer in its note is the named
 * check `evidence` — a warning, or a block when the plan depends on it (its
 * note is the one the change writes, or it was the last support of the claim
 * in its note) — and apply refuses with 75.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliProcess } from '../helpers/run-cli.js';
import { snapshotTree, tempVault } from '../helpers/temp-vault.js';

import { EVIDENCE_CLAIM as CLAIM, EVIDENCE_DST as DST, EVIDENCE_NOTES, EVIDENCE_SRC as SRC, editNote, planProposal as plan } from '../helpers/plan-proposal.js';

type V = { root: string; home: string };
const vg = (v: V, args: string[]) => runCliProcess(args, { vault: v.root, home: v.home, cwd: v.root });
const ORIGIN = EVIDENCE_NOTES[SRC];
const planProposal = async (v: V) => {
  const p = await plan(v);
  return { ...p, cat: { catalog_id: p.catalogId } };
};
const edit = (v: V, rel: string, from: string, to: string) => editNote(v.root, rel, from, to);

test('issue 22 §2: plan --propose carries its evidence; show and review list every cited fragment beside the claim (JSON and text)', async () => {
  const v = tempVault(EVIDENCE_NOTES);
  const { id, cat, frag } = await planProposal(v);
  const expected = [
    { id: frag('A', 1), side: 'A', note: SRC, heading: ['Origin load'], lines: [5, 5], text: 'One hour was chosen in the v1.2 review.', anchor: true, status: 'ok' },
    { id: frag('B', 0), side: 'B', note: DST, heading: ['Cache lifetime'], lines: [3, 3], text: 'Entries live one hour in the edge cache.', anchor: false, status: 'ok' },
    { id: frag('B', 2), side: 'B', note: DST, heading: ['Cache lifetime', 'Why'], lines: [8, 8], text: 'Origin servers were overloaded in 2024.', anchor: false, status: 'ok' },
  ];
  for (const verb of ['show', 'review']) {
    const r = await vg(v, [verb, id]);
    assert.equal(r.exitCode, 0, r.stdout + r.stderr);
    assert.deepEqual(r.json.claim, { text: CLAIM, kind: 'link_a_to_b', catalog_id: cat.catalog_id, answer_id: 1, recommendation: 0 }, verb);
    assert.deepEqual(r.json.evidence, expected, verb);
  }
  const checks = (await vg(v, ['review', id])).json.checks;
  const ev = checks.filter((c: any) => c.name === 'evidence');
  assert.equal(ev.length, 1);
  assert.equal(ev[0].ok, true);
  const text = (await vg(v, ['show', id, '--text'])).stdout;
  assert.match(text, new RegExp(`claim: ${CLAIM}`));
  assert.match(text, /ok +B ops\/Cache lifetime\.md:8 \(Cache lifetime > Why\) +Origin servers were overloaded in 2024\./);
  assert.match(text, /ok +A reviews\/Origin load\.md:5 \(Origin load\) anchor +One hour was chosen/);
});

test('issue 22 §2: a cited sentence of the target edited — one of two is a warning, the last one blocks (evidence); apply exits 75', async () => {
  const v = tempVault(EVIDENCE_NOTES);
  const { id, hash, frag } = await planProposal(v);
  edit(v, DST, 'overloaded in 2024', 'overloaded in 2025');
  let r = await vg(v, ['review', id]);
  assert.equal(r.exitCode, 0, r.stdout);
  const ev = () => r.json.checks.filter((c: any) => c.name === 'evidence' && !c.ok);
  assert.deepEqual(ev().map((c: any) => [c.severity, c.details.id, c.details.status]), [['warn', frag('B', 2), 'changed']]);
  assert.match(ev()[0].message, /Origin servers were overloaded in 2024\./);
  assert.deepEqual(r.json.evidence.map((e: any) => e.status), ['ok', 'ok', 'changed']);
  // the target's bytes are pinned too (§1): the proposal is blocked, by link_target
  assert.equal(r.json.proposal.state, 'blocked');
  let a = await vg(v, ['apply', id, '--review-hash', hash]);
  assert.equal(a.exitCode, 75, a.stdout + a.stderr);
  // the other B sentence goes too: nothing in the target supports the claim any more
  edit(v, DST, 'Entries live one hour', 'Entries live two hours');
  r = await vg(v, ['review', id]);
  assert.deepEqual(ev().map((c: any) => [c.severity, c.details.id]), [['block', frag('B', 0)], ['block', frag('B', 2)]]);
  assert.deepEqual((await vg(v, ['proposals'])).json.proposals[0].blocking.sort(), ['evidence', 'link_target']);
  const before = snapshotTree(v.root);
  a = await vg(v, ['apply', id, '--review-hash', hash]);
  assert.equal(a.exitCode, 75, a.stdout + a.stderr);
  // the target's bytes changed, so link_target names the error; its details list the evidence that went
  assert.equal(a.json.error.code, 'LINK_TARGET_CHANGED');
  assert.deepEqual(a.json.error.details.checks.filter((c: any) => c.name === 'evidence').map((c: any) => c.details.id), [frag('B', 0), frag('B', 2)]);
  assert.match(a.json.error.hint, /review/);
  assert.deepEqual(snapshotTree(v.root), before, 'nothing written');
  assert.equal(fs.readFileSync(path.join(v.root, SRC), 'utf8'), ORIGIN);
  // show says what the last review found, without checking again
  const s = await vg(v, ['show', id]);
  assert.deepEqual(s.json.evidence.map((e: any) => e.status), ['ok', 'changed', 'changed']);
});

test('issue 22 §2: the anchor sentence in the note the plan writes into edited, and the target moved away: evidence blocks; apply exits 75', async () => {
  const v = tempVault(EVIDENCE_NOTES);
  const { id, hash, frag } = await planProposal(v);
  edit(v, SRC, 'One hour was chosen', 'One hour was picked');
  fs.mkdirSync(path.join(v.root, 'archive'));
  fs.renameSync(path.join(v.root, DST), path.join(v.root, 'archive/Cache lifetime.md'));
  const r = await vg(v, ['review', id]);
  const ev = r.json.checks.filter((c: any) => c.name === 'evidence' && !c.ok);
  assert.deepEqual(
    ev.map((c: any) => [c.severity, c.details.id, c.details.status]),
    [
      ['block', frag('A', 1), 'changed'],
      ['block', frag('B', 0), 'note_gone'],
      ['block', frag('B', 2), 'note_gone'],
    ],
  );
  assert.equal(r.json.proposal.state, 'blocked');
  const a = await vg(v, ['apply', id, '--review-hash', hash]);
  assert.equal(a.exitCode, 75, a.stdout + a.stderr);
  assert.equal(a.json.error.code, 'STALE_HASH');
  assert.equal(a.json.error.details.checks.filter((c: any) => c.name === 'evidence').length, 3);
});

test('issue 22 §2: a proposal not made from a plan has no claim and no evidence check', async () => {
  const v = tempVault({ [SRC]: ORIGIN });
  const crypto = await import('node:crypto');
  const r = await vg(v, ['propose', SRC, '--append', '--content', 'More.', '--base', crypto.createHash('sha256').update(ORIGIN).digest('hex')]);
  assert.equal(r.exitCode, 0, r.stdout);
  const s = await vg(v, ['show', r.json.proposal.id]);
  assert.equal(s.json.claim, undefined);
  assert.equal(s.json.evidence, undefined);
  assert.equal(s.json.checks.some((c: any) => c.name === 'evidence'), false);
});

test('issue 22 §2: through MCP, the review tool and the proposal resource carry the claim and its evidence (the text block too: a text-only host sees them)', async () => {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { CLI_BIN } = await import('../helpers/run-cli.js');
  const v = tempVault(EVIDENCE_NOTES);
  const { id, frag } = await planProposal(v);
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_BIN, 'mcp', '--vault', v.root], env: { ...(process.env as Record<string, string>), VAULTGATE_HOME: v.home }, stderr: 'pipe' });
  const client = new Client({ name: 'vaultgate-test', version: '1.0.0' });
  await client.connect(transport);
  const statuses = [[frag('A', 1), 'ok'], [frag('B', 0), 'ok'], [frag('B', 2), 'ok']];
  try {
    const r: any = await client.callTool({ name: 'review', arguments: { id } });
    // tools carry no output schema (issue 21 §2): the text block is the structured result's JSON
    assert.deepEqual(JSON.parse(r.content[0].text).claim, r.structuredContent.claim);
    assert.equal(r.structuredContent.ok, true, JSON.stringify(r));
    assert.equal(r.structuredContent.claim.text, CLAIM);
    assert.deepEqual(r.structuredContent.evidence.map((e: any) => [e.id, e.status]), statuses);
    const res: any = await client.readResource({ uri: `vaultgate://proposal/${id}` });
    const shown = JSON.parse(res.contents[0].text);
    assert.equal(shown.claim.text, CLAIM);
    assert.deepEqual(shown.evidence.map((e: any) => [e.id, e.status]), statuses);
  } finally {
    await client.close();
  }
});
