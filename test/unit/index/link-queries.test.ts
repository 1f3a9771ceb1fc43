import assert from 'node:assert/strict';
import path from 'node:path';
import { test } from 'node:test';
import { backlinksFromIndex, checkFromIndex, noteLinksFromIndex, resolveFromIndex, withFreshIndex } from '../../../src/index/index.js';
import { backlinks, checkVault, noteLinks, openVaultView, resolveInVault } from '../../../src/links/index.js';
import { REPO_ROOT } from '../../helpers/run-cli.js';
import { tempDir, tempVault } from '../../helpers/temp-vault.js';

const DEMO = path.join(REPO_ROOT, 'examples/demo-vault');

test('index-backed check, links and backlinks equal the direct implementations on the demo vault', () => {
  const env = { VAULTGATE_HOME: tempDir() };
  withFreshIndex(DEMO, env, (h, refresh) => {
    assert.deepEqual(checkFromIndex(h.db, refresh.warnings), checkVault(DEMO));
    for (const note of openVaultView(DEMO).notePaths()) {
      assert.deepEqual(noteLinksFromIndex(h.db, DEMO, note, refresh.warnings), noteLinks(DEMO, note), note);
      assert.deepEqual(backlinksFromIndex(h.db, DEMO, note, refresh.warnings), backlinks(DEMO, note), note);
    }
  });
});

test('index-backed resolve equals the direct resolver, including subpaths and duplicates', () => {
  const { root, home } = tempVault({
    'a/From.md': 'x',
    'b/Note.md': '# Note\n## Part\n',
    'c/Note.md': '# Other\n',
    'Note.md': '# Root\n## Part\ntext ^blk\n',
  });
  withFreshIndex(root, { VAULTGATE_HOME: home }, (h, refresh) => {
    for (const link of ['[[Note]]', '[[Note#Part]]', '[[Note#Nope]]', '[[b/Note#Part]]', '[[Note#^blk]]', '[[Missing]]', '[[#Heading]]', '[t](Note.md)']) {
      const { warnings: _w1, ...a } = resolveFromIndex(h.db, root, link, 'a/From.md', refresh.warnings);
      const { warnings: _w2, ...b } = resolveInVault(root, link, 'a/From.md');
      assert.deepEqual(a, b, link);
    }
  });
});
