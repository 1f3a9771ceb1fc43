import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { assertNoSymlinkComponents, locateOnDisk, normalizeVaultPath, readNoteFile, readVaultBytes, readWalkedBytes, scanVault, toVaultRelative } from '../../../src/vault/index.js';
import { tempVault } from '../../helpers/temp-vault.js';

test('normalizeVaultPath: canonical NFC form, refusals carry stable codes', () => {
  assert.equal(normalizeVaultPath('a/Йо.md'.normalize('NFD')), 'a/Йо.md'.normalize('NFC'));
  const code = (f: () => unknown) => {
    try {
      f();
      return 'none';
    } catch (e) {
      return (e as { code: string }).code;
    }
  };
  assert.equal(code(() => normalizeVaultPath('../x.md')), 'PATH_OUTSIDE_VAULT');
  assert.equal(code(() => normalizeVaultPath('a/../../x.md')), 'PATH_OUTSIDE_VAULT');
  assert.equal(code(() => normalizeVaultPath('/etc/passwd')), 'PATH_OUTSIDE_VAULT');
  assert.equal(code(() => normalizeVaultPath('a\\b.md')), 'PATH_INVALID');
  assert.equal(code(() => normalizeVaultPath('a//b.md')), 'PATH_INVALID');
  assert.equal(code(() => normalizeVaultPath('a/./b.md')), 'PATH_INVALID');
  assert.equal(code(() => normalizeVaultPath('a\u0000b')), 'PATH_INVALID');
  assert.equal(code(() => normalizeVaultPath('')), 'PATH_INVALID');
  assert.equal(code(() => normalizeVaultPath('con.md', { portable: true })), 'PATH_INVALID');
  assert.equal(code(() => normalizeVaultPath('a?.md', { portable: true })), 'PATH_INVALID');
  assert.equal(code(() => normalizeVaultPath('x'.repeat(256))), 'PATH_INVALID');
  assert.equal(normalizeVaultPath('a?.md'), 'a?.md');
});

test('toVaultRelative accepts absolute paths inside the vault only', () => {
  const { root } = tempVault({ 'a/b.md': 'x' });
  assert.equal(toVaultRelative(root, path.join(root, 'a/b.md')), 'a/b.md');
  assert.equal(toVaultRelative(root, './a/b.md'), 'a/b.md');
  assert.throws(() => toVaultRelative(root, path.dirname(root)), { code: 'PATH_OUTSIDE_VAULT' });
});

test('toVaultRelative resolves . and .. before judging, and quotes what was typed when the path climbs out', () => {
  const { root } = tempVault({ 'Home.md': 'x' });
  assert.equal(toVaultRelative(root, 'Games/../Home.md'), 'Home.md');
  assert.equal(toVaultRelative(root, './a/./b/../c.md'), 'a/c.md');
  assert.equal(toVaultRelative(root, path.join(root, 'Games/../Home.md')), 'Home.md');
  for (const input of ['../../etc/passwd', 'a/../../x.md', '..']) {
    assert.throws(() => toVaultRelative(root, input), (e: any) => e.code === 'PATH_OUTSIDE_VAULT' && e.message.includes(JSON.stringify(input)) && e.path === input);
  }
  assert.throws(() => toVaultRelative(root, 'a/..'), { code: 'PATH_INVALID' });
  assert.throws(() => toVaultRelative(root, 'a/../b//c.md'), (e: any) => e.code === 'PATH_INVALID' && e.message.includes('"a/../b//c.md"'));
  // The lexical rule is for what people type; bundle paths keep refusing every `..`.
  assert.throws(() => normalizeVaultPath('Games/../Home.md'), { code: 'PATH_OUTSIDE_VAULT' });
});

test('symlink components are refused, even when they point inside the vault', () => {
  const { root } = tempVault({ 'real/n.md': 'x' });
  fs.symlinkSync(path.join(root, 'real'), path.join(root, 'link'));
  fs.symlinkSync('/etc/hostname', path.join(root, 'host.md'));
  assert.throws(() => assertNoSymlinkComponents(root, 'link/n.md'), { code: 'PATH_SYMLINK' });
  assert.throws(() => readNoteFile(root, 'link/n.md'), { code: 'PATH_SYMLINK' });
  assert.throws(() => readNoteFile(root, 'host.md'), { code: 'PATH_SYMLINK' });
  assert.equal(assertNoSymlinkComponents(root, 'real/new.md'), path.join(root, 'real/new.md'));
  const scanned = scanVault(root);
  assert.deepEqual(scanned.files.map((f) => f.path), ['real/n.md']);
  assert.deepEqual(scanned.warnings.map((w) => w.code).sort(), ['SYMLINK_SKIPPED', 'SYMLINK_SKIPPED']);
});

test('an NFD file name on disk is found by its NFC vault path', () => {
  const nfd = 'Заметки/ёж.md'.normalize('NFD');
  const { root } = tempVault({ [nfd]: 'ёж' });
  const nfc = 'Заметки/ёж.md'.normalize('NFC');
  assert.notEqual(nfd, nfc);
  assert.equal(locateOnDisk(root, nfc), path.join(root, nfd));
  assert.equal(readNoteFile(root, nfc).text, 'ёж');
  assert.deepEqual(scanVault(root).files.map((f) => [f.path, f.diskPath]), [[nfc, nfd]]);
});

test('reads refuse folders, invalid UTF-8 and oversized files; BOM is stripped but hashed', () => {
  const { root } = tempVault({
    'dir/x.md': 'x',
    'bad.md': Buffer.from([0x61, 0xff, 0x62]),
    'bom.md': Buffer.from([0xef, 0xbb, 0xbf, 0x68, 0x69]),
    'big.md': 'y'.repeat(100),
  });
  assert.throws(() => readNoteFile(root, 'dir'), { code: 'NOT_A_FILE' });
  assert.throws(() => readNoteFile(root, 'bad.md'), { code: 'NOT_UTF8' });
  assert.throws(() => readNoteFile(root, 'missing.md'), { code: 'NOT_FOUND' });
  assert.throws(() => readNoteFile(root, 'big.md', 50), { code: 'FILE_TOO_LARGE' });
  const bom = readNoteFile(root, 'bom.md');
  assert.equal(bom.text, 'hi');
  assert.equal(bom.bom, true);
  assert.equal(bom.size, 5);
});

test('scanVault skips dot-folders and dot-files, as Obsidian does', () => {
  const { root } = tempVault({
    'a.md': '',
    '.obsidian/app.json': '{}',
    '.trash/old.md': '',
    '.git/HEAD': '',
    '.vaultgate/vault-id': '',
    'sub/.hidden.md': '',
    'sub/img.PNG': '',
  });
  assert.deepEqual(scanVault(root).files.map((f) => [f.path, f.ext]), [['a.md', 'md'], ['sub/img.PNG', 'png']]);
});

test('readWalkedBytes: reads the inode the walk found, and nothing else', () => {
  const { root } = tempVault({ 'a/b/note.md': 'walked', 'elsewhere/b/note.md': 'outside' });
  const walkedAs = (rel: string) => {
    const st = fs.lstatSync(path.join(root, rel));
    return { path: rel, diskPath: rel, ino: st.ino, dev: st.dev };
  };
  const note = walkedAs('a/b/note.md');
  assert.equal(readWalkedBytes(root, note)?.toString(), 'walked');
  // Over the size limit: left to readVaultBytes, which refuses it by name.
  assert.equal(readWalkedBytes(root, note, 3), null);
  // An inode number of 0 proves nothing.
  assert.equal(readWalkedBytes(root, { ...note, ino: 0 }), null);
  // A folder on the way replaced by a symlink to another folder holding a file of the same name: another inode, not read.
  fs.renameSync(path.join(root, 'a/b'), path.join(root, 'a/b-old'));
  fs.symlinkSync(path.join(root, 'elsewhere/b'), path.join(root, 'a/b'));
  assert.equal(readWalkedBytes(root, note), null);
  assert.throws(() => readVaultBytes(root, 'a/b/note.md'), (e: { code?: string }) => e.code === 'PATH_SYMLINK');
  fs.rmSync(path.join(root, 'a/b'));
  fs.renameSync(path.join(root, 'a/b-old'), path.join(root, 'a/b'));
  // The note itself replaced by a symlink, or by a new file: not read.
  fs.renameSync(path.join(root, 'a/b/note.md'), path.join(root, 'a/b/kept.md'));
  fs.symlinkSync(path.join(root, 'a/b/kept.md'), path.join(root, 'a/b/note.md'));
  assert.equal(readWalkedBytes(root, note), null);
  fs.rmSync(path.join(root, 'a/b/note.md'));
  fs.writeFileSync(path.join(root, 'a/b/note.md'), 'new bytes');
  assert.equal(readWalkedBytes(root, note), null);
  assert.equal(readWalkedBytes(root, walkedAs('a/b/note.md'))?.toString(), 'new bytes');
  // Gone: null, and readVaultBytes says NOT_FOUND.
  fs.rmSync(path.join(root, 'a/b/note.md'));
  assert.equal(readWalkedBytes(root, note), null);
});
