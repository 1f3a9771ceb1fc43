/**
 * The built-in local embedding provider `use-lite` (src/wing/providers/local-embed.ts):
 * Universal Sentence Encoder Lite run in this process from the optional
 * dependencies, the real model, no network. Covered: it embeds (paraphrases
 * closer than unrelated text), `similar --provider use-lite` fills the store
 * with nothing sent off the process and no consent asked, and dense fusion in
 * `search` and `context` uses it; it refuses to chat.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isVaultgateError } from '../../src/errors.js';
import { endpointOf, isLoopbackUrl, resolveProvider } from '../../src/wing/providers/index.js';
import { embedLocally } from '../../src/wing/providers/local-embed.js';
import { runCli } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';
import { cosine, USE_LITE_MISSING, useLiteInstalled } from '../helpers/use-lite.js';

const skip = useLiteInstalled ? false : USE_LITE_MISSING;

const cos = cosine;

test('use-lite: the built-in provider is this process, needs no setup, and only embeds', () => {
  const spec = resolveProvider({ VAULTGATE_HOME: tempVault().home }, 'use-lite');
  assert.equal(spec.kind, 'local');
  assert.equal(spec.embedModel, 'use-lite-en');
  assert.equal(endpointOf(spec, 'embed'), 'local:use-lite-en');
  assert.equal(isLoopbackUrl(endpointOf(spec, 'embed')), true, 'nothing leaves the machine: no consent');
  assert.throws(() => endpointOf(spec, 'chat'), (e) => isVaultgateError(e) && e.code === 'USAGE');
});

test('use-lite: a paraphrase is closer than an unrelated sentence; answers in the OpenAI shape', { skip }, async () => {
  const texts = ['how long should bread dough rest', 'let the loaf prove for two hours before baking', 'the robber moves when a seven is rolled', ''];
  const res = await embedLocally('use-lite', Buffer.from(JSON.stringify({ model: 'use-lite-en', input: texts })));
  const data = (res.json as { data: { index: number; embedding: number[] }[] }).data;
  assert.deepEqual(
    data.map((d) => d.index),
    [0, 1, 2, 3],
  );
  assert.ok(data.every((d) => d.embedding.length === 512 && d.embedding.every(Number.isFinite)), 'an empty text gets a vector too');
  assert.ok(cos(data[0]!.embedding, data[1]!.embedding) > cos(data[0]!.embedding, data[2]!.embedding) + 0.1);
  await assert.rejects(embedLocally('use-lite', Buffer.from('{"input": 3}')), (e) => isVaultgateError(e) && e.code === 'PROVIDER_FAILED');
});

test('use-lite: similar fills the store without consent; search and context fuse with it', { skip }, async () => {
  const v = tempVault({
    'Bread.md': '# Bread\n\n## Proofing time\n\nLet the shaped loaf prove for two hours until it doubles.\n\n## Baking\n\nBake at 220 degrees for forty minutes.\n',
    'Catan rules.md': '# Catan rules\n\n## The robber\n\nWhen a seven is rolled, the player moves the robber and steals a card.\n',
    'Garden.md': '# Garden\n\nWater the tomato seedlings every morning; rest the hose on the hook.\n',
  });
  const cli = (args: string[]) => runCli(args, { vault: v.root, home: v.home, cwd: v.root });
  const filled = await cli(['similar', '--duplicates', '--provider', 'use-lite']);
  assert.equal(filled.exitCode, 0, filled.stdout + filled.stderr);
  assert.equal(filled.json.provider.dims, 512);
  assert.equal(filled.json.sent.kind, 'local');
  assert.equal(filled.json.sent.loopback, true);
  assert.equal(filled.json.vectors.embedded, 3);

  fs.mkdirSync(path.join(v.home, 'config'), { recursive: true });
  fs.writeFileSync(path.join(v.home, 'config', 'config.yaml'), 'search:\n  embeddings:\n    provider: use-lite\n');
  // "rest" is in the garden note's words, not the bread note's: meaning brings the proofing section in.
  const r = await cli(['search', 'how long should dough rest']);
  assert.equal(r.exitCode, 0, r.stdout);
  assert.equal(r.json.dense.status, 'fused', JSON.stringify(r.json.dense));
  assert.equal(r.json.dense.provider, 'use-lite');
  assert.ok(r.json.hits.some((h: any) => h.path === 'Bread.md'), JSON.stringify(r.json.hits));
  const c = await cli(['context', 'how long should dough rest']);
  assert.equal(c.exitCode, 0, c.stdout);
  assert.equal(c.json.dense.status, 'fused', JSON.stringify(c.json.dense));
  assert.ok(c.json.evidence.some((e: any) => e.path === 'Bread.md'));
});
