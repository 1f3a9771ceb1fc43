/**
 * The index over the real vaults in ../shared/corpora, read in place (the index
 * goes to a temporary VAULTGATE_HOME). Asserts sane totals, that a few searches
 * find notes, that a second refresh is a no-op, and — on the smaller vaults — that
 * every stored link resolution equals what the links module computes directly.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { buildContext } from '../../src/context/index.js';
import { checkFromIndex, withFreshIndex } from '../../src/index/index.js';
import { relinkIndex } from '../../src/index/relink.js';
import { searchIndex } from '../../src/retrieval/index.js';
import { checkVault, isExternalLink, openVaultView, resolveLink } from '../../src/links/index.js';
import { eachCorpus } from '../helpers/corpora.js';
import { tempDir } from '../helpers/temp-vault.js';

const QUERIES: Record<string, string[]> = {
  'kepano-obsidian': ['template', 'daily note', 'recipe'],
  vaultofknowledge: ['philosophy', 'javascript', 'how does memory work'],
  'openbox-ru': ['заметки', 'javascript', 'как вести дневник'],
  'frontend-vault-ru': ['компоненты', 'react', 'что такое замыкание'],
};
const CROSS_CHECK = new Set(['kepano-obsidian', 'vaultofknowledge']);

eachCorpus('index corpora', (corpus) => {
  test(`index corpus ${corpus.name}: indexes in place, searches find notes, links match the resolver`, () => {
    const env = { VAULTGATE_HOME: tempDir() };
    const first = withFreshIndex(corpus.vault, env, (h) => h.db.prepare(`SELECT count(*) FROM files WHERE kind = 'note'`).pluck().get() as number);
    assert.ok(first.refresh.notes > 50, `${first.refresh.notes} notes`);
    assert.equal(first.result, first.refresh.notes);
    const second = withFreshIndex(corpus.vault, env, () => null);
    assert.equal(second.refresh.refreshed, false);
    for (const q of QUERIES[corpus.name] ?? ['the']) {
      const r = withFreshIndex(corpus.vault, env, (h) => searchIndex(h.db, q, { limit: 5 })).result;
      assert.ok(r.total > 0 && r.hits.length > 0, `${corpus.name}: no hits for ${q}`);
      assert.ok(r.hits.every((h) => h.path.endsWith('.md') && h.lines[0] <= h.lines[1]));
    }
    const packet = buildContext(corpus.vault, env, { question: QUERIES[corpus.name]?.[2] ?? 'notes', budgetChars: 8000 });
    assert.ok(packet.total > 0 && packet.budget.used <= 8000);
    // The first build resolved most links as it inserted them: a relink of every link changes none.
    withFreshIndex(corpus.vault, env, (h) => {
      const changed = new Set<string>();
      const before = h.db.prepare('SELECT id, status, target, resolution FROM links ORDER BY id').raw().all();
      h.db.transaction(() => relinkIndex(h.db, { all: true, nameKeys: new Set(), targets: new Set() }, undefined, changed))();
      assert.deepEqual([...changed], [], `${corpus.name}: a full relink changed resolutions`);
      assert.deepEqual(h.db.prepare('SELECT id, status, target, resolution FROM links ORDER BY id').raw().all(), before);
    });

    if (!CROSS_CHECK.has(corpus.name)) return;
    const view = openVaultView(corpus.vault);
    const stored = withFreshIndex(corpus.vault, env, (h) =>
      h.db
        .prepare(`SELECT f.path AS source, l.ord, l.status, l.target FROM links l JOIN files f ON f.id = l.file_id WHERE l.external = 0 ORDER BY f.path, l.ord`)
        .all(),
    ).result as { source: string; ord: number; status: string; target: string | null }[];
    const bySource = new Map<string, typeof stored>();
    for (const row of stored) bySource.set(row.source, [...(bySource.get(row.source) ?? []), row]);
    let compared = 0;
    for (const source of view.notePaths()) {
      const links = (view.note(source)?.links ?? []).map((l, ord) => ({ l, ord })).filter(({ l }) => !isExternalLink(l));
      const rows = bySource.get(source) ?? [];
      assert.equal(rows.length, links.length, source);
      links.forEach(({ l, ord }, i) => {
        const r = resolveLink(view.index, l, source, view.anchors);
        assert.deepEqual([rows[i]!.ord, rows[i]!.status, rows[i]!.target], [ord, r.status, r.target], `${source}: ${l.raw}`);
        compared++;
      });
    }
    assert.ok(compared > 0);
    const health = withFreshIndex(corpus.vault, env, (h, refresh) => checkFromIndex(h.db, refresh.warnings)).result;
    assert.deepEqual(health, checkVault(corpus.vault, view));
  });
});
