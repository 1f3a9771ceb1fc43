import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { buildRegistry, noteFileName, validateRegistry, type RegistryRow } from '../../../../src/wing/atomize/registry.js';
import { PROGRESS_SCHEMA } from '../../../../src/wing/atomize/progress.js';
import { WORK_SCHEMA, type Work } from '../../../../src/wing/atomize/work.js';
import { buildFileIndex, type FileIndex } from '../../../../src/links/index.js';
import { isVaultgateError } from '../../../../src/errors.js';
import { tempDir } from '../../../helpers/temp-vault.js';

const row = (line: number, name: string, note: string, aliases: string[] = []): RegistryRow => ({ line, name, kind: 'rule', aliases, chunks: ['c0001'], note });

function problems(rows: RegistryRow[], into: string | null, vault: FileIndex | null): { row: number; column: string | null; problem: string }[] {
  try {
    validateRegistry(rows, into, vault, 'registry.tsv');
  } catch (e) {
    assert.ok(isVaultgateError(e) && e.code === 'ATOMIZE_REGISTRY_INVALID', String(e));
    return e.details!.problems as never;
  }
  return [];
}

test('registry validation: each problem names its row — empty name, shared alias, clashes with the vault by Obsidian folding (case, NFC/NFD)', () => {
  const vault = buildFileIndex(['Rules/warden.md', 'Elsewhere/Strike.md', 'Notes/Cafe\u0301.md'].map((p) => ({ path: p, indexed: true })));
  const rows = [row(2, 'Warden', 'Warden.md'), row(3, '', 'Nameless.md'), row(4, 'Parry', 'Parry.md', ['block']), row(5, 'Block', 'Block.md'), row(6, 'Strike', 'Strike.md'), row(7, 'Café', 'Caf\u00e9.md'), row(8, 'Lantern', '../Lantern.md'), row(9, 'Bell', 'Bell.md')];
  assert.deepEqual(
    problems(rows, 'Rules', vault).map((p) => [p.row, p.column]),
    [[2, 'note'], [3, 'name'], [5, 'name'], [6, 'note'], [7, 'note'], [8, 'note']],
  );
  assert.deepEqual(problems([row(2, 'Bell', 'Bell.md'), row(3, 'Gong', 'bell.md')], 'Rules', null).map((p) => p.row), [3, 3]);
  assert.deepEqual(problems([row(2, 'Bell', 'Bell.md', ['gong'])], 'Rules', vault), []);
  assert.equal(noteFileName('Door/Knocker: [the] #1?'), 'Door Knocker the 1.md');
});

test('registry: entities merged across chunks by name and alias, case and Unicode folded; the first spelling names the row', () => {
  const dir = tempDir();
  const work: Work = { dir, state: { schema: WORK_SCHEMA, source: { file: '/x.md', vault_path: null, sha256: 'a', bytes: 1 }, into: null, created_at: '' } };
  const chunks = ['c0001', 'c0002', 'c0003'].map((id) => ({ id, chapter: 'ch001', start_line: 1, end_line: 1, chars: 1, sha256: id, narrative: false }));
  const entities: Record<string, unknown[]> = {
    c0001: [{ name: 'Café Guard', kind: 'role', aliases: [], sentences: ['a'] }],
    c0002: [{ name: 'CAFE\u0301 GUARD', kind: 'role', aliases: ['Guards'], sentences: ['b'] }, { name: 'Lantern', kind: 'item', aliases: [], sentences: ['c'] }],
    c0003: [{ name: 'guards', kind: 'person', aliases: [], sentences: ['d'] }],
  };
  fs.mkdirSync(path.join(dir, 'progress'));
  for (const c of chunks) fs.writeFileSync(path.join(dir, 'progress', `${c.id}.json`), JSON.stringify({ schema: PROGRESS_SCHEMA, chunk: c.id, chunk_sha256: c.sha256, status: 'done', entities: entities[c.id] }));
  const rows = buildRegistry(work, chunks);
  assert.deepEqual(rows.map((r) => [r.name, r.kind, r.aliases, r.chunks, r.note]), [
    ['Café Guard', 'role', ['Guards'], ['c0001', 'c0002', 'c0003'], 'Café Guard.md'],
    ['Lantern', 'item', [], ['c0002'], 'Lantern.md'],
  ]);
});
