import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { areaOf, checkManagedBlocks, checkOwners, findManagedBlocks, type ProposedFile } from '../../../src/policy/index.js';
import { isExcluded, readVaultConfig } from '../../../src/vault/index.js';
import { tempVault } from '../../helpers/temp-vault.js';

function config(yaml: string) {
  const { root } = tempVault({});
  fs.mkdirSync(path.join(root, '.vaultgate'));
  fs.writeFileSync(path.join(root, '.vaultgate/config.yaml'), yaml);
  return readVaultConfig(root);
}

const write = (p: string, old_text: string | null, new_text: string | null): ProposedFile => ({ path: p, action: 'write', old_text, new_text, old_sha256: old_text === null ? null : 'x', new_sha256: 'y' });

test('areas: the first matching rule wins; unmatched paths get default_owner; index: false excludes from the index', () => {
  const cfg = config(
    'default_owner: unknown\nareas:\n  - glob: "Sources/Mine/**"\n    owner: human\n  - glob: "Sources/**"\n    owner: imported\n  - glob: "dist/**"\n    owner: compiled\n    index: false\n  - glob: "Notes/**"\n    owner: human\n',
  );
  assert.deepEqual(areaOf(cfg, 'Sources/Mine/a.md'), { owner: 'human', glob: 'Sources/Mine/**' });
  assert.deepEqual(areaOf(cfg, 'Sources/feed.md'), { owner: 'imported', glob: 'Sources/**' });
  assert.deepEqual(areaOf(cfg, 'sources/FEED.md'), { owner: 'imported', glob: 'Sources/**' });
  assert.deepEqual(areaOf(cfg, 'Elsewhere.md'), { owner: 'unknown', glob: null });
  assert.equal(isExcluded(cfg, 'dist/x.md'), true);
  assert.equal(isExcluded(cfg, 'Notes/x.md'), false);
  const checks = checkOwners([write('Notes/a.md', 'a', 'b'), { path: 'Sources/Mine/x.md', action: 'move', to: 'dist/x.md', old_text: 'x', new_text: null, old_sha256: 'x', new_sha256: 'x' }], cfg);
  assert.deepEqual(checks.map((c) => [c.ok, c.path, c.details?.owner]), [[false, 'dist/x.md', 'compiled']]);
  assert.deepEqual(checkOwners([write('Notes/a.md', 'a', 'b')], cfg).map((c) => c.ok), [true]);
});

test('areas: no config means every path is human and nothing is excluded', () => {
  const { root } = tempVault({});
  const cfg = readVaultConfig(root);
  assert.deepEqual(areaOf(cfg, 'x/y.md'), { owner: 'human', glob: null });
  assert.equal(isExcluded(cfg, 'x/y.md'), false);
});

test('managed blocks: found with names and lines; an unclosed one runs to the end; configured markers too', () => {
  const text = 'a\n%%dv-managed%%\nx\n%%/dv-managed%%\nb\n<!-- S -->\ny\n<!-- E -->\n%% other-managed %%\nopen';
  const blocks = findManagedBlocks(text, [{ start: '<!-- S -->', end: '<!-- E -->' }]);
  assert.deepEqual(
    blocks.map((b) => [b.name, b.line, b.closed, text.slice(b.start, b.end)]),
    [
      ['dv', 2, true, '%%dv-managed%%\nx\n%%/dv-managed%%'],
      ['<!-- S -->', 6, true, '<!-- S -->\ny\n<!-- E -->'],
      ['other', 9, false, '%% other-managed %%\nopen'],
    ],
  );
  // a block's end is its own name's end marker
  assert.equal(findManagedBlocks('%%a-managed%% %%/b-managed%% x %%/a-managed%%')[0]!.end, '%%a-managed%% %%/b-managed%% x %%/a-managed%%'.length);
});

test('managed blocks: changing text around a block is fine; inside it, removing it, adding one or deleting its note blocks', () => {
  const cfg = config('managed_blocks: []\n');
  const old = 'intro\n%%dv-managed%%\ngenerated\n%%/dv-managed%%\noutro\n';
  const ok = checkManagedBlocks([write('a.md', old, old.replace('intro', 'INTRO').replace('outro', 'OUTRO'))], cfg);
  assert.deepEqual(ok.map((c) => c.ok), [true]);
  for (const [why, next] of [
    ['inside', old.replace('generated', 'mine')],
    ['removed', 'intro\noutro\n'],
    ['added', old + '%%x-managed%%\n%%/x-managed%%\n'],
  ] as const) {
    const c = checkManagedBlocks([write('a.md', old, next)], cfg);
    assert.deepEqual(c.map((x) => [x.ok, x.severity, x.name]), [[false, 'block', 'managed_blocks']], why);
  }
  const del = checkManagedBlocks([{ path: 'a.md', action: 'delete', old_text: old, new_text: null, old_sha256: 'x', new_sha256: null }], cfg);
  assert.match(del[0]!.message, /deleting a\.md would delete managed block dv \(line 2\)/);
  const moved = checkManagedBlocks([{ path: 'a.md', action: 'move', to: 'b.md', old_text: old, new_text: null, old_sha256: 'x', new_sha256: 'x' }], cfg);
  assert.equal(moved[0]!.ok, true);
});
