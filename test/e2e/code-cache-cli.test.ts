/**
 * The read verbs (dist/cli/query.cjs), and the write verbs run one process
 * after another (propose, review, apply, tx; dist/cli/read.cjs), run through
 * V8's code cache (src/cli/code-cache.ts): their answers must not depend on
 * whether the cache was absent, used, or damaged, nor on which bundle ran them.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { createRequire } from 'node:module';
import { REPO_ROOT, runCli, runCliProcess } from '../helpers/run-cli.js';
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
  assert.deepEqual(written.map((n) => n.replace(/^.*-/, '')).sort(), ['context.bin', 'index.bin', 'note.bin', 'search.bin'], 'one cache per verb');
  assert.deepEqual(await answers(), first, 'from the cache');
  for (const name of written) fs.writeFileSync(path.join(cacheDir, name), Buffer.alloc(4096, 7));
  // A cache of another build goes when this build writes one.
  fs.writeFileSync(path.join(cacheDir, 'another-build-1-2-search.bin'), 'x');
  assert.deepEqual(await answers(), first, 'a damaged cache is refused and replaced');
  for (const name of written) assert.ok(fs.statSync(path.join(cacheDir, name)).size !== 4096, `${name} rewritten`);
  assert.deepEqual(fs.readdirSync(cacheDir).sort(), written);
});

test('code cache: a proposal proposed, reviewed and applied with no cache, a cache, and a damaged one', async () => {
  const { root, home } = tempVault({ 'Bread.md': '# Bread\nRest the dough. See [[Oven]].\n', 'Oven.md': '# Oven\nPreheat.\n' });
  const cacheDir = path.join(home, 'cache', 'code-cache');
  const env = { VAULTGATE_DAEMON: 'off' };
  const cli = async (args: string[]) => {
    const r = await runCliProcess(args, { vault: root, home, env });
    assert.equal(r.exitCode, 0, `${args.join(' ')}: ${r.stdout}${r.stderr}`);
    return JSON.parse(r.stdout) as Record<string, unknown>;
  };
  /** One whole proposal: the note's line changed to `line`, applied; what review said, without the proposal's id. */
  const lifecycle = async (line: string) => {
    const note = (await cli(['note', 'Bread.md'])) as { sha256: string };
    const proposed = (await cli(['propose', 'Bread.md', '--replace', 'Rest the dough.', '--with', line, '--base', note.sha256, '--title', 'rest'])) as { proposal: { id: string } };
    const id = proposed.proposal.id;
    const reviewed = (await cli(['review', id])) as { review_hash: string; checks: Array<{ name: string; ok: boolean }>; diff: string };
    const applied = (await cli(['apply', id, '--review-hash', reviewed.review_hash])) as { proposal: { state: string } };
    assert.equal(applied.proposal.state, 'applied');
    assert.equal(fs.readFileSync(path.join(root, 'Bread.md'), 'utf8'), `# Bread\n${line} See [[Oven]].\n`);
    // back to the first text for the next round, through the engine
    fs.writeFileSync(path.join(root, 'Bread.md'), '# Bread\nRest the dough. See [[Oven]].\n');
    return { checks: reviewed.checks.map((c) => [c.name, c.ok]), diff: reviewed.diff };
  };
  const first = await lifecycle('Rest it an hour.');
  const verbs = fs.readdirSync(cacheDir).map((n) => n.replace(/^.*-/, '')).sort();
  for (const verb of ['apply.bin', 'propose.bin', 'review.bin']) assert.ok(verbs.includes(verb), `${verb} written (${verbs.join(', ')})`);
  assert.deepEqual(await lifecycle('Rest it an hour.'), first, 'from the cache');
  for (const name of fs.readdirSync(cacheDir)) fs.writeFileSync(path.join(cacheDir, name), Buffer.alloc(4096, 7));
  assert.deepEqual(await lifecycle('Rest it an hour.'), first, 'a damaged cache is refused and replaced');
});

test('read bundle: the read verbs run dist/cli/query.cjs and answer exactly as the whole CLI does', async () => {
  const { root, home } = tempVault({
    'Bread.md': '# Bread\n## Proofing\nThe dough rests two hours. See [[Oven]] and [[Missing]].\n',
    'Oven.md': '# Oven\nPreheat to 250 degrees. Back to [[Bread#Proofing]].\n',
  });
  const env = { VAULTGATE_DAEMON: 'off' };
  assert.equal((await runCliProcess(['index'], { vault: root, home, env })).exitCode, 0);
  assert.equal((await runCliProcess(['search', 'dough'], { vault: root, home, env })).exitCode, 0);
  // Each bundle's caches are named after its own size: the search ran the read bundle, the index the whole CLI.
  const sizeOf = (name: string) => fs.statSync(path.join(REPO_ROOT, 'dist/cli', name)).size;
  const caches = fs.readdirSync(path.join(home, 'cache', 'code-cache'));
  assert.ok(caches.some((n) => n.includes(`-${sizeOf('query.cjs')}-`) && n.endsWith('-search.bin')), caches.join(', '));
  assert.ok(caches.some((n) => n.includes(`-${sizeOf('read.cjs')}-`) && n.endsWith('-index.bin')), caches.join(', '));
  // Both bundles, in this process: the same output and exit code for every read verb, errors and text included.
  const require = createRequire(import.meta.url);
  const bundles = ['query.cjs', 'read.cjs'].map((name) => require(path.join(REPO_ROOT, 'dist/cli', name)) as { runCli: (argv: string[], io: unknown) => Promise<number> });
  const lines = [
    ['search', 'dough', '--limit', '3'],
    ['search', '-draft', 'dough', '--text'],
    ['context', 'how long does the dough rest'],
    ['note', 'Oven'],
    ['note', 'Nowhere'],
    ['resolve', 'Bread#Proofing'],
    ['links', 'Bread.md'],
    ['backlinks', 'Bread.md', '--text'],
    ['check'],
    ['search', '--limit', 'many', 'x'],
    ['links', '--bogus'],
  ];
  for (const argv of lines) {
    const [a, b] = await Promise.all(
      bundles.map(async (bundle) => {
        let stdout = '';
        let stderr = '';
        const io = { stdout: (s: string) => void (stdout += s), stderr: (s: string) => void (stderr += s), env: { ...process.env, ...env, VAULTGATE_HOME: home }, isTTY: false, stderrIsTTY: false, cwd: root };
        const code = await bundle.runCli(['--vault', root, ...argv], io);
        return { code, stdout: strip(stdout), stderr };
      }),
    );
    assert.deepEqual(a, b, argv.join(' '));
  }
});
