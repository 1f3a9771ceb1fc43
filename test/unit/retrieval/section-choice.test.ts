import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildContext } from '../../../src/context/index.js';
import { DEFAULT_RANKING_PROFILE } from '../../../src/retrieval/index.js';
import { rescore } from '../../../src/retrieval/section-choice.js';
import { tempVault } from '../../helpers/temp-vault.js';

const KEEP = { exponent: 1, keepBest: 0.7, gate: true };

test('section choice: the best-BM25 section stays first, the section holding more of the question follows it', () => {
  // 1: best by BM25, holding a third of the question; 2: the runner-up by BM25, same coverage; 3: weaker, holding all of it.
  const base = new Map([
    [1, 10],
    [2, 8],
    [3, 4],
  ]);
  const coverage = new Map([
    [1, 0.3],
    [2, 0.3],
    [3, 1],
  ]);
  const out = rescore(base, coverage, KEEP);
  assert.deepEqual(out.map((s) => s.id), [1, 3, 2]);
  assert.equal(out[0]!.score, 10);
  assert.equal(out[1]!.score, 7);
  // Rescoring alone: section 3 first, at the note's best score (the note's rank does not move).
  const alone = rescore(base, coverage, { ...KEEP, keepBest: 0 });
  assert.deepEqual([alone[0]!.id, alone[0]!.score], [3, 10]);
});

test('section choice: with the gate, BM25 order stands unless a section covers more than the best one', () => {
  const base = new Map([
    [1, 10],
    [2, 8],
    [3, 3],
  ]);
  const even = new Map([
    [1, 1],
    [2, 0.3],
    [3, 1],
  ]);
  assert.deepEqual(rescore(base, even, KEEP), [
    { id: 1, score: 10 },
    { id: 2, score: 8 },
    { id: 3, score: 3 },
  ]);
  // Without the gate, section 3 (all of the question, like the best) is lifted over section 2.
  assert.deepEqual(rescore(base, even, { ...KEEP, gate: false }).map((s) => s.id), [1, 3, 2]);
  assert.deepEqual(rescore(new Map(), even, KEEP), []);
});

// A long note whose intro repeats the note's subject; the section that answers
// holds the question's other words once each, deep in a longer body.
const filler = (n: number) => Array.from({ length: n }, (_, i) => `Line ${i} about flour, water, salt and the oven.`).join(' ');
const VAULT: Record<string, string> = {
  'Sourdough.md': [
    '# Sourdough',
    'Sourdough sourdough sourdough: sourdough is the sourdough of sourdough lovers. Sourdough!',
    '## Starter',
    `Feed the starter. ${filler(6)}`,
    '## Shaping',
    `Fold the loaf gently. ${filler(6)}`,
    '## Timing',
    `${filler(120)} Let the dough rest overnight in the fridge; a cold proof makes the crumb open.`,
  ].join('\n'),
};
for (let i = 0; i < 8; i++) VAULT[`Other ${i}.md`] = `# Other ${i}\nThe dough must rest. ${i % 2 === 0 ? 'Overnight is fine.' : 'A cold fridge helps.'}\n`;

test('section choice: the answering section of the best note comes right after its best section in the context packet', () => {
  const { root, home } = tempVault(VAULT);
  const question = 'how long should sourdough dough rest overnight in the fridge';
  const first5 = (profile = DEFAULT_RANKING_PROFILE) =>
    buildContext(root, { VAULTGATE_HOME: home }, { question, budgetChars: 100_000, profile }).evidence.slice(0, 5).map((e) => `${e.path}${e.anchor ?? ''}`);
  const withChoice = first5();
  assert.deepEqual(withChoice.slice(0, 2), ['Sourdough.md#Sourdough', 'Sourdough.md#Sourdough#Timing'], JSON.stringify(withChoice));
  const without = first5({ ...DEFAULT_RANKING_PROFILE, rank: { ...DEFAULT_RANKING_PROFILE.rank, chooseNotes: 0 } });
  assert.ok(!without.includes('Sourdough.md#Sourdough#Timing'), JSON.stringify(without));
});
