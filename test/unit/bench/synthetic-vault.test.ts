import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { planSyntheticVault, renderNote, writeSyntheticVault, MANIFEST_NAME } from '../../../bench/synthetic-vault.js';
import { normalizeVaultPath, scanVault } from '../../../src/vault/index.js';
import { REPO_ROOT } from '../../helpers/run-cli.js';
import { tempDir } from '../../helpers/temp-vault.js';

const N = 300;

/** Every file's path and SHA-256, so two vaults compare byte for byte. */
function digest(root: string): string[] {
  return scanVault(root).files.map((f) => `${f.path} ${crypto.createHash('sha256').update(fs.readFileSync(path.join(root, f.diskPath))).digest('hex')}`);
}

test('synthetic vault: the same seed writes the same bytes, another seed does not', () => {
  const a = path.join(tempDir(), 'v');
  const b = path.join(tempDir(), 'v');
  const c = path.join(tempDir(), 'v');
  writeSyntheticVault(a, { notes: N, seed: 7 });
  writeSyntheticVault(b, { notes: N, seed: 7 });
  writeSyntheticVault(c, { notes: N, seed: 8 });
  const da = digest(a);
  assert.equal(da.length, N);
  assert.deepEqual(digest(b), da);
  assert.notDeepEqual(digest(c), da);
});

test('synthetic vault: duplicate basenames live in different folders, and paths are portable', () => {
  const plan = planSyntheticVault({ notes: N, seed: 7 });
  const byName = new Map<string, string[]>();
  for (const n of plan.notes) {
    const key = n.name.toLowerCase();
    byName.set(key, [...(byName.get(key) ?? []), n.folder]);
    assert.doesNotThrow(() => normalizeVaultPath(`${n.folder}/${n.name}.md`, { portable: true }));
  }
  const shared = [...byName.values()].filter((folders) => folders.length > 1);
  assert.ok(shared.length >= 2, `expected duplicate basenames, got ${shared.length}`);
  for (const folders of shared) assert.equal(new Set(folders.map((f) => f.toLowerCase())).size, folders.length);
});

test('synthetic vault: Russian and Chinese notes, nested headings, code, tables, frontmatter aliases', () => {
  const plan = planSyntheticVault({ notes: N, seed: 7 });
  const notes = plan.notes.map((_, i) => renderNote(plan, i));
  const ru = notes.filter((n) => /[а-яё]{4,}/i.test(n.text.replace(/^---[\s\S]*?---/, '')));
  const zh = notes.filter((n) => /[\u4e00-\u9fff]{6,}/.test(n.text));
  assert.ok(ru.length >= N * 0.02, `ru notes: ${ru.length}`);
  assert.ok(zh.length >= N * 0.02, `zh notes: ${zh.length}`);
  assert.ok(notes.some((n) => /^### /m.test(n.text) && /^## /m.test(n.text)), 'nested headings');
  assert.ok(notes.some((n) => n.codeBlocks > 0) && notes.some((n) => n.tables > 0));
  assert.ok(notes.some((n) => /^aliases:\n  - /m.test(n.text)));
  const sizes = notes.map((n) => Buffer.byteLength(n.text)).sort((x, y) => x - y);
  const inBand = sizes.filter((s) => s >= 1000 && s <= 5000).length;
  assert.ok(inBand > N / 2, `most notes are 1–5 KB (${inBand}/${N})`);
});

test('synthetic vault: every link meant to resolve names a note (and heading) that exists', () => {
  const root = path.join(tempDir(), 'v');
  const summary = writeSyntheticVault(root, { notes: N, seed: 7 });
  const files = scanVault(root).files.map((f) => f.path);
  const byBase = new Map<string, string[]>();
  for (const f of files) {
    const base = path.posix.basename(f, '.md').toLowerCase();
    byBase.set(base, [...(byBase.get(base) ?? []), f]);
  }
  const plan = planSyntheticVault({ notes: N, seed: 7 });
  let checked = 0;
  let dangling = 0;
  for (let i = 0; i < N; i++) {
    for (const link of renderNote(plan, i).links) {
      if (link.target === null) {
        dangling++;
        continue;
      }
      // Parse the raw link independently of the generator's own bookkeeping.
      const wiki = /^!?\[\[([^#|\]]+)(?:#([^|\]]+))?(?:\|[^\]]*)?\]\]$/.exec(link.raw);
      const md = /^\[[^\]]*\]\(([^)]+)\)$/.exec(link.raw);
      assert.ok(wiki || md, `unparsed link ${link.raw}`);
      const ref = wiki ? wiki[1]! : decodeURI(md![1]!);
      const candidates = ref.includes('/')
        ? files.filter((f) => f.toLowerCase() === `${ref.replace(/\.md$/, '')}.md`.toLowerCase())
        : (byBase.get(ref.toLowerCase()) ?? []);
      assert.ok(candidates.includes(link.target), `${link.raw} → ${link.target} not among ${candidates.join(', ')}`);
      if (wiki?.[2]) {
        const text = fs.readFileSync(path.join(root, link.target), 'utf8');
        assert.ok(text.split('\n').some((l) => /^#{1,6} /.test(l) && l.replace(/^#+ /, '') === wiki[2]), `heading ${wiki[2]} in ${link.target}`);
      }
      checked++;
    }
  }
  assert.ok(checked >= N * 2, `links per note ≥ 2 on average (${checked})`);
  assert.equal(summary.links, checked + dangling);
  assert.ok(fs.existsSync(path.join(root, MANIFEST_NAME)));
});

test('synthetic vault: refuses to write inside the repository or over a folder it did not make', () => {
  assert.throws(() => writeSyntheticVault(path.join(REPO_ROOT, 'tmp-synthetic'), { notes: 3 }), /inside the repository/);
  const foreign = tempDir();
  fs.writeFileSync(path.join(foreign, 'mine.md'), 'keep me');
  assert.throws(() => writeSyntheticVault(foreign, { notes: 3 }), /not a synthetic vault/);
  assert.equal(fs.readFileSync(path.join(foreign, 'mine.md'), 'utf8'), 'keep me');
});
