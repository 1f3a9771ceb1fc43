/**
 * Link resolution over the real vaults in ../shared/corpora, read in place.
 * Asserts no crash and that the share of body wikilinks (`[[…]]` and `![[…]]`
 * outside frontmatter, as counted by each corpus README) that resolve to a file
 * stays within a band around the README's `wiki_resolved_fraction(resolver)`.
 * `VAULTGATE_CORPUS_REPORT=1` prints the per-corpus figures.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { checkVault, isExternalLink, openVaultView, resolveLink, type LinkStatus, type VaultView } from '../../src/links/index.js';
import { eachCorpus } from '../helpers/corpora.js';

/**
 * README figures per corpus: the resolution rate and how far from it we accept
 * (our parser and the README's crude scanner differ in detail), the number of
 * notes (`notes_md`: `.trash/` not counted) and, where the README names it, the
 * number of notes whose frontmatter is not valid YAML.
 */
const EXPECTED: Record<string, { rate: number; band: number; notes: number; invalidFrontmatter?: number }> = {
  'kepano-obsidian': { rate: 0.853, band: 0.03, notes: 103, invalidFrontmatter: 28 }, // 75 links: one link is 0.013
  vaultofknowledge: { rate: 0.935, band: 0.02, notes: 2721 },
  'openbox-ru': { rate: 0.802, band: 0.02, notes: 1390 },
  'frontend-vault-ru': { rate: 0.448, band: 0.02, notes: 1407 },
};

export function bodyWikilinkFigures(view: VaultView) {
  const counts: Record<LinkStatus, number> = { resolved: 0, unresolved: 0, ambiguous: 0, unindexed: 0 };
  let brokenAnchors = 0;
  for (const source of view.notePaths()) {
    for (const link of view.note(source)?.links ?? []) {
      if (link.kind === 'frontmatter' || !link.raw.includes('[[') || isExternalLink(link)) continue;
      const r = resolveLink(view.index, link, source, view.anchors);
      counts[r.status]++;
      if (r.status === 'resolved' && r.subpath?.exists === false) brokenAnchors++;
    }
  }
  const total = counts.resolved + counts.unresolved + counts.ambiguous + counts.unindexed;
  return { total, ...counts, brokenAnchors, rate: total === 0 ? 0 : counts.resolved / total, warnings: view.warnings.length };
}

eachCorpus('links corpora', (corpus) => {
  test(`links: ${corpus.name}: body wikilinks resolve at the README's rate, and check's counts add up`, () => {
    const view = openVaultView(corpus.vault);
    const f = bodyWikilinkFigures(view);
    if (process.env.VAULTGATE_CORPUS_REPORT) console.log(corpus.name, JSON.stringify(f));
    const want = EXPECTED[corpus.name];
    assert.ok(f.total > 0, 'the corpus has wikilinks');
    if (want) assert.ok(Math.abs(f.rate - want.rate) <= want.band, `${corpus.name}: rate ${f.rate.toFixed(3)}, README ${want.rate}`);

    const h = checkVault(corpus.vault, view);
    const c = h.counts;
    assert.equal(c.links, c.resolved + c.unresolved + c.ambiguous + c.unindexed + c.external);
    assert.equal(c.unresolved, h.items.unresolved.length);
    assert.equal(c.ambiguous, h.items.ambiguous.length);
    assert.ok(c.resolved >= f.resolved, 'check sees at least the body wikilinks');
    assert.ok(c.orphans <= c.notes);
    if (want) assert.equal(c.notes, want.notes, 'notes seen, dot-folders skipped');
    if (want?.invalidFrontmatter !== undefined) assert.equal(c.invalid_frontmatter, want.invalidFrontmatter);
    assert.equal(c.warnings, 0, JSON.stringify(h.warnings.slice(0, 3)));
  });
});
