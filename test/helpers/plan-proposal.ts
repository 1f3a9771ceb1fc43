import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { runCliProcess } from './run-cli.js';

/**
 * A proposal made by `plan --propose` without a model (issue 22 §2 tests):
 * relate prepare → a hand-written answer citing one sentence of the source
 * (also the anchor) and two of the target → relate validate → plan --propose.
 */
export const EVIDENCE_NOTES = {
  'ops/Cache lifetime.md': '# Cache lifetime\n\nEntries live one hour in the edge cache.\nThe limit protects the origin from load.\n\n## Why\n\nOrigin servers were overloaded in 2024.\n',
  'reviews/Origin load.md': '# Origin load\n\nWithout a cache the origin serves every request.\n\nOne hour was chosen in the v1.2 review.\n',
};
export const EVIDENCE_CLAIM = 'the hour chosen in the review is the edge cache lifetime';
export const EVIDENCE_SRC = 'reviews/Origin load.md';
export const EVIDENCE_DST = 'ops/Cache lifetime.md';

export async function planProposal(v: { root: string; home: string }) {
  const vg = (args: string[]) => runCliProcess(args, { vault: v.root, home: v.home, cwd: v.root });
  const cat = (await vg(['relate', 'prepare', EVIDENCE_SRC, EVIDENCE_DST])).json;
  const frag = (side: string, n: number): string => cat.fragments.filter((f: { side: string }) => f.side === side)[n].id;
  const file = path.join(v.root, '..', `answer-${cat.catalog_id}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify({
      version: 'vaultgate.relation.v1',
      recommendations: [{ kind: 'link_a_to_b', claim: EVIDENCE_CLAIM, evidence_a: [frag('A', 1)], evidence_b: [frag('B', 0), frag('B', 2)], anchor: frag('A', 1) }],
    }),
  );
  assert.equal((await vg(['relate', 'validate', cat.catalog_id, file])).exitCode, 0);
  const r = await vg(['plan', cat.catalog_id, '--recommendation', '0', '--propose', '--agent', 'tester']);
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  assert.equal(r.json.proposal.state, 'pending');
  return { id: r.json.proposal.id as string, hash: r.json.review.review_hash as string, catalogId: cat.catalog_id as string, frag };
}

/** Replace one exact text in a vault file (it must be there). */
export function editNote(root: string, rel: string, from: string, to: string): void {
  const p = path.join(root, rel);
  const text = fs.readFileSync(p, 'utf8');
  assert.ok(text.includes(from), `${rel} holds ${JSON.stringify(from)}`);
  fs.writeFileSync(p, text.replace(from, to));
}
