import assert from 'node:assert/strict';
import { test } from 'node:test';
import { rebuildAnchors } from '../../../src/index/anchors.js';
import { withFreshIndex, type Db } from '../../../src/index/index.js';
import { collectGarbage } from '../../../src/index/collect-garbage.js';
import { tempVault } from '../../helpers/temp-vault.js';

/** Every token of anchors_fts with its row and position (the table is contentless: fts5vocab reads its index). */
function anchorInstances(db: Db): unknown[] {
  db.exec(`CREATE VIRTUAL TABLE IF NOT EXISTS temp.anchor_vocab USING fts5vocab(main, 'anchors_fts', 'instance')`);
  return db.prepare('SELECT term, doc, col, offset FROM temp.anchor_vocab ORDER BY doc, offset, term').raw().all();
}

test('a full anchor rebuild in pages of one note writes the rows one page of every note writes', () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 12; i++) {
    files[`n${i}.md`] = [
      i % 3 === 0 ? `---\ndescription: note number ${i} about bread\n---\n` : '',
      `# Note ${i}\n\nText ${i}.\n\n## Part ${i}\n\nMore.\n`,
      `See [[n${(i + 1) % 12}#Part ${(i + 1) % 12}|the next part]] and [[n${(i + 5) % 12}|a friend ${i}]] and [[n${(i + 1) % 12}]].\n`,
    ].join('');
  }
  const { root, home } = tempVault(files);
  withFreshIndex(root, { VAULTGATE_HOME: home }, (h) => {
    const db = h.db;
    const whole = anchorInstances(db);
    assert.ok(whole.length > 20, 'the vault has anchor text');
    for (const page of [1, 5, 2000]) {
      db.transaction(() => {
        rebuildAnchors(db, 'all', page);
        assert.deepEqual(anchorInstances(db), whole, `page size ${page}`);
        assert.deepEqual(db.prepare('SELECT id FROM anchor_rows ORDER BY id').pluck().all().length, new Set(whole.map((r) => (r as unknown[])[1])).size);
      })();
    }
  });
});

test('collectGarbage reaches the collector without --expose-gc', async () => {
  const ref = new WeakRef(Array.from({ length: 200 }, () => new Array<number>(1000).fill(1)));
  // A WeakRef's target stays alive until the job that made it ends.
  await new Promise((resolve) => setImmediate(resolve));
  collectGarbage();
  assert.equal(ref.deref(), undefined);
});
