import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { RACY_MS, scanVault, statWalk } from '../../../src/vault/index.js';
import { tempVault } from '../../helpers/temp-vault.js';

/** Set every folder's mtime well in the past, so a walk trusts its record (older than RACY_MS). */
function ageFolders(root: string): void {
  const old = new Date(Date.now() - 10 * RACY_MS);
  const visit = (dir: string) => {
    for (const e of fs.readdirSync(dir, { withFileTypes: true })) if (e.isDirectory()) visit(path.join(dir, e.name));
    fs.utimesSync(dir, old, old);
  };
  visit(root);
}

test('statWalk: the same files as scanVault, and an equal digest when nothing changed', () => {
  const { root } = tempVault({ 'a.md': 'a', 'sub/b.md': 'bb', 'sub/deep/c.png': '', '.obsidian/app.json': '{}' });
  ageFolders(root);
  const first = statWalk(root);
  assert.deepEqual(first.files(), scanVault(root).files);
  assert.deepEqual(first.files().map((f) => f.path), ['a.md', 'sub/b.md', 'sub/deep/c.png']);
  const again = statWalk(root, first.tree);
  assert.equal(again.digest, first.digest);
  assert.equal(again.foldersRead, 0, 'unchanged folders are not read again');
  assert.equal(again.treeChanged, false);
});

test('statWalk: an added, removed or renamed file changes its folder and the digest; an edited file changes the digest', () => {
  const { root } = tempVault({ 'a.md': 'a', 'sub/b.md': 'bb' });
  ageFolders(root);
  const base = statWalk(root);
  const trustedTree = statWalk(root, base.tree).tree;

  fs.writeFileSync(path.join(root, 'sub/new.md'), 'new'); // the folder's mtime moves
  const added = statWalk(root, trustedTree);
  assert.notEqual(added.digest, base.digest);
  assert.ok(added.files().some((f) => f.path === 'sub/new.md'));
  fs.rmSync(path.join(root, 'sub/new.md'));
  ageFolders(root);

  // Same size, new mtime: the folder is unchanged but the file's stat is not.
  const tree = statWalk(root).tree;
  const before = statWalk(root, tree).digest;
  const t = fs.statSync(path.join(root, 'a.md')).mtime;
  fs.writeFileSync(path.join(root, 'a.md'), 'b');
  fs.utimesSync(path.join(root, 'a.md'), t, new Date(t.getTime() + 5000));
  const edited = statWalk(root, tree);
  assert.equal(edited.foldersRead, 0, 'the folder was not read again');
  assert.notEqual(edited.digest, before);
});

test('statWalk: where folder mtimes are not kept (simulated), a new file is missed until trustDirMtime is off', () => {
  const { root } = tempVault({ 'sub/b.md': 'bb' });
  ageFolders(root);
  const tree = statWalk(root).tree;
  const sub = path.join(root, 'sub');
  const before = fs.statSync(sub);
  fs.writeFileSync(path.join(sub, 'hidden.md'), 'x');
  fs.utimesSync(sub, before.atime, before.mtime); // a filesystem that does not move folder mtimes
  assert.ok(!statWalk(root, tree).files().some((f) => f.path === 'sub/hidden.md'), 'the documented unsound case');
  assert.ok(statWalk(root, tree, { trustDirMtime: false }).files().some((f) => f.path === 'sub/hidden.md'));
});

test('statWalk: a recorded file that vanished under an unchanged folder mtime makes the walk read every folder again', () => {
  const { root } = tempVault({ 'sub/b.md': 'bb', 'sub/c.md': 'cc' });
  ageFolders(root);
  const tree = statWalk(root).tree;
  const sub = path.join(root, 'sub');
  const before = fs.statSync(sub);
  fs.rmSync(path.join(sub, 'b.md'));
  fs.utimesSync(sub, before.atime, before.mtime);
  assert.deepEqual(statWalk(root, tree).files().map((f) => f.path), ['sub/c.md']);
});

test('statWalk: a folder modified just before it was read is read again next time (racy mtime)', () => {
  const { root } = tempVault({ 'sub/b.md': 'bb' });
  // Fresh folders: their mtime is within RACY_MS of the walk, so the record is not trusted.
  const first = statWalk(root);
  assert.equal(first.tree.dirs['sub']?.t, 0);
  const second = statWalk(root, first.tree);
  assert.equal(second.foldersRead, 2, 'the root and sub are read again');
  // Read again with the same result: nothing new to store.
  assert.equal(second.treeChanged, false);
  // Once its mtime is old enough the record is trusted: a changed tree, worth storing.
  ageFolders(root);
  const third = statWalk(root, second.tree);
  assert.equal(third.treeChanged, true);
  assert.equal(third.tree.dirs['sub']?.t, 1);
  assert.equal(statWalk(root, third.tree).foldersRead, 0);
});

test('statWalk: names are NFC in path and as spelled on disk in diskPath; symlinks and dot-folders are skipped', () => {
  const nfd = 'Cafe\u0301.md';
  const { root } = tempVault({ [nfd]: 'x', 'plain.md': 'y', '.trash/old.md': 'z' });
  fs.symlinkSync(path.join(root, 'plain.md'), path.join(root, 'link.md'));
  const w = statWalk(root);
  const cafe = w.files().find((f) => f.diskPath === nfd);
  assert.equal(cafe?.path, 'Café.md');
  assert.deepEqual(w.files().map((f) => f.path).sort(), ['Café.md', 'plain.md']);
  assert.deepEqual(w.warnings.map((x) => [x.path, x.code]), [['link.md', 'SYMLINK_SKIPPED']]);
});
