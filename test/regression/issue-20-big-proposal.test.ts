import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Diff } from 'diff';
import { apply, propose, review } from '../../src/proposals/index.js';
import { VaultSession } from '../../src/session/index.js';
import { tempVault } from '../helpers/temp-vault.js';

/**
 * Issue 20 §8: a proposal rewriting 200 KB notes of one long line took minutes
 * to propose, review and apply. The review aligned each note's old and new text
 * word by word (to pair its links by place) with a Myers diff allowed 4,000
 * edits: for two very different 60,000-word lines that is tens of millions of
 * token comparisons per note, per review — quadratic in the line, not linear in
 * what is written.
 *
 * No wall clock here: every comparison the diff engine (jsdiff) makes goes
 * through `Diff.prototype.equals`, so counting its calls measures the work
 * itself. Each review of a change must stay within a linear bound of the bytes
 * it compares, whatever the shape of the text; and the diff a person reads for a
 * one-line rewrite is the line removed and the line added.
 */

let comparisons = 0;
const equals = Diff.prototype.equals;
Diff.prototype.equals = function (this: Diff<string, string>, ...args: Parameters<typeof equals>) {
  comparisons++;
  return equals.apply(this, args);
};

const WORDS = 'the of and to in vault note river stone cloud green paper light ocean quiet storm north amber field signal window'.split(' ');
function words(seed: number, bytes: number, lineEvery = 0): string {
  let s = seed >>> 0;
  const rand = () => ((s = (Math.imul(s, 1103515245) + 12345) >>> 0) / 2 ** 32);
  const parts: string[] = [];
  let len = 0;
  for (let n = 1; len < bytes; n++) {
    // a link now and then, so the review has links to pair by place
    const w = n % 400 === 0 ? `[[Other ${Math.floor(rand() * 50)}]]` : WORDS[Math.floor(rand() * WORDS.length)]!;
    parts.push(w, lineEvery && n % lineEvery === 0 ? '\n' : ' ');
    len += w.length + 1;
  }
  return parts.join('') + '\n';
}
const sha = (t: string) => crypto.createHash('sha256').update(t).digest('hex');

/** Propose, review and apply one rewrite; the comparisons each step made. */
async function lifecycle(oldText: string, newText: string) {
  const others = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`Other ${i}.md`, `# Other ${i}\n`]));
  const { root, home } = tempVault({ 'Big.md': oldText, ...others }, { tmpfs: true });
  const session = VaultSession.open({ vault: root, env: { VAULTGATE_HOME: home }, cwd: root });
  try {
    session.read(() => null); // index first: not what is measured
    comparisons = 0;
    const p = await propose(session, { changes: [{ action: 'write', path: 'Big.md', content: newText, base: sha(oldText) }], agent: 'test' }, 'test');
    const proposeWork = comparisons;
    assert.equal(p.proposal.state, 'pending', JSON.stringify(p.review.checks.filter((c) => !c.ok)));
    comparisons = 0;
    const r = await review(session, p.proposal.id, 'test');
    const reviewWork = comparisons;
    comparisons = 0;
    await apply(session, p.proposal.id, r.review_hash!, 'operator');
    const applyWork = comparisons;
    assert.equal(fs.readFileSync(path.join(root, 'Big.md'), 'utf8'), newText);
    return { proposeWork, reviewWork, applyWork, diff: r.diff };
  } finally {
    await session.close();
  }
}

test('issue 20.8: a 200 KB one-line note rewritten is reviewed in work linear in its bytes, and shown as a line diff', async () => {
  const oldText = words(1, 200_000);
  const newText = words(2, 200_000);
  const { proposeWork, reviewWork, applyWork, diff } = await lifecycle(oldText, newText);
  const bound = 4 * (oldText.length + newText.length);
  for (const [step, work] of [['propose', proposeWork], ['review', reviewWork], ['apply', applyWork]] as const) {
    assert.ok(work <= bound, `${step} made ${work} token comparisons for a ${oldText.length}-byte line rewritten (linear bound ${bound})`);
  }
  // the person reads the line that goes and the line that comes: one hunk, two lines
  const body = diff.split('\n').filter((l) => /^[-+](?![-+]{2} )/.test(l));
  assert.deepEqual(body, ['-' + oldText.slice(0, -1), '+' + newText.slice(0, -1)]);
  assert.equal((diff.match(/^@@ /gm) ?? []).length, 1);
});

test('issue 20.8: a 200 KB note of 2,000 lines with a few lines changed stays linear too', async () => {
  const oldText = words(3, 200_000, 15);
  const lines = oldText.split('\n');
  for (let k = 5; k < lines.length; k += 300) lines[k] += ' (changed)';
  const newText = lines.join('\n');
  const { proposeWork, reviewWork, applyWork, diff } = await lifecycle(oldText, newText);
  const bound = 4 * (oldText.length + newText.length);
  for (const [step, work] of [['propose', proposeWork], ['review', reviewWork], ['apply', applyWork]] as const) {
    assert.ok(work <= bound, `${step} made ${work} comparisons (linear bound ${bound})`);
  }
  // an exact line diff: each changed line once out, once in
  assert.equal((diff.match(/^\+.*\(changed\)$/gm) ?? []).length, Math.ceil((lines.length - 5) / 300));
});

test('issue 20.8: in a long note (aligned line by line), a changed link is told apart from its unchanged twin elsewhere', async () => {
  const lines = words(4, 150_000, 15).split('\n').map((l) => l.replace(/\[\[Other \d+\]\]/g, 'plain'));
  lines[10] = 'see [[Other 1]] here';
  lines[1500] = 'and [[Other 1]] there';
  const oldText = lines.join('\n');
  lines[1500] = 'and [[Other 2]] there';
  const newText = lines.join('\n');
  assert.ok(oldText.length > 64 * 1024);
  const others = Object.fromEntries(Array.from({ length: 3 }, (_, i) => [`Other ${i}.md`, `# Other ${i}\n`]));
  const { root, home } = tempVault({ 'Long.md': oldText, ...others }, { tmpfs: true });
  const session = VaultSession.open({ vault: root, env: { VAULTGATE_HOME: home }, cwd: root });
  try {
    const p = await propose(session, { changes: [{ action: 'write', path: 'Long.md', content: newText, base: sha(oldText) }], agent: 'test' }, 'test');
    const f = p.review.files[0]!;
    assert.deepEqual(f.links_removed.map((l) => [l.raw, l.line]), [['[[Other 1]]', 1501]]);
    assert.deepEqual(f.links_added.map((l) => [l.raw, l.line]), [['[[Other 2]]', 1501]]);
  } finally {
    await session.close();
  }
});
