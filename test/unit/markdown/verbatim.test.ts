import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkDraft, linksToText, normalizeForVerbatim, prepareSource, splitSentences } from '../../../src/markdown/verbatim.js';

const SOURCE = [
  '---',
  'title: Rules',
  '---',
  '# Resistance',
  '',
  'When a character resists harm, roll the [[Attributes|attribute]] that fits.',
  'Each **6** reduces the cost by one. A critical reduces it by two.',
  '',
  '- Ordering the frightened is a *Command* roll.',
  '| Result | Effect |',
  '|---|---|',
  '| 1-3 | Bad outcome |',
].join('\n');

test('links read as their display text, embeds vanish', () => {
  assert.equal(linksToText('see [[A/B#H|this]] and [[C]] and [t](x.md) ![[img.png]]'), 'see this and C and t ');
});

test('normalizing drops emphasis, list markers, block ids and folds whitespace', () => {
  assert.equal(normalizeForVerbatim('- Each **6**   reduces\n  the cost. ^rule-1'), 'Each 6 reduces the cost.');
  assert.equal(normalizeForVerbatim('snake_case stays'), 'snake_case stays');
});

test('sentences are cut by the segmenter and punctuation-only pieces dropped', () => {
  assert.deepEqual(splitSentences('One rule. Two rules!'), ['One rule.', 'Two rules!']);
  assert.deepEqual(splitSentences('— . …'), []);
});

test('a draft copied word for word has no novel sentence, whatever links were added', () => {
  const draft = [
    '---',
    'source: "[[Rules]]"',
    '---',
    '# Resistance roll',
    '',
    'When a character resists harm, roll the attribute that fits. Each 6 reduces the cost by one.',
    '- Ordering the frightened is a [[Command]] roll.',
    '| 1-3 | Bad outcome |',
    'Source: [[Rules#Resistance]]',
  ].join('\n');
  const report = checkDraft(prepareSource(SOURCE), draft, { skipLine: (l) => l.startsWith('Source: ') });
  assert.deepEqual(report.novel, []);
  assert.equal(report.sentences, 4);
  assert.equal(report.verbatim, 4);
});

test('one invented or paraphrased sentence among copied ones is reported alone, with its line', () => {
  const draft = [
    'Each 6 reduces the cost by one. A critical removes all harm.',
    '',
    'When ordering the frightened, roll Command.',
  ].join('\n');
  const report = checkDraft(prepareSource(SOURCE), draft);
  assert.deepEqual(report.novel, [
    { line: 1, text: 'A critical removes all harm.' },
    { line: 3, text: 'When ordering the frightened, roll Command.' },
  ]);
  assert.equal(report.verbatim, 1);
});

test('a changed capital or word is not verbatim', () => {
  const report = checkDraft(prepareSource(SOURCE), 'each 6 reduces the cost by one.');
  assert.equal(report.novel.length, 1);
});
