/**
 * `similar` end to end: the offline default on a temp vault (linked notes left
 * out unless asked, a pair's score, same-name duplicates), and embedding
 * providers through a fake server inside the test: batching, the cache by
 * input hash, resuming after a failure, consent off this machine, exit 69.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { letterEmbedding, offMachineUrl, startFakeProvider, type FakeProvider, type ReceivedRequest } from '../helpers/fake-provider.js';
import { runCli, runCliProcess } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

const FILES: Record<string, string> = {
  'ops/Cache lifetime.md': '# Cache lifetime\n\nEdge cache entries expire after one hour; eviction keeps the origin safe.\n\n## Purge\n\nPurge the edge cache on deploy.\n',
  'dev/Cache lifetime.md': '# Cache lifetime\n\nEdge cache entries expire after one hour in dev too; eviction keeps the origin safe.\n\n## Purge\n\nPurge the edge cache on every deploy.\n',
  'ops/Origin load.md': '# Origin load\n\nWithout the edge cache the origin serves every request. See [[ops/Cache lifetime]].\n',
  'garden/Tomatoes.md': '# Tomatoes\n\nWater the tomato seedlings daily; mulch keeps the soil moist.\n',
  'garden/Compost.md': '# Compost\n\nTurn the compost weekly; it feeds the soil of the tomato bed.\n',
  'chess/Openings.md': '# Openings\n\nThe queen gambit gives a pawn for tempo; castle early.\n',
};

function setup(providers: Record<string, unknown> = {}) {
  const v = tempVault(FILES);
  fs.mkdirSync(path.join(v.home, 'config'), { recursive: true });
  fs.writeFileSync(path.join(v.home, 'config', 'config.yaml'), JSON.stringify({ providers }));
  const cli = (args: string[]) => runCli(args, { vault: v.root, home: v.home, cwd: v.root });
  return { ...v, cli };
}

const providers: FakeProvider[] = [];
after(async () => {
  for (const p of providers) await p.close();
});

const ollamaEmbed = (req: ReceivedRequest) => ({ body: { model: req.json.model, embeddings: (req.json.input as string[]).map(letterEmbedding) } });
const openaiEmbed = (req: ReceivedRequest) => ({
  body: { object: 'list', data: (req.json.input as string[]).map((t, index) => ({ object: 'embedding', index, embedding: letterEmbedding(t) })).reverse() },
});

test('similar (offline default): linked notes left out unless asked for and marked; a pair’s parts; same-name duplicates', async () => {
  const { cli } = setup();
  const r = await cli(['similar', 'ops/Cache lifetime.md']);
  assert.equal(r.exitCode, 0, r.stdout);
  assert.equal(r.json.note, 'ops/Cache lifetime.md');
  assert.equal(r.json.provider.name, 'lsa');
  assert.equal(r.json.candidates[0].path, 'dev/Cache lifetime.md');
  assert.ok(!r.json.candidates.some((c: any) => c.path === 'ops/Origin load.md'), 'linked notes are not news');
  const withLinked = await cli(['similar', 'ops/Cache lifetime.md', '--include-linked']);
  assert.equal(withLinked.json.candidates.find((c: any) => c.path === 'ops/Origin load.md').linked, 'from');
  const c = r.json.candidates[0];
  assert.deepEqual(Object.keys(c), ['path', 'score', 'linked', 'links_to', 'linked_from', 'best_pairs']);
  assert.deepEqual(Object.keys(c.best_pairs[0]), ['a', 'b', 'score']);
  assert.deepEqual(Object.keys(c.best_pairs[0].a), ['heading_path', 'lines']);
  const pair = await cli(['similar', 'ops/Cache lifetime.md', '--to', 'garden/Tomatoes.md']);
  assert.equal(pair.exitCode, 0);
  assert.ok(pair.json.score < c.score);
  const dup = await cli(['similar', '--duplicates']);
  assert.equal(dup.exitCode, 0);
  assert.deepEqual(dup.json.groups[0].paths, ['dev/Cache lifetime.md', 'ops/Cache lifetime.md']);
  assert.equal(dup.json.groups[0].pairs[0].same_name, true);
  const min = await cli(['similar', 'ops/Cache lifetime.md', '--min-score', '0.99']);
  assert.deepEqual(min.json.candidates, []);
  assert.equal((await cli(['similar'])).json.error.code, 'USAGE');
  assert.equal((await cli(['similar', 'nope.md'])).json.error.code, 'NOT_FOUND');
});

test('similar --provider (ollama, loopback): batches, says what it sent, embeds only what changed', async () => {
  const p = await startFakeProvider();
  providers.push(p);
  p.reply(ollamaEmbed);
  const { cli, root } = setup({ local: { kind: 'ollama', url: p.url, embed_model: 'toy', batch_size: 4, attempts: 1 } });
  const r = await cli(['similar', 'ops/Cache lifetime.md', '--provider', 'local']);
  assert.equal(r.exitCode, 0, r.stdout);
  assert.deepEqual(r.json.provider, { name: 'local', model: 'toy', dims: 26 });
  assert.equal(r.json.candidates[0].path, 'dev/Cache lifetime.md');
  const sent = p.requests.flatMap((q) => q.json.input as string[]);
  assert.equal(p.requests[0]!.path, '/api/embed');
  assert.ok(p.requests.every((q) => q.json.input.length <= 4), 'batches of at most batch_size');
  assert.equal(new Set(sent).size, sent.length, 'each distinct section once');
  assert.equal(r.json.sent.loopback, true);
  assert.equal(r.json.consent, null);
  const before = p.requests.length;
  await cli(['similar', 'ops/Cache lifetime.md', '--provider', 'local']);
  assert.equal(p.requests.length, before, 'nothing changed: nothing sent');
  fs.appendFileSync(path.join(root, 'garden/Compost.md'), '\n## Worms\n\nWorms speed it up.\n');
  await cli(['similar', 'ops/Cache lifetime.md', '--provider', 'local']);
  const again = p.requests.slice(before).flatMap((q) => q.json.input as string[]);
  assert.equal(again.length, 2, 'only the changed note’s two sections');
  assert.ok(again.some((t) => t.startsWith('Compost\n# Compost')) && again.some((t) => t.startsWith('Compost > Worms\n')), JSON.stringify(again));
});

test('similar --provider: a run that fails half way keeps what it embedded; the next run sends only the rest; unreachable is 69', async () => {
  const p = await startFakeProvider();
  providers.push(p);
  const { cli, home } = setup({ flaky: { kind: 'openai', url: `${p.url}/v1`, embed_model: 'toy', batch_size: 3, attempts: 1 } });
  let calls = 0;
  p.reply((req) => (++calls === 2 ? { status: 503, body: 'overloaded' } : openaiEmbed(req)));
  const failed = await cli(['similar', 'ops/Cache lifetime.md', '--provider', 'flaky']);
  assert.equal(failed.exitCode, 69, failed.stdout);
  assert.equal(failed.json.error.code, 'PROVIDER_FAILED');
  const firstBatch = p.requests[0]!.json.input as string[];
  const ok = await cli(['similar', 'ops/Cache lifetime.md', '--provider', 'flaky']);
  assert.equal(ok.exitCode, 0, ok.stdout);
  const resent = p.requests.slice(2).flatMap((q) => q.json.input as string[]);
  assert.ok(firstBatch.every((t) => !resent.includes(t)), 'the first batch is not sent again');
  assert.equal(ok.json.candidates[0].path, 'dev/Cache lifetime.md', 'OpenAI vectors are matched by index, not order');
  await p.close();
  providers.splice(providers.indexOf(p), 1);
  fs.writeFileSync(path.join(home, 'config', 'config.yaml'), JSON.stringify({ providers: { flaky: { kind: 'openai', url: `${p.url}/v1`, embed_model: 'toy2', attempts: 1 } } }));
  const gone = await cli(['similar', 'ops/Cache lifetime.md', '--provider', 'flaky']);
  assert.equal(gone.exitCode, 69);
  assert.equal(gone.json.error.code, 'PROVIDER_UNAVAILABLE');
  assert.ok(gone.json.error.message.includes(`${p.url}/v1/embeddings`));
});

test('similar --provider off this machine: sends only after the person’s yes, exactly the plan shown; records listed', async () => {
  const p = await startFakeProvider();
  providers.push(p);
  p.reply(ollamaEmbed);
  const url = offMachineUrl(p);
  const { cli, root, home } = setup({ far: { kind: 'ollama', url, embed_model: 'toy', attempts: 1 } });
  const ask = await cli(['similar', 'ops/Cache lifetime.md', '--provider', 'far']);
  assert.equal(ask.exitCode, 77);
  assert.equal(ask.json.error.code, 'CONSENT_REQUIRED');
  const plan = ask.json.error.details;
  assert.equal(plan.purpose, 'embed');
  assert.equal(plan.files.length, 6);
  assert.equal(plan.notes, 6);
  assert.equal(plan.token, undefined);
  assert.equal(p.requests.length, 0);
  const yes = (args: string[]) => runCli(args, { vault: root, home, cwd: root, confirm: () => true });
  const ok = await yes(['similar', 'ops/Cache lifetime.md', '--provider', 'far', '--consent']);
  assert.equal(ok.exitCode, 0, ok.stdout);
  assert.equal(p.requests[0]!.json.model, 'toy');
  assert.equal(p.requests.reduce((n, r) => n + Buffer.byteLength(r.body), 0), plan.request_bytes, 'exactly the bytes of the plan shown');
  assert.equal(ok.json.vectors.embedded, 6);
  const list = await cli(['consent', 'list']);
  assert.equal(list.json.consents[0].purpose, 'embed');
  assert.equal(list.json.consents[0].via, 'terminal');
  fs.appendFileSync(path.join(root, 'chess/Openings.md'), '\nA new line.\n');
  const changed = await cli(['similar', 'ops/Cache lifetime.md', '--provider', 'far']);
  assert.equal(changed.exitCode, 77, 'a new plan (one changed note) needs its own consent');
  assert.equal(changed.json.error.code, 'CONSENT_REQUIRED');
  assert.deepEqual(changed.json.error.details.files.map((f: any) => f.path), ['chess/Openings.md']);
});

test('similar (compiled CLI): the default runs offline; a provider that is not there exits 69', async () => {
  const v = setup({ gone: { kind: 'ollama', url: 'http://127.0.0.1:9', embed_model: 'm', attempts: 1 } });
  const ok = await runCliProcess(['similar', 'ops/Cache lifetime.md'], { vault: v.root, home: v.home });
  assert.equal(ok.exitCode, 0, ok.stdout + ok.stderr);
  assert.equal(ok.json.candidates[0].path, 'dev/Cache lifetime.md');
  const gone = await runCliProcess(['similar', 'ops/Cache lifetime.md', '--provider', 'gone'], { vault: v.root, home: v.home });
  assert.equal(gone.exitCode, 69, gone.stdout);
});
