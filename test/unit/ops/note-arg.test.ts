/**
 * One NOTE resolver for every verb that takes a NOTE (src/ops/note-arg.ts): a
 * path as always; else the name people type (`Name`, `Name.md`, `[[Name]]`),
 * resolved as Obsidian resolves `[[Name]]` from the vault root; several notes
 * of that name is NOTE_AMBIGUOUS with the candidates; none, the path's NOT_FOUND.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runCli } from '../../helpers/run-cli.js';
import { tempVault } from '../../helpers/temp-vault.js';

const files = {
  'Games/Catan/Rules.md': '# Catan\nsee [[Sourdough]]\n',
  'Games/Chess/Rules.md': '# Chess\n',
  'Wiki/Sourdough.md': '# Sourdough\n## Starter\nfeed it, then [[Rules]]\n',
  'Wiki/Bread.md': '# Bread\n[[Sourdough]] is bread\n',
};

test('note, links and backlinks read a NOTE as a path or as a name, the same way', async () => {
  const { root, home } = tempVault(files);
  for (const arg of ['Wiki/Sourdough.md', 'Sourdough', 'Sourdough.md', '[[Sourdough]]', '[[Sourdough|the starter]]']) {
    const note = await runCli(['note', arg, '--json'], { vault: root, home });
    assert.equal(note.exitCode, 0, `${arg}: ${note.stdout}`);
    assert.equal(note.json.path, 'Wiki/Sourdough.md');
    assert.equal(note.json.resolved_from, arg === 'Wiki/Sourdough.md' ? undefined : arg);
    const links = await runCli(['links', arg, '--json'], { vault: root, home });
    assert.equal(links.exitCode, 0, `${arg}: ${links.stdout}`);
    assert.equal(links.json.note, 'Wiki/Sourdough.md');
    const back = await runCli(['backlinks', arg, '--json'], { vault: root, home });
    assert.equal(back.exitCode, 0, `${arg}: ${back.stdout}`);
    assert.equal(back.json.note, 'Wiki/Sourdough.md');
    assert.deepEqual(back.json.backlinks.map((b: { source: string }) => b.source), ['Games/Catan/Rules.md', 'Wiki/Bread.md']);
  }
});

test('a name of several notes is NOTE_AMBIGUOUS with the candidates, for every verb; no note is NOT_FOUND', async () => {
  const { root, home } = tempVault(files);
  for (const verb of ['note', 'links', 'backlinks']) {
    const r = await runCli([verb, 'Rules', '--json'], { vault: root, home });
    assert.equal(r.exitCode, 2, `${verb}: ${r.stdout}`);
    assert.equal(r.json.error.code, 'NOTE_AMBIGUOUS');
    assert.deepEqual(r.json.error.details.candidates, ['Games/Catan/Rules.md', 'Games/Chess/Rules.md']);
    const missing = await runCli([verb, 'Nothing here', '--json'], { vault: root, home });
    assert.equal(missing.json.error.code, 'NOT_FOUND', `${verb}: ${missing.stdout}`);
  }
});
