import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ownLines } from '../../../src/markdown/own-lines.js';
import { checkDraft, prepareSource } from '../../../src/markdown/verbatim.js';

test('verbatim check of a draft: only the closing Source line is atomize’s own; a sentence dressed as one is still checked', () => {
  const source = prepareSource('# Book\n\n## Combat\n\nRoll two dice to strike. The [[Warden]] may parry once per round.\n');
  const draft = ['---', 'kind: rule', '---', '# Parry', '', 'The [[Rules/Warden|Warden]] may parry once per round.', '', 'Source: parries always win.', '', 'Source: [[Book#Combat|Combat]]', ''].join('\n');
  assert.deepEqual([...ownLines(draft)], [10]);
  const r = checkDraft(source, draft, { skipLines: ownLines(draft) });
  assert.deepEqual(r.novel.map((n) => [n.line, n.text]), [[8, 'Source: parries always win.']]);
  assert.equal(r.verbatim, 1);
  assert.deepEqual([...ownLines('# A\n\nText.\n')], []);
});
