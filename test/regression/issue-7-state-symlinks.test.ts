import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.js';
import { snapshotTree, tempVault } from '../helpers/temp-vault.js';
import { makeBundle, writeBundleFile } from '../unit/txn/txn-helpers.js';

/**
 * Issue #7 defect 2: symlinks planted anywhere under `.vaultgate/` (a vault synced or
 * cloned from an untrusted place can carry them) used to be followed: apply created
 * its journal, folders and hard links of notes outside the vault, then failed with a
 * false "check disk space". Every runtime path is now checked without following
 * links, and a link is an integrity error (exit 3) that names it.
 */
const cli = (root: string, home: string, args: string[]) => runCli(args, { vault: root, home });

interface Plant {
  /** Path under the vault of the link. */
  at: string;
  /** Whether the link points at a folder (else at a file with `content`). */
  dir: boolean;
  content?: string;
  /** Initialise the vault before planting (else the first apply initialises it). */
  init: boolean;
}

const UUID = '0f0e0d0c-0b0a-4908-8706-050403020100';
const PLANTS: Plant[] = [
  { at: '.vaultgate/txn', dir: true, init: true },
  { at: '.vaultgate/txn', dir: true, init: false },
  { at: '.vaultgate/txn/pending', dir: true, init: true },
  { at: '.vaultgate/txn/backups', dir: true, init: true },
  { at: '.vaultgate/txn/done', dir: true, init: true },
  { at: '.vaultgate/txn/displaced', dir: true, init: true },
  { at: '.vaultgate/txn/history.jsonl', dir: false, content: '', init: true },
  { at: '.vaultgate/lock', dir: true, init: true },
  { at: '.vaultgate/vault-id', dir: false, content: `${UUID}\n`, init: false },
  { at: '.vaultgate/config.yaml', dir: false, content: 'captures_folder: Inbox\n', init: true },
  { at: '.vaultgate/txn/pending/op1', dir: true, init: true },
];

for (const plant of PLANTS) {
  test(`issue 7.2: a symlink planted at ${plant.at}${plant.init ? '' : ' (before init)'} stops apply with exit 3 naming it; nothing is created outside the vault`, async () => {
    const { root, home } = tempVault({ 'a.md': 'A' });
    if (plant.init) assert.equal((await cli(root, home, ['init'])).exitCode, 0);
    const outside = path.join(path.dirname(root), 'outside');
    fs.mkdirSync(outside);
    const target = plant.dir ? path.join(outside, 'dir') : path.join(outside, 'file');
    if (plant.dir) fs.mkdirSync(target);
    else fs.writeFileSync(target, plant.content ?? '');
    const link = path.join(root, plant.at);
    fs.mkdirSync(path.dirname(link), { recursive: true });
    fs.rmSync(link, { recursive: true, force: true });
    fs.symlinkSync(target, link);
    const outsideBefore = snapshotTree(outside, { includeHidden: true });
    const notesBefore = snapshotTree(root);
    const file = writeBundleFile(path.dirname(root), makeBundle(root, 'op1', [{ path: 'a.md', mode: 'replace', content: 'A2' }, { path: 'n/b.md', mode: 'create', content: 'B' }]));
    const i = await cli(root, home, ['tx', 'inspect', file]);
    const approval = i.json?.approval_sha256 ?? 'ab'.repeat(32);
    const a = await cli(root, home, ['tx', 'apply', file, '--approval', approval]);
    assert.deepEqual([a.exitCode, a.json?.error?.code], [3, 'STATE_CORRUPT'], a.stdout + a.stderr);
    assert.ok(a.json.error.message.includes(plant.at), `the error names the link: ${a.json.error.message}`);
    assert.deepEqual(snapshotTree(outside, { includeHidden: true }), outsideBefore, 'something was created or changed outside the vault');
    assert.deepEqual(snapshotTree(root), notesBefore, 'the notes changed');
    for (const args of [['tx', 'status'], ['tx', 'recover'], ['undo', 'op0']]) {
      const r = await cli(root, home, args);
      assert.notEqual(r.exitCode, 0, `${args.join(' ')} ignored the link`);
      assert.notEqual(r.exitCode, 1, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    }
    assert.deepEqual(snapshotTree(outside, { includeHidden: true }), outsideBefore);
  });
}
