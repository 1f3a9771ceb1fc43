/**
 * Dense fusion in `search` and `context` (issue 9, src/wing/dense) end to end, with
 * a fake embedding provider inside the test: a real local HTTP server speaking
 * Ollama's `/api/embed` and OpenAI's `/embeddings`, whose "model" is a hashed
 * bag of words over a small synonym table — deterministic, and it knows that
 * "rest" and "prove" are the same thing, which BM25 does not. Covered: not
 * configured (output unchanged), fused (a paraphrase-only note comes in),
 * missing vectors, the script gate, provider down / hanging / bad JSON (the
 * lexical answer with a warning, exit 0), consent off this machine.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { offMachineUrl, startFakeProvider, type FakeProvider, type ReceivedRequest } from '../helpers/fake-provider.js';
import { runCli, runCliProcess } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

const FILES: Record<string, string> = {
  'kitchen/Knives.md': '# Knives\n\nRest the knife on a board after use; dough scrapers are not knives.\n',
  'bread/Sourdough.md': '# Sourdough\n\n## Feeding\n\nFeed the starter flour and water every morning.\n\n## Proofing time\n\nLet the shaped loaf prove for four hours at room temperature.\n',
  'garden/Tomatoes.md': '# Tomatoes\n\nWater the tomato seedlings daily; mulch keeps the soil moist.\n',
  'chess/Openings.md': '# Openings\n\nThe queen gambit gives a pawn for tempo; castle early and rest easy.\n',
  'notes/Привет.md': '# Хлеб\n\nТесто отдыхает два часа.\n',
};

/** The fake model's synonyms: what makes a paraphrase close in its space. */
const CONCEPT: Record<string, string> = { rest: 'PROOF', prove: 'PROOF', proofing: 'PROOF', proof: 'PROOF', dough: 'BREAD', loaf: 'BREAD', bread: 'BREAD', long: 'TIME', hours: 'TIME', time: 'TIME' };
const DIMS = 256;

function embed(text: string): number[] {
  const v = new Array<number>(DIMS).fill(0);
  for (const w of text.toLowerCase().match(/\p{L}+/gu) ?? []) {
    const c = CONCEPT[w] ?? w;
    let h = 2166136261;
    for (const ch of c) h = Math.imul(h ^ ch.codePointAt(0)!, 16777619) >>> 0;
    v[h % DIMS]! += CONCEPT[w] ? 3 : 1;
  }
  return v;
}
const ollamaEmbed = (req: ReceivedRequest) => ({ body: { model: req.json.model, embeddings: (req.json.input as string[]).map(embed) } });
const openaiEmbed = (req: ReceivedRequest) => ({ body: { object: 'list', data: (req.json.input as string[]).map((t, index) => ({ object: 'embedding', index, embedding: embed(t) })).reverse() } });

const providers: FakeProvider[] = [];
after(async () => {
  for (const p of providers) await p.close();
});

async function fake(host?: string): Promise<FakeProvider> {
  const p = await startFakeProvider(host);
  providers.push(p);
  return p;
}

function setup(config: Record<string, unknown> = {}) {
  const v = tempVault(FILES);
  fs.mkdirSync(path.join(v.home, 'config'), { recursive: true });
  const write = (c: Record<string, unknown>) => fs.writeFileSync(path.join(v.home, 'config', 'config.yaml'), JSON.stringify(c));
  write(config);
  const cli = (args: string[]) => runCli(args, { vault: v.root, home: v.home, cwd: v.root });
  return { ...v, cli, write };
}

const QUERY = 'how long does dough rest';

test('dense: not configured → search and context JSON exactly as without it; --consent alone changes nothing', async () => {
  const p = await fake();
  p.reply(ollamaEmbed);
  const { cli, write } = setup();
  const plain = await cli(['search', QUERY]);
  const ctx = await cli(['context', QUERY]);
  assert.equal(plain.exitCode, 0);
  assert.ok(!('dense' in plain.json) && !('warnings' in plain.json));
  assert.ok(!('dense' in ctx.json));
  // A provider configured for `similar` only is not search fusion.
  write({ providers: { local: { kind: 'ollama', url: p.url, embed_model: 'toy' } } });
  const again = await cli(['search', QUERY, '--consent']);
  const strip = (j: any) => ({ ...j, index: null });
  assert.deepEqual(strip(again.json), strip(plain.json));
  assert.deepEqual(strip((await cli(['context', QUERY])).json), strip(ctx.json));
  assert.equal(p.requests.length, 0);
});

test('dense (ollama, loopback): fused — a note found only by meaning joins, with the dense report; missing vectors counted; context too', async () => {
  const p = await fake();
  p.reply(ollamaEmbed);
  const { cli, root } = setup({
    providers: { local: { kind: 'ollama', url: p.url, embed_model: 'toy', attempts: 1 } },
    search: { embeddings: { provider: 'local' } },
  });
  const lexical = await cli(['search', QUERY]);
  assert.equal(lexical.exitCode, 0, lexical.stdout);
  assert.equal(lexical.json.dense.status, 'no_vectors', 'nothing embedded yet: lexical, and said so');
  assert.ok(lexical.json.warnings[0].includes('similar --duplicates --provider local'));
  assert.ok(!lexical.json.hits.some((h: any) => h.path === 'bread/Sourdough.md'), 'the words alone do not find the proofing note');
  assert.equal(p.requests.length, 1, 'the query was embedded (one request)');

  // Fill the store the similar chain fills.
  assert.equal((await cli(['similar', '--duplicates', '--provider', 'local'])).exitCode, 0);
  p.requests.length = 0;
  const r = await cli(['search', QUERY]);
  assert.equal(r.exitCode, 0, r.stdout);
  assert.equal(p.requests.length, 1);
  assert.deepEqual(p.requests[0]!.json, { model: 'toy', input: [QUERY] });
  assert.equal(p.requests[0]!.path, '/api/embed');
  const d = r.json.dense;
  assert.equal(d.status, 'fused', JSON.stringify(d));
  assert.equal(d.provider, 'local');
  assert.equal(d.model, 'toy');
  assert.equal(d.missing, 0);
  assert.equal(d.used, lexical.json.hits.length);
  assert.equal(d.added, 1);
  assert.equal(d.scanned, 5, "every stored note vector (5 notes)");
  const sour = r.json.hits.find((h: any) => h.path === 'bread/Sourdough.md');
  assert.ok(sour, JSON.stringify(r.json.hits));
  assert.deepEqual(sour.heading_path, ['Sourdough', 'Proofing time'], 'the section that answers, not the note’s first');
  assert.equal(r.json.total, lexical.json.total + 1);
  assert.deepEqual(Object.keys(sour), Object.keys(lexical.json.hits[0]), 'hits keep their fields');
  assert.ok(r.json.hits.every((h: any, i: number, a: any[]) => i === 0 || a[i - 1].score >= h.score), 'ordered by the fused score');

  const c = await cli(['context', QUERY]);
  assert.equal(c.exitCode, 0, c.stdout);
  assert.equal(c.json.dense.status, 'fused');
  const item = c.json.evidence.find((e: any) => e.path === 'bread/Sourdough.md');
  assert.ok(item, JSON.stringify(c.json.evidence.map((e: any) => e.path)));
  assert.ok(item.reason.startsWith('dense match for the question'), item.reason);
  assert.deepEqual(item.heading_path, ['Sourdough', 'Proofing time']);

  // Filters hold for notes found by meaning too; context sends the question and its queries in one request.
  const scoped = await cli(['search', QUERY, '--path', 'kitchen/']);
  assert.ok(scoped.json.hits.every((h: any) => h.path.startsWith('kitchen/')), JSON.stringify(scoped.json.hits));
  assert.equal(scoped.json.dense.added, 0);
  const tagged = await cli(['search', QUERY, '--tag', 'bread']);
  assert.equal(tagged.json.total, 0);
  p.requests.length = 0;
  const two = await cli(['context', QUERY, '--query', 'loaf']);
  assert.equal(two.exitCode, 0);
  assert.equal(p.requests.length, 1);
  assert.deepEqual(p.requests[0]!.json.input, [QUERY, 'loaf']);

  // A note changed since it was embedded: its vectors describe other text and are not used.
  fs.appendFileSync(path.join(root, 'kitchen/Knives.md'), '\nRest them dry.\n');
  const stale = await cli(['search', QUERY]);
  assert.equal(stale.exitCode, 0);
  assert.equal(stale.json.dense.missing, 1, JSON.stringify(stale.json.dense));
  assert.ok(stale.json.hits.some((h: any) => h.path === 'kitchen/Knives.md'), 'a missing vector never drops a lexical hit');

  // The script gate: a Cyrillic query is not even sent (default scripts: [Latin]).
  p.requests.length = 0;
  const ru = await cli(['search', 'тесто отдыхает']);
  assert.equal(ru.exitCode, 0);
  assert.deepEqual(ru.json.dense, { ...ru.json.dense, status: 'gated', gate: 'script', scripts: ['Cyrillic'] });
  assert.equal(p.requests.length, 0);
  assert.equal(ru.json.hits[0].path, 'notes/Привет.md');
});

test('dense: the agreement gate — a model that ranks at random is not fused', async () => {
  const p = await fake();
  p.reply(ollamaEmbed);
  const { cli, write } = setup({ providers: { local: { kind: 'ollama', url: p.url, embed_model: 'toy', attempts: 1 } } });
  await cli(['similar', '--duplicates', '--provider', 'local']);
  const lexical = (await cli(['search', 'seedlings water'])).json;
  // Queries now land on a vector orthogonal to every stored one… except the chess note's tempo word.
  p.reply((req) => ({ body: { embeddings: (req.json.input as string[]).map(() => embed('queen gambit tempo castle')) } }));
  write({ providers: { local: { kind: 'ollama', url: p.url, embed_model: 'toy', attempts: 1 } }, search: { embeddings: { provider: 'local', min_agreement: 1 } } });
  const r = await cli(['search', 'seedlings water']);
  assert.equal(r.exitCode, 0);
  assert.equal(r.json.dense.status, 'gated', JSON.stringify(r.json.dense));
  assert.equal(r.json.dense.gate, 'agreement');
  assert.ok(r.json.dense.agreement < 1);
  assert.deepEqual(r.json.hits, lexical.hits, 'exactly the lexical hits');
  assert.equal(r.json.total, lexical.total);
});

test('dense: provider down, hanging, or answering nonsense → the lexical answer, a warning, exit 0 (OpenAI shape too)', async () => {
  const p = await fake();
  p.reply(openaiEmbed);
  const cfg = (url: string, extra: Record<string, unknown> = {}) => ({
    providers: { oai: { kind: 'openai', url: `${url}/v1`, embed_model: 'toy', attempts: 1 } },
    search: { embeddings: { provider: 'oai', timeout_ms: 500, ...extra } },
  });
  const { cli, write } = setup(cfg(p.url));
  await cli(['similar', '--duplicates', '--provider', 'oai']);
  const ok = await cli(['search', QUERY]);
  assert.equal(ok.json.dense.status, 'fused', JSON.stringify(ok.json.dense));
  assert.equal(p.requests.at(-1)!.path, '/v1/embeddings');
  write({ search: { embeddings: { provider: 'none' } } });
  const lexical = (await cli(['search', QUERY])).json;
  assert.equal(lexical.dense.status, 'config_invalid');

  const cases: [string, () => void, string][] = [
    ['down', () => write(cfg('http://127.0.0.1:9')), 'unavailable'],
    ['hang', () => (write(cfg(p.url)), p.reply({ hang: true, body: null })), 'unavailable'],
    ['bad json', () => p.reply({ body: '{"data": [oops' }), 'failed'],
    ['no vectors', () => p.reply({ body: { data: [] } }), 'failed'],
    ['http 500', () => p.reply({ status: 500, body: 'boom' }), 'failed'],
  ];
  for (const [name, arrange, status] of cases) {
    arrange();
    const r = await cli(['search', QUERY]);
    assert.equal(r.exitCode, 0, `${name}: ${r.stdout}`);
    assert.equal(r.json.dense.status, status, `${name}: ${JSON.stringify(r.json.dense)}`);
    assert.ok(r.json.warnings.length === 1 && r.json.warnings[0].startsWith('dense: '), name);
    assert.deepEqual(r.json.hits, lexical.hits, `${name}: the lexical hits`);
    const c = await cli(['context', QUERY]);
    assert.equal(c.exitCode, 0, name);
    assert.equal(c.json.dense.status, status, name);
    assert.ok(c.json.warnings.some((w: string) => w.startsWith('dense: ')), name);
  }
  // On a terminal (text output) the warning is printed too: it carries what to do.
  const text = await cli(['--text', 'search', QUERY]);
  assert.equal(text.exitCode, 0);
  assert.match(text.stdout, /\nwarning: dense: provider oai answered HTTP 500/);
  assert.match((await cli(['--text', 'context', QUERY])).stdout, /\nwarning: dense: /);
});

test('dense off this machine: the query is not sent without the person’s consent; a yes on the terminal sends exactly it, recorded', async () => {
  const local = await fake();
  local.reply(ollamaEmbed);
  const far = await fake();
  far.reply(ollamaEmbed);
  const farUrl = offMachineUrl(far);
  const { cli, write, root, home } = setup({ providers: { far: { kind: 'ollama', url: local.url, embed_model: 'toy', attempts: 1 } } });
  // Vectors stored through a loopback URL under the same provider name and model; the search goes to the remote one.
  await cli(['similar', '--duplicates', '--provider', 'far']);
  write({ providers: { far: { kind: 'ollama', url: farUrl, embed_model: 'toy', attempts: 1 } }, search: { embeddings: { provider: 'far' } } });
  const ask = await cli(['search', QUERY]);
  assert.equal(ask.exitCode, 0, 'the lexical answer still comes back');
  assert.equal(ask.json.dense.status, 'consent_required');
  assert.equal(ask.json.dense.token, undefined);
  assert.equal(ask.json.dense.destination, `${farUrl}/api/embed`);
  assert.match(ask.json.dense.consent_request, /^cr-/);
  assert.match(ask.json.warnings[0], /--consent/);
  assert.doesNotMatch(JSON.stringify(ask.json.dense) + ask.json.warnings.join(''), /\b[0-9a-f]{64}\b/);
  assert.equal(far.requests.length, 0, 'nothing sent');
  const questions: string[] = [];
  const person = (answer: boolean) => (q: string) => (questions.push(q), answer);
  const no = await runCli(['search', QUERY, '--consent'], { vault: root, home, cwd: root, confirm: person(false) });
  assert.equal(no.json.dense.status, 'consent_declined');
  assert.match(questions[0]!, /notes: +none \(only the query\)/);
  assert.equal(far.requests.length, 0);
  const ok = await runCli(['search', QUERY, '--consent'], { vault: root, home, cwd: root, confirm: person(true) });
  assert.equal(ok.exitCode, 0);
  assert.equal(ok.json.dense.status, 'fused', JSON.stringify(ok.json.dense));
  assert.equal(far.requests.length, 1);
  assert.equal(far.requests[0]!.body, JSON.stringify({ model: 'toy', input: [QUERY] }));
  const list = await cli(['consent', 'list']);
  assert.equal(list.json.consents[0].purpose, 'embed');
  assert.equal(list.json.consents[0].destination, `${farUrl}/api/embed`);
  assert.deepEqual(list.json.consents[0].files, [], 'no note text was sent, only the query');
});

test('dense (compiled CLI): a provider that is not there never changes the exit code', async () => {
  const v = setup({ providers: { gone: { kind: 'ollama', url: 'http://127.0.0.1:9', embed_model: 'm', attempts: 1 } }, search: { embeddings: { provider: 'gone' } } });
  const r = await runCliProcess(['search', QUERY], { vault: v.root, home: v.home });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  assert.equal(r.json.dense.status, 'unavailable');
  const c = await runCliProcess(['context', QUERY], { vault: v.root, home: v.home });
  assert.equal(c.exitCode, 0, c.stdout + c.stderr);
  assert.equal(c.json.dense.status, 'unavailable');
});
