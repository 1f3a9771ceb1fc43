import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCliProcess } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

/**
 * Several real processes at once: readers searching (each refreshes implicitly, so
 * each may also write) while the vault changes under them and another process
 * runs `index`. Nothing may fail, and the final index must pass its integrity
 * check and agree with the vault.
 */
test('parallel readers and refreshers on changing notes never corrupt the index', async () => {
  const files: Record<string, string> = {};
  for (let i = 0; i < 200; i++) files[`n/${i}.md`] = `# Note ${i}\nshared words, and token${i}.\n## Part\nmore text ${i}\n`;
  const { root, home } = tempVault(files);
  let stop = false;
  const writer = (async () => {
    let k = 0;
    while (!stop) {
      fs.writeFileSync(path.join(root, `n/${k % 200}.md`), `# Note ${k % 200}\nshared words, edited${k}.\n`);
      fs.writeFileSync(path.join(root, `added-${k}.md`), `# Added ${k}\nshared words\n`);
      if (k > 2) fs.rmSync(path.join(root, `added-${k - 3}.md`), { force: true });
      k++;
      await new Promise((r) => setTimeout(r, 15));
    }
  })();
  const runs = await Promise.all([
    ...Array.from({ length: 3 }, async () => {
      const out = [];
      for (let j = 0; j < 4; j++) out.push(await runCliProcess(['search', 'shared words'], { vault: root, home }));
      return out;
    }),
    (async () => {
      const out = [];
      for (let j = 0; j < 3; j++) out.push(await runCliProcess(['index'], { vault: root, home }));
      return out;
    })(),
  ]);
  stop = true;
  await writer;
  for (const r of runs.flat()) {
    assert.equal(r.exitCode, 0, r.stdout + r.stderr);
    assert.equal(r.json.ok, true);
  }
  const final = await runCliProcess(['index', '--check'], { vault: root, home });
  assert.equal(final.json.integrity, 'ok');
  const notes = fs.readdirSync(path.join(root, 'n')).length + fs.readdirSync(root).filter((f) => f.endsWith('.md')).length;
  assert.equal(final.json.notes, notes);
  const again = await runCliProcess(['index'], { vault: root, home });
  assert.equal(again.json.refreshed, false);
});
