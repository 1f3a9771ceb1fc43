import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { evidenceChecks } from '../../../src/proposals/evidence-check.js';
import { reviewHashOf } from '../../../src/proposals/review-hash.js';
import type { EvidenceFragment, ProposalClaim, StoredChange } from '../../../src/proposals/types.js';
import { locateQuote } from '../../../src/markdown/quote-location.js';
import { tempVault } from '../../helpers/temp-vault.js';

const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const A = '# Source\n\nThe anchor sentence.\n';
const B = '# Target\n\nFirst support.\n\n## More\n\nSecond support.\n';

function frag(id: string, side: 'A' | 'B', note: string, text: string, lines: [number, number], noteText: string, anchor = false): EvidenceFragment {
  return { id, side, note, heading: [], lines, text, anchor, note_sha256: sha(noteText) };
}
function claimOf(...evidence: EvidenceFragment[]): ProposalClaim {
  return { text: 'c', kind: 'link_a_to_b', catalog_id: 'cat-1', answer_id: 1, recommendation: 0, evidence };
}
const writesA: StoredChange[] = [{ path: 'a.md', action: 'write', to: null, base_sha256: sha(A), old_text: A, new_text: A + 'x\n', new_sha256: sha(A + 'x\n') }];
const fa = frag('n:A:0', 'A', 'a.md', 'The anchor sentence.', [3, 3], A, true);
const fb0 = frag('n:B:0', 'B', 'b.md', 'First support.', [3, 3], B);
const fb1 = frag('n:B:1', 'B', 'b.md', 'Second support.', [7, 7], B);
const setup = () => tempVault({ 'a.md': A, 'b.md': B }).root;
const put = (root: string, rel: string, text: string) => fs.writeFileSync(path.join(root, rel), text);
const failing = (r: ReturnType<typeof evidenceChecks>) => r.checks.filter((c) => !c.ok).map((c) => [(c.details as any).id, c.severity, (c.details as any).status]);

test('evidence: every fragment unchanged is one passing entry, each listed ok', () => {
  const r = evidenceChecks(setup(), claimOf(fa, fb0, fb1), writesA);
  assert.deepEqual(r.checks.map((c) => [c.name, c.ok]), [['evidence', true]]);
  assert.deepEqual(r.evidence.map((e) => e.status), ['ok', 'ok', 'ok']);
  assert.equal('note_sha256' in r.evidence[0]!, false, 'the hash is kept, not shown');
});

test('evidence: a note edited elsewhere keeps its fragments ok; one moved to another section warns with its new lines', () => {
  const root = setup();
  put(root, 'b.md', '# Target\n\nFirst support.\nAdded.\n\n## More\n\nSecond support.\n');
  assert.deepEqual(evidenceChecks(root, claimOf(fa, fb0, fb1), writesA).evidence.map((e) => e.status), ['ok', 'ok', 'ok']);
  put(root, 'b.md', '# Target\n\nFirst support.\n\n## More\n\nOther.\n\n## Later\n\nSecond support.\n');
  const r = evidenceChecks(root, claimOf(fa, fb0, fb1), writesA);
  assert.deepEqual(failing(r), [['n:B:1', 'warn', 'moved']]);
  assert.deepEqual(r.evidence[2]!.found_lines, [11, 11]);
});

test('evidence: one of two fragments of a note it does not write changed warns; the last one blocks', () => {
  const root = setup();
  put(root, 'b.md', B.replace('Second support.', 'Second claim.'));
  assert.deepEqual(failing(evidenceChecks(root, claimOf(fa, fb0, fb1), writesA)), [['n:B:1', 'warn', 'changed']]);
  // cited alone, the same fragment is the claim's only support in b.md
  assert.deepEqual(failing(evidenceChecks(root, claimOf(fa, fb1), writesA)), [['n:B:1', 'block', 'changed']]);
  put(root, 'b.md', B.replace('Second support.', 'Second claim.').replace('First support.', 'First claim.'));
  assert.deepEqual(failing(evidenceChecks(root, claimOf(fa, fb0, fb1), writesA)), [['n:B:0', 'block', 'changed'], ['n:B:1', 'block', 'changed']]);
});

test('evidence: a fragment of the note the change writes blocks; a note gone is note_gone', () => {
  const root = setup();
  put(root, 'a.md', '# Source\n\nAnother sentence.\n');
  fs.renameSync(path.join(root, 'b.md'), path.join(root, 'moved.md'));
  const r = evidenceChecks(root, claimOf(fa, fb0, fb1), writesA);
  assert.deepEqual(failing(r), [['n:A:0', 'block', 'changed'], ['n:B:0', 'block', 'note_gone'], ['n:B:1', 'block', 'note_gone']]);
  assert.match(r.checks[0]!.message, /writes into this note/);
  assert.match(r.checks[1]!.message, /relate prepare/);
});

test('review hash: the same without a claim as before; a fragment status change changes it', () => {
  const base = { link_changes: [], files: [] };
  const ev = (status: 'ok' | 'changed') => [{ id: 'x', side: 'A' as const, note: 'a.md', heading: [], lines: [1, 1] as [number, number], text: 't', anchor: false, status }];
  // a proposal without a claim hashes exactly as before the evidence check existed
  assert.equal(reviewHashOf('a', base), sha(JSON.stringify({ schema: 'vaultgate.review.v1', approval: 'a', link_effects: [] })));
  assert.notEqual(reviewHashOf('a', { ...base, evidence: ev('ok') }), reviewHashOf('a', { ...base, evidence: ev('changed') }));
});

test('locateQuote: here within the cited section, elsewhere with lines, null when gone', () => {
  const t = '# H\n\nabc\n\n## I\n\ndef\n';
  assert.equal(locateQuote(t, 'abc', [3, 3]), 'here');
  assert.deepEqual(locateQuote(t, 'def', [3, 3]), [7, 7]);
  assert.equal(locateQuote(t, 'xyz', [3, 3]), null);
});
