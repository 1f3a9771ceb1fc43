/**
 * The read verbs run dist/cli/read.cjs through V8's code cache (src/cli/code-cache.ts):
 * their answers must not depend on whether the cache was absent, used, or damaged,
 * and every other verb still runs the ES module build.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { runCli, runCliProcess } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

const strip = (s: string) => s.replace(/"took_ms":\d+/g, '"took_ms":0');

test('code cache: search, context and index answer the same with no cache, a cache, and a damaged one', async () => {
  const { root, home } = tempVault({
    'Bread.md': '# Bread\n## Proofing\nThe dough rests two hours before baking. See [[Oven]].\n',
    'Oven.md': '# Oven\nPreheat to 250 degrees.\n',
  });
  const cacheDir = path.join(home, 'cache', 'code-cache');
  const reads = [['index'], ['search', 'dough rests'], ['context', 'how long does the dough rest'], ['note', 'Oven']];
  const answers = async () => {
    const out: string[] = [];
    for (const args of reads) {
      const r = await runCliProcess(args, { vault: root, home, env: { VAULTGATE_DAEMON: 'off' } });
      assert.equal(r.exitCode, 0, r.stdout + r.stderr);
      out.push(strip(r.stdout));
    }
    return out;
  };
  // The index is built in this process (no read bundle), so the first pass below starts with no cache.
  assert.equal((await runCli(['index'], { vault: root, home })).exitCode, 0);
  assert.ok(!fs.existsSync(cacheDir));
  const first = await answers();
  const written = fs.readdirSync(cacheDir).sort();
  assert.deepEqual(written.map((n) => n.replace(/^.*-/, '')), ['context.bin', 'index.bin', 'note.bin', 'search.bin'], 'one cache per verb');
  assert.deepEqual(await answers(), first, 'from the cache');
  for (const name of written) fs.writeFileSync(path.join(cacheDir, name), Buffer.alloc(4096, 7));
  // A cache of another build goes when this build writes one.
  fs.writeFileSync(path.join(cacheDir, 'another-build-1-2-search.bin'), 'x');
  assert.deepEqual(await answers(), first, 'a damaged cache is refused and replaced');
  for (const name of written) assert.ok(fs.statSync(path.join(cacheDir, name)).size !== 4096, `${name} rewritten`);
  assert.deepEqual(fs.readdirSync(cacheDir).sort(), written);
});
