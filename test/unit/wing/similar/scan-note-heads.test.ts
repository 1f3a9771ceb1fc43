/**
 * load-vectors.ts scanNoteHeads: every note once, with its own sections,
 * whether the scan reads sections one note at a time (most notes ruled out by
 * their heads) or, once most of its first notes needed them, the rest whole.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { noteWriter, openVectorStore } from '../../../../src/wing/similar/vector-store.js';
import { scanNoteHeads } from '../../../../src/wing/similar/load-vectors.js';
import { tempVault } from '../../../helpers/temp-vault.js';

const NOTES = 600;

function storeWithNotes() {
  const { root, home } = tempVault({ 'a.md': '# A\n' });
  const store = openVectorStore(root, { VAULTGATE_HOME: home });
  const writer = noteWriter(store, 'toy', 'm', 2);
  store.transaction(() => {
    // Written out of path order: the scan goes by rowid, and must still see every note once.
    for (let i = NOTES - 1; i >= 0; i--) {
      const k = (i % 3) + 1;
      writer.put({
        path: `n${String(i).padStart(4, '0')}.md`,
        sha256: `sha${i}`,
        dense: Float32Array.from([i, 1]),
        sparse: null,
        lengths: Array.from({ length: k }, (_, j) => i * 10 + j + 1),
        sections: Array.from({ length: k }, (_, j) => Float32Array.from([1, j])),
        sectionsJson: '[]',
      });
    }
  })();
  return store;
}

for (const [name, wants] of [
  ['few notes need their sections', (i: number) => i % 10 === 0],
  ['nearly every note needs its sections', (i: number) => i % 10 !== 0],
] as const) {
  test(`scanNoteHeads: ${name} — every note once, each with its own sections`, () => {
    const store = storeWithNotes();
    try {
      const seen = new Set<string>();
      scanNoteHeads(store, 'toy', 'm', (head, sections) => {
        assert.ok(!seen.has(head.path), `${head.path} seen twice`);
        seen.add(head.path);
        const i = head.dense[0]!;
        assert.equal(head.path, `n${String(i).padStart(4, '0')}.md`);
        if (!wants(i)) return;
        const s = sections();
        const k = (i % 3) + 1;
        // The lengths carry the note's number: each note gets its own sections, not a neighbour's.
        assert.deepEqual([...s.lens], Array.from({ length: k }, (_, j) => i * 10 + j + 1));
        assert.equal(s.dims, 2);
        assert.equal(s.all.length, 2 * k);
      });
      assert.equal(seen.size, NOTES);
    } finally {
      store.close();
    }
  });
}
