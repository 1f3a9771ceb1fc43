/**
 * The background embedder (src/wing/dense/background-embed.ts) with a fake
 * loopback provider: it fills the store, then idles at no cost (a slice with
 * the index, the store and the config unchanged reads nothing and sends
 * nothing), and a new note wakes it. And a search through a session that holds
 * live vectors, the embedding overlapped with the lexical ranking, answers
 * exactly what the one-read path answers.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { BackgroundEmbedder, prepareDense, startDense } from '../../../../src/wing/dense/index.js';
import { holdLiveVectors } from '../../../../src/wing/dense/live-vectors.js';
import { VaultSession } from '../../../../src/session/index.js';
import { letterEmbedding, startFakeProvider, type FakeProvider } from '../../../helpers/fake-provider.js';
import { tempVault } from '../../../helpers/temp-vault.js';

const FILES: Record<string, string> = {
  'bread/Sourdough.md': '# Sourdough\n\n## Feeding\n\nFeed the starter flour and water every morning.\n\n## Proofing\n\nLet the loaf prove for four hours.\n',
  'garden/Tomatoes.md': '# Tomatoes\n\nWater the tomato seedlings daily; mulch keeps the soil moist.\n',
  'chess/Openings.md': '# Openings\n\nThe queen gambit gives a pawn for tempo; castle early.\n',
  'kitchen/Knives.md': '# Knives\n\nRest the knife on a board after use; water ruins the handle.\n',
};

const providers: FakeProvider[] = [];
after(async () => {
  for (const p of providers) await p.close();
});

async function setup() {
  const p = await startFakeProvider();
  providers.push(p);
  p.reply((req) => ({ body: { object: 'list', data: (req.json.input as string[]).map((t, index) => ({ object: 'embedding', index, embedding: letterEmbedding(t) })) } }));
  const v = tempVault(FILES);
  fs.mkdirSync(path.join(v.home, 'config'), { recursive: true });
  const config = { providers: { fake: { kind: 'openai', url: `${p.url}/v1`, embed_model: 'letters' } }, search: { embeddings: { provider: 'fake', scripts: 'any', min_agreement: 0 } } };
  fs.writeFileSync(path.join(v.home, 'config', 'config.yaml'), JSON.stringify(config));
  const env = { VAULTGATE_HOME: v.home, XDG_CONFIG_HOME: path.join(v.home, 'config-unused') };
  const session = VaultSession.open({ vault: v.root, env, cwd: v.root, keepIndexOpen: true });
  return { ...v, p, env, session };
}

async function until(what: string, ok: () => boolean): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!ok()) {
    assert.ok(Date.now() < deadline, `${what}: not within 20 s`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

test('background embedder: fills the store, then an idle slice reads and sends nothing until a note changes', async () => {
  const { root, p, env, session } = await setup();
  const embedder = new BackgroundEmbedder(session, env, { intervalMs: 20 });
  try {
    await until('first embedding', () => embedder.status().state === 'idle' && embedder.status().pending_notes === 0 && embedder.status().embedded_notes === 4);
    const settled = embedder.status();
    const sent = p.requests.length;
    // Many idle intervals: no slice ran (its last_run_at would move), nothing was sent.
    await new Promise((r) => setTimeout(r, 400));
    assert.equal(embedder.status().last_run_at, settled.last_run_at, 'an idle slice with nothing changed does not run');
    assert.equal(p.requests.length, sent);
    fs.writeFileSync(path.join(root, 'garden/Pruning.md'), '# Pruning\n\nCut the side shoots every week.\n');
    await until('the new note', () => embedder.status().embedded_notes === 5 && embedder.status().pending_notes === 0);
    assert.ok(p.requests.length > sent);
  } finally {
    await embedder.close();
    session.close();
  }
});

test('search with the embedding overlapped and the live matrix (a face) answers what a one-shot read of the store answers', async () => {
  const { root, env, session } = await setup();
  const embedder = new BackgroundEmbedder(session, env, { intervalMs: 20 });
  await until('first embedding', () => embedder.status().state === 'idle' && embedder.status().pending_notes === 0);
  await embedder.close();
  const gate = { face: 'mcp' as const, ask: null, agent: 'test' };
  const cases = ['water every morning', 'knife board', 'tempo pawn gambit', 'nothing matches zebrafish'].flatMap((q) => [{ limit: 10 }, { limit: 2 }, { limit: 10, pathPrefix: 'garden/' }].map((opts) => ({ q, opts })));
  // No face holds the vault: the store is read per query, in one read (the one-shot CLI's path).
  const expected = [];
  for (const { q, opts } of cases) {
    const one = (await prepareDense(root, env, [q], gate))!;
    expected.push({ result: session.read((h) => one.search(h.db, q, opts)).result, dense: one.result() });
    one.close();
  }
  assert.ok(expected.some((e) => e.dense.status === 'fused' && e.result.hits.length > 0));
  const release = holdLiveVectors(root, env);
  try {
    for (const [i, { q, opts }] of cases.entries()) {
      const overlapped = (await startDense(root, env, [q], gate))!;
      const got = await overlapped.searchRead(session, q, opts);
      assert.deepEqual({ result: got.result, dense: overlapped.result() }, expected[i], `${q} ${JSON.stringify(opts)}`);
      assert.equal(got.refresh.notes, 4);
      overlapped.close();
    }
  } finally {
    release();
    session.close();
  }
});
