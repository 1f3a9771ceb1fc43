/**
 * Conformance of link extraction with Obsidian: which text is a link
 * (links-cases-extract.ts). Each row builds a real temporary vault holding the
 * note `N.md`, lists its links with `noteLinks` and compares raw text, path,
 * subpath, display and status; rows marked `cli` also run the compiled
 * `vaultgate links N.md` (answered from the index).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { noteLinks } from '../../src/links/index.js';
import { parseNote } from '../../src/markdown/index.js';
import { runCliProcess } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';
import { CASES_EXTRACT, type ExtractCase } from './links-cases-extract.js';

function rows(c: ExtractCase, links: Array<{ raw: string; path: string; status: string }>) {
  const model = parseNote(c.note);
  return links.map((l, i) => ({
    raw: l.raw,
    path: l.path,
    subpath: model.links[i]?.subpath ?? null,
    display: model.links[i]?.display ?? null,
    status: l.status,
  }));
}

test('the extraction table names a rule and a source for every row', () => {
  for (const c of CASES_EXTRACT) assert.match(c.rule, /(documented|observed|reverse-engineered|corpus|decided)/, c.name);
  assert.equal(new Set(CASES_EXTRACT.map((c) => c.name)).size, CASES_EXTRACT.length, 'case names are unique');
});

for (const c of CASES_EXTRACT) {
  test(`links: ${c.name} (${c.rule})`, async () => {
    const { root, home } = tempVault({ ...c.files, 'N.md': c.note });
    const direct = noteLinks(root, 'N.md');
    assert.deepEqual(rows(c, direct.links), c.links);
    for (const l of parseNote(c.note).links) assert.equal(c.note.slice(l.range.start, l.range.end), l.raw);
    if (c.cli) {
      const r = await runCliProcess(['links', 'N.md'], { vault: root, home });
      assert.equal(r.exitCode, 0, r.stdout + r.stderr);
      assert.deepEqual(rows(c, r.json.links), c.links);
    }
  });
}
