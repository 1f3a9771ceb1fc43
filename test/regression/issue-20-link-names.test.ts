import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.js';
import { snapshotTree, tempDir, tempVault } from '../helpers/temp-vault.js';

/**
 * Issue 20 §7: a proposal could create `a#b.md`, `x^y.md`, `[draft].md` or
 * `a|b.md` — names no Obsidian link can reach (`#` starts a heading, `^` a block,
 * `|` the display text, brackets end the link). Every path a proposal creates
 * (a new note, a move's or rename's destination, each file of a folder move,
 * a `--changes` write) is now refused with PATH_INVALID (exit 2) and a hint; a
 * file that already has such a name stays readable, editable and movable away.
 */
const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const A = '# A\n\ntext\n';
const OLD = '# Old\n\nkept\n';

test('issue 20.7: a proposal never creates a name with # ^ [ ] |; an existing one stays usable', async () => {
  const { root, home } = tempVault({ 'A.md': A, 'Dir/n.md': '# n\n', 'Old#1.md': OLD });
  const cli = (args: string[]) => runCli(args, { vault: root, home });
  const before = snapshotTree(root);
  const work = tempDir();
  const changes = path.join(work, 'c.json');
  fs.writeFileSync(changes, JSON.stringify({ title: 't', changes: [{ path: 'c].md', action: 'write', content: 'x', base: null }] }));
  const refused: string[][] = [
    ['propose', 'a#b.md', '--content', 'x', '--base', 'none'],
    ['propose', 'x^y.md', '--content', 'x', '--base', 'none'],
    ['propose', '[draft].md', '--content', 'x', '--base', 'none'],
    ['propose', 'Dir#x/note.md', '--content', 'x', '--base', 'none'],
    ['propose', '--move', 'A.md', 'B^1.md', '--base', sha(A)],
    ['propose', '--move', 'A.md', 'Sub[1]/', '--base', sha(A)],
    ['propose', '--rename', 'A.md', 'A [draft]', '--base', sha(A)],
    ['propose', '--move', 'Dir', 'Dir#2'],
    ['propose', '--rename', 'Dir', 'D|2'],
    ['propose', '--changes', changes],
  ];
  for (const args of refused) {
    const r = await cli(args);
    assert.deepEqual([r.exitCode, r.json?.error?.code], [2, 'PATH_INVALID'], `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    assert.match(r.json.error.hint, /Obsidian/, `${args.join(' ')}: the hint says why: ${r.json.error.hint}`);
  }
  assert.deepEqual(snapshotTree(root), before, 'nothing was written');
  assert.equal((await cli(['proposals'])).json.total, 0, 'nothing was stored');

  // an existing such note: read, edited, moved to a good name
  const note = await cli(['note', 'Old#1.md']);
  assert.equal(note.exitCode, 0, note.stdout);
  const edit = await cli(['propose', 'Old#1.md', '--append', '--content', 'more\n', '--base', sha(OLD)]);
  assert.equal(edit.exitCode, 0, edit.stdout);
  const away = await cli(['propose', '--rename', 'Old#1.md', 'Old 1', '--base', sha(OLD)]);
  assert.equal(away.exitCode, 0, away.stdout);
});
