/**
 * The note parser over every note of the real vaults in ../shared/corpora, read
 * in place (nothing is copied into the repo). Every note must parse without a
 * throw, every element must slice to its own text within bounds on the lines it
 * claims, and the per-corpus totals must match what each corpus README reports
 * (with room for our parser and the README's crude scanner to differ in detail).
 * `VAULTGATE_CORPUS_REPORT=1` prints the figures.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseNote, type NoteModel } from '../../src/markdown/index.js';
import { readNoteFile, scanVault } from '../../src/vault/index.js';
import { eachCorpus } from '../helpers/corpora.js';
import { rangedElements } from '../unit/markdown/marks.js';

interface Totals {
  notes: number;
  bodyWikilinks: number;
  escapedPipe: number;
  frontmatterLinks: number;
  inlineTags: number;
  frontmatterTags: number;
  headings: number;
  yamlErrors: number;
  longestLine: number;
}

/** The README figures (`wikilinks_total`, `inline_tags`, `frontmatter_tags`, `headings`) and ours must agree this closely. */
function near(actual: number, expected: number, share: number, what: string): void {
  assert.ok(Math.abs(actual - expected) <= Math.max(3, expected * share), `${what}: ${actual}, README ${expected}`);
}

function lineOk(m: NoteModel, line: number, offset: number): boolean {
  const from = m.lineStarts[line - 1];
  const next = m.lineStarts[line] ?? Infinity;
  return from !== undefined && from <= offset && offset < Math.max(next, from + 1);
}

function checkNote(path: string, text: string, m: NoteModel): void {
  assert.equal(m.length, text.length, path);
  const els = rangedElements(m);
  for (const el of els) {
    const { start, end } = el.range;
    if (!(0 <= start && start <= end && end <= text.length)) assert.fail(`${path}: range ${start}..${end} out of bounds`);
    if (!lineOk(m, el.startLine, start) || !lineOk(m, el.endLine, end > start ? end - 1 : start)) {
      assert.fail(`${path}: lines ${el.startLine}-${el.endLine} do not hold ${start}..${end}`);
    }
  }
  for (const l of m.links) {
    if (text.slice(l.range.start, l.range.end) !== l.raw) assert.fail(`${path}: link raw differs from its slice`);
    if (l.kind !== 'frontmatter' && !/^!?\[/.test(l.raw)) assert.fail(`${path}: body link ${l.raw} does not start with [`);
  }
  for (const h of m.headings) if (text.slice(h.textRange.start, h.textRange.end) !== h.text) assert.fail(`${path}: heading text`);
  for (const t of m.tags) {
    if (t.source === 'inline' && text.slice(t.range.start, t.range.end) !== `#${t.name}`) assert.fail(`${path}: tag slice`);
  }
  for (let i = 1; i < m.sections.length; i++) {
    if (m.sections[i - 1]?.range.end !== m.sections[i]?.range.start) assert.fail(`${path}: sections not contiguous`);
  }
  if (m.sections.length > 0 && m.sections[m.sections.length - 1]?.range.end !== text.length) assert.fail(`${path}: last section short`);
}

function parseCorpus(vault: string): Totals {
  const t: Totals = { notes: 0, bodyWikilinks: 0, escapedPipe: 0, frontmatterLinks: 0, inlineTags: 0, frontmatterTags: 0, headings: 0, yamlErrors: 0, longestLine: 0 };
  // scanVault skips dot-folders (.obsidian, .trash), as Obsidian does.
  for (const file of scanVault(vault).files) {
    if (file.ext !== 'md') continue;
    const { text } = readNoteFile(vault, file.path);
    const m = parseNote(text);
    checkNote(file.path, text, m);
    t.notes++;
    for (const l of m.links) {
      if (l.kind === 'frontmatter') t.frontmatterLinks++;
      else if (l.raw.includes('[[')) t.bodyWikilinks++;
      if (l.raw.includes('\\|')) t.escapedPipe++;
    }
    for (const tag of m.tags) tag.source === 'inline' ? t.inlineTags++ : t.frontmatterTags++;
    t.headings += m.headings.length;
    if (m.frontmatter?.error) t.yamlErrors++;
    for (let i = 1; i < m.lineStarts.length + 1; i++) {
      const len = (m.lineStarts[i] ?? text.length) - (m.lineStarts[i - 1] as number);
      if (len > t.longestLine) t.longestLine = len;
    }
  }
  return t;
}

/** Per-corpus expectations from each corpus README (statistics table and quirks). */
const EXPECT: Record<string, (t: Totals) => void> = {
  'kepano-obsidian': (t) => {
    near(t.bodyWikilinks, 75, 0.02, 'body wikilinks');
    near(t.frontmatterLinks, 134, 0.05, 'frontmatter links');
    near(t.headings, 48, 0.02, 'headings');
    // README: "28 frontmatter blocks are not valid YAML until the template is applied".
    assert.equal(t.yamlErrors, 28);
  },
  vaultofknowledge: (t) => {
    near(t.bodyWikilinks, 2726, 0.02, 'body wikilinks');
    near(t.inlineTags, 120, 0.1, 'inline tags');
    near(t.headings, 4037, 0.02, 'headings');
  },
  'openbox-ru': (t) => {
    near(t.bodyWikilinks, 3080, 0.03, 'body wikilinks');
    near(t.inlineTags, 236, 0.1, 'inline tags');
    near(t.frontmatterTags, 1089, 0.05, 'frontmatter tags');
    near(t.headings, 489, 0.02, 'headings');
    // README: about half of the links are written [[path\|text]]; base64 lines of ~2 MB.
    assert.ok(t.escapedPipe > 0.4 * t.bodyWikilinks, `\\| links: ${t.escapedPipe}`);
    assert.ok(t.longestLine > 1_000_000, `longest line ${t.longestLine}`);
  },
  'frontend-vault-ru': (t) => {
    near(t.bodyWikilinks, 12578, 0.02, 'body wikilinks');
    near(t.inlineTags, 5098, 0.05, 'inline tags');
    near(t.frontmatterTags, 5507, 0.02, 'frontmatter tags');
    near(t.headings, 34462, 0.01, 'headings');
  },
};

eachCorpus('markdown corpora', (corpus) => {
  test(`markdown: ${corpus.name}: every note parses, every element slices to its text, totals match the README`, () => {
    const t = parseCorpus(corpus.vault);
    if (process.env.VAULTGATE_CORPUS_REPORT) console.log(corpus.name, JSON.stringify(t));
    assert.ok(t.notes > 0);
    EXPECT[corpus.name]?.(t);
  });
});
