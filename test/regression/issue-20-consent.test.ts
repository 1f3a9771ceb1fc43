/**
 * Issue #20 class 1: an agent could consent for the person. Over MCP, `similar`
 * took `provider` and `consent`, and its CONSENT_REQUIRED answer carried the
 * token: calling again with it sent every note to a provider off this machine.
 *
 * Here an agent is the MCP SDK's own client driving the compiled `vaultgate mcp`
 * over stdio (and the CLI with piped output, as an agent's shell runs it). The
 * "provider off this machine" is a fake OpenAI-compatible server bound to
 * 127.0.0.1 and named by the URL `http://0.0.0.0:PORT`: the consent rule counts
 * 0.0.0.0 as not loopback (providers/loopback.ts), while the kernel delivers a
 * connection to 0.0.0.0 to the loopback interface, so no byte of the test ever
 * goes to a non-loopback address.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI_BIN, runCliProcess } from '../helpers/run-cli.js';
import { letterEmbedding, offMachineUrl, startFakeProvider, type FakeProvider, type ReceivedRequest } from '../helpers/fake-provider.js';
import { rawRequest, serve } from '../helpers/serve.js';
import { tempDir, tempVault } from '../helpers/temp-vault.js';
import { TMUX_SKIP, TmuxPane } from '../helpers/tmux.js';

const NOTES: Record<string, string> = {
  'ops/Cache lifetime.md': '# Cache lifetime\n\nThe edge cache keeps pages for ten minutes. SECRET-OPS-TEXT.\n',
  'dev/Cache lifetime.md': '# Cache lifetime\n\nPages stay in the edge cache for ten minutes.\n',
  'garden/Tomatoes.md': '# Tomatoes\n\nWater the tomato seedlings daily. SECRET-GARDEN-TEXT.\n',
  'chess/Openings.md': '# Openings\n\nThe queen gambit gives a pawn for tempo.\n',
};
const SECRETS = ['SECRET-OPS-TEXT', 'SECRET-GARDEN-TEXT'];
const HEX64 = /\b[0-9a-f]{64}\b/g;

const providers: FakeProvider[] = [];
after(async () => {
  for (const p of providers) await p.close();
});

const openaiEmbed = (req: ReceivedRequest) => ({ body: { object: 'list', data: (req.json.input as string[]).map((t, index) => ({ object: 'embedding', index, embedding: letterEmbedding(t) })) } });
const openaiChat = (content: string) => ({ body: { id: 'x', object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: 'stop' }] } });

/** A fake provider on 127.0.0.1, and the URL that names it as if it were elsewhere (see the header). */
async function farProvider(): Promise<{ p: FakeProvider; url: string }> {
  const p = await startFakeProvider('127.0.0.1');
  providers.push(p);
  p.reply((req) => (req.path.endsWith('/embeddings') ? openaiEmbed(req) : openaiChat('{"schema":"vaultgate.relation.v1","recommendations":[]}')));
  return { p, url: offMachineUrl(p) };
}

function setup(farUrl: string, loopUrl?: string) {
  const v = tempVault(NOTES);
  fs.mkdirSync(path.join(v.home, 'config'), { recursive: true });
  const providersCfg: Record<string, unknown> = { far: { kind: 'openai', url: `${farUrl}/v1`, embed_model: 'toy', chat_model: 'toy', attempts: 1 } };
  if (loopUrl) providersCfg.near = { kind: 'openai', url: `${loopUrl}/v1`, embed_model: 'toy', attempts: 1 };
  fs.writeFileSync(path.join(v.home, 'config', 'config.yaml'), JSON.stringify({ providers: providersCfg, search: { embeddings: { provider: 'far', scripts: 'any' } } }));
  return v;
}

async function connect(root: string, home: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_BIN, 'mcp', '--vault', root],
    env: { ...(process.env as Record<string, string>), VAULTGATE_HOME: home },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'agent', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const textOf = (r: any) => JSON.stringify(r);
const errorOf = (r: any) => {
  assert.equal(r.isError, true, textOf(r).slice(0, 400));
  return JSON.parse(r.content[0].text).error;
};

test('issue 20.1: no sequence of MCP calls sends vault text to a provider off this machine; refusals say what, where, and who must consent — no token', async () => {
  const { p, url } = await farProvider();
  const { root, home } = setup(url);
  const client = await connect(root, home);
  try {
    const { tools } = await client.listTools();
    for (const t of tools) {
      const props = Object.keys((t.inputSchema as any).properties ?? {});
      assert.ok(!props.some((k) => /consent|token/i.test(k)), `${t.name} takes ${props.join(', ')}`);
    }

    // Everything an agent sees; any 64-hex string in it is then tried as a consent.
    const seen: string[] = [];
    const call = async (name: string, args: Record<string, unknown>) => {
      const r = await client.callTool({ name, arguments: args });
      seen.push(textOf(r));
      return r;
    };

    const ask = await call('similar', { note: 'ops/Cache lifetime.md', provider: 'far' });
    const e = errorOf(ask);
    assert.equal(e.code, 'CONSENT_REQUIRED');
    assert.doesNotMatch(textOf(ask), HEX64, 'no token (nor any hash that could pass for one) in the refusal');
    assert.equal(e.details.token, undefined);
    assert.equal(e.details.destination, `${url}/v1/embeddings`);
    assert.equal(e.details.host, new URL(url).host);
    assert.equal(e.details.purpose, 'embed');
    assert.equal(e.details.notes, 4);
    assert.ok(e.details.request_bytes > 0 && e.details.sections >= 4, JSON.stringify(e.details));
    assert.match(e.details.consent_request, /^cr-[0-9a-z]+$/);
    assert.match(e.hint, /person/i);
    assert.match(e.hint, /terminal/);
    assert.match(e.hint, /web inbox/);

    // The same for the pair and duplicate shapes, and for relate's chat (not a tool: nothing to call).
    for (const args of [{ note: 'ops/Cache lifetime.md', to: 'dev/Cache lifetime.md', provider: 'far' }, { duplicates: true, provider: 'far' }]) {
      const r = await call('similar', args);
      assert.equal(errorOf(r).code, 'CONSENT_REQUIRED');
      assert.doesNotMatch(textOf(r), HEX64);
    }

    // Dense fusion: the search answers lexically; its report names the destination, never a token.
    for (const [tool, args] of [['search', { query: 'edge cache' }], ['context', { question: 'how long does the edge cache keep pages' }]] as const) {
      const r: any = await call(tool, args);
      assert.equal(r.isError, undefined, textOf(r).slice(0, 300));
      const dense = r.structuredContent.dense;
      assert.equal(dense.status, 'consent_required');
      assert.equal(dense.token, undefined);
      assert.doesNotMatch(JSON.stringify({ dense, warnings: r.structuredContent.warnings }), HEX64);
      assert.match(r.structuredContent.warnings.join(' '), /person/);
    }

    // Whatever an agent got, it cannot be handed back as a consent: no tool takes one.
    const candidates = new Set<string>(seen.flatMap((s) => s.match(HEX64) ?? []));
    candidates.add('0'.repeat(64));
    for (const t of tools) {
      for (const token of candidates) {
        const r = await client.callTool({ name: t.name, arguments: { note: 'ops/Cache lifetime.md', provider: 'far', query: 'cache', consent: token } });
        assert.equal(errorOf(r).code, 'USAGE', `${t.name} accepted consent`);
      }
    }
    for (const args of [{ note: 'ops/Cache lifetime.md', provider: 'far' }, { note: 'garden/Tomatoes.md', provider: 'far', include_linked: true }]) await call('similar', args);

    assert.equal(p.requests.length, 0, `sent: ${p.requests.map((r) => r.body.slice(0, 200)).join(' | ')}`);
  } finally {
    await client.close();
  }
});

test('issue 20.1: loopback providers stay consent-free over MCP', async () => {
  const { url } = await farProvider();
  const near = await startFakeProvider('127.0.0.1');
  providers.push(near);
  near.reply(openaiEmbed);
  const { root, home } = setup(url, near.url);
  const client = await connect(root, home);
  try {
    const r: any = await client.callTool({ name: 'similar', arguments: { note: 'ops/Cache lifetime.md', provider: 'near' } });
    assert.equal(r.isError, undefined, textOf(r).slice(0, 400));
    assert.equal(r.structuredContent.candidates[0].path, 'dev/Cache lifetime.md');
    assert.ok(near.requests.length > 0);
  } finally {
    await client.close();
  }
});

test('issue 20.1: a piped CLI run (an agent’s shell) gets no token, and --consent without a terminal is refused', async () => {
  const { p, url } = await farProvider();
  const { root, home } = setup(url);
  const run = (args: string[]) => runCliProcess(args, { vault: root, home, env: { VAULTGATE_DAEMON: 'off' } });
  const ask = await run(['similar', 'ops/Cache lifetime.md', '--provider', 'far']);
  assert.equal(ask.exitCode, 77, ask.stdout);
  assert.equal(ask.json.error.code, 'CONSENT_REQUIRED');
  assert.doesNotMatch(ask.stdout + ask.stderr, HEX64);
  assert.match(ask.json.error.hint, /--consent/);
  assert.match(ask.json.error.hint, /web inbox/);

  const bare = await run(['similar', 'ops/Cache lifetime.md', '--provider', 'far', '--consent']);
  assert.equal(bare.exitCode, 77, bare.stdout);
  assert.equal(bare.json.error.code, 'CONSENT_REQUIRED');
  assert.match(bare.json.error.message, /terminal/);
  assert.doesNotMatch(bare.stdout + bare.stderr, HEX64);

  const old = await run(['similar', 'ops/Cache lifetime.md', '--provider', 'far', '--consent', 'a'.repeat(64)]);
  assert.equal(old.exitCode, 2, old.stdout);
  assert.match(old.json.error.message, /takes no token/);
  const search = await run(['search', 'edge cache', '--json']);
  assert.equal(search.exitCode, 0, search.stdout);
  assert.doesNotMatch(JSON.stringify({ d: search.json.dense, w: search.json.warnings }), HEX64);
  const searchConsent = await run(['search', 'edge cache', '--consent']);
  assert.equal(searchConsent.json.dense.status, 'consent_required');
  // relate send: the chat path refuses the same way.
  const cat = await run(['relate', 'prepare', 'ops/Cache lifetime.md', 'garden/Tomatoes.md']);
  assert.equal(cat.exitCode, 0, cat.stdout);
  const send = await run(['relate', 'send', cat.json.catalog_id, '--provider', 'far']);
  assert.equal(send.exitCode, 77, send.stdout);
  assert.doesNotMatch(send.stdout, HEX64);
  assert.equal(send.json.error.details.purpose, 'relate');
  assert.equal(p.requests.length, 0);
});

/** Claude Code's Bash rule: `Bash(PATTERN)`, `*` matching any run of characters. */
function denied(rules: string[], command: string): boolean {
  return rules.some((r) => {
    const m = /^Bash\((.*)\)$/.exec(r);
    if (!m) return false;
    const re = new RegExp('^' + m[1]!.split('*').map((s) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.*') + '$');
    return re.test(command);
  });
}

test('issue 20.1: skill install --guard denies agents the CLI’s consent paths as it denies apply', async () => {
  const base = tempDir();
  const home = path.join(base, 'home');
  fs.mkdirSync(home);
  const r = await runCliProcess(['skill', 'install', '--guard'], { home: path.join(base, 'vg'), env: { HOME: home } });
  assert.equal(r.exitCode, 0, r.stdout + r.stderr);
  const rules: string[] = JSON.parse(fs.readFileSync(path.join(home, '.claude/settings.json'), 'utf8')).permissions.deny;
  for (const cmd of [
    'vaultgate apply p-1 --review-hash x',
    'vaultgate similar ops/a.md --provider far --consent',
    'vaultgate similar --consent ops/a.md --provider far',
    'vaultgate --vault /v similar ops/a.md --provider far --consent',
    'vaultgate search edge cache --consent',
    'vaultgate context why --consent --json',
    'vaultgate relate send cat-1 --provider far --consent',
    'vaultgate consent approve cr-1',
    'vaultgate consent list',
    'vaultgate --vault /v consent approve cr-1',
    'vaultgate serve',
    'vaultgate serve --port 8080',
  ]) {
    assert.ok(denied(rules, cmd), `not denied: ${cmd}`);
  }
  assert.ok(!denied(rules, 'vaultgate similar ops/a.md --provider far'), 'asking (and being refused) stays allowed');
  assert.ok(!denied(rules, 'vaultgate search consent forms'), 'the word consent in a query is not the flag');
});

test('issue 20.1: the person approves a pending consent in the web inbox; the agent’s next identical call then proceeds, once', async () => {
  const { p, url } = await farProvider();
  const { root, home } = setup(url);
  const client = await connect(root, home);
  const s = await serve(root, home);
  try {
    const ask = errorOf(await client.callTool({ name: 'similar', arguments: { note: 'ops/Cache lifetime.md', provider: 'far' } }));
    const id = ask.details.consent_request as string;
    const origin = `http://127.0.0.1:${s.port}`;
    const auth = { Authorization: `Bearer ${s.token}` };
    const list = await rawRequest(s.port, 'GET', '/api/consent', auth);
    assert.equal(list.status, 200, list.body);
    const item = list.json.requests.find((x: any) => x.id === id);
    assert.ok(item, list.body);
    assert.equal(item.destination, `${url}/v1/embeddings`);
    assert.equal(item.purpose, 'embed');
    assert.equal(item.request_bytes, ask.details.request_bytes);
    assert.doesNotMatch(list.body, HEX64);

    const csrf = (await rawRequest(s.port, 'GET', '/api/session', auth)).json.csrf_token as string;
    const post = (action: string, headers: Record<string, string>) => rawRequest(s.port, 'POST', `/api/consent/${id}/${action}`, { ...auth, 'Content-Type': 'application/json', ...headers }, '{}');
    assert.equal((await post('approve', { Origin: origin })).status, 403, 'no CSRF token');
    assert.equal((await post('approve', { 'X-CSRF-Token': csrf })).status, 403, 'no Origin');
    assert.equal(p.requests.length, 0);
    const ok = await post('approve', { Origin: origin, 'X-CSRF-Token': csrf });
    assert.equal(ok.status, 200, ok.body);

    const sent: any = await client.callTool({ name: 'similar', arguments: { note: 'ops/Cache lifetime.md', provider: 'far' } });
    assert.equal(sent.isError, undefined, textOf(sent).slice(0, 400));
    assert.ok(p.requests.length > 0);
    assert.ok(SECRETS.every((x) => p.requests.some((r) => r.body.includes(x))));
    assert.doesNotMatch(JSON.stringify(sent.structuredContent.vectors ?? {}), HEX64);
    const records = await runCliProcess(['consent', 'list'], { vault: root, home });
    assert.equal(records.json.consents[0].via, 'web');

    // Once: the approval was for that run; a changed note is a new request.
    const before = p.requests.length;
    fs.appendFileSync(path.join(root, 'chess/Openings.md'), '\nCastle early.\n');
    const again = errorOf(await client.callTool({ name: 'similar', arguments: { note: 'ops/Cache lifetime.md', provider: 'far' } }));
    assert.equal(again.code, 'CONSENT_REQUIRED');
    assert.notEqual(again.details.consent_request, id);
    assert.equal(p.requests.length, before);
  } finally {
    await client.close();
    await s.stop();
  }
});

test('issue 20.1: the person on a terminal: --consent shows what goes where and sends only after yes; `consent approve` on a terminal approves an agent’s request', { skip: TMUX_SKIP }, async () => {
  const { p, url } = await farProvider();
  const { root, home } = setup(url);
  const dir = tempDir('vaultgate-tmux-');
  const env = { ...process.env, VAULTGATE_HOME: home, VAULTGATE_DAEMON: 'off' };
  /** The command in a real terminal, its stdout piped into a file (as `| jq` would): the prompt is on /dev/tty. */
  const inTerminal = (args: string[], out: string) =>
    TmuxPane.start(['sh', '-c', `exec "$0" "$@" > ${JSON.stringify(path.join(dir, out))}`, process.execPath, CLI_BIN, '--vault', root, ...args], { cols: 120, rows: 40, env, dir });
  const read = (out: string) => JSON.parse(fs.readFileSync(path.join(dir, out), 'utf8'));

  const no = inTerminal(['similar', 'ops/Cache lifetime.md', '--provider', 'far', '--consent'], 'no.json');
  try {
    await no.waitFor(/Type yes to send/, 'the consent question');
    const screen = no.capture();
    assert.ok(screen.includes(`destination: ${url}/v1/embeddings`), screen);
    assert.match(screen, /purpose: +embedding/);
    assert.match(screen, /sends: +4 notes, 4 texts, 1 requests, \d+ bytes/);
    assert.match(screen, /garden\/Tomatoes\.md \(\d+ bytes\)/);
    no.type('no');
    no.keys('Enter');
    assert.equal(await no.waitEnded('the refusal'), 'exit=77');
  } finally {
    no.kill();
  }
  assert.equal(read('no.json').error.code, 'CONSENT_DECLINED');
  assert.equal(p.requests.length, 0);

  const yes = inTerminal(['similar', 'ops/Cache lifetime.md', '--provider', 'far', '--consent'], 'yes.json');
  try {
    await yes.waitFor(/Type yes to send/, 'the consent question');
    yes.type('yes');
    yes.keys('Enter');
    assert.equal(await yes.waitEnded('the send'), 'exit=0');
  } finally {
    yes.kill();
  }
  const sent = read('yes.json');
  assert.equal(sent.ok, true);
  assert.equal(sent.vectors.embedded, 4);
  assert.ok(p.requests.length > 0 && SECRETS.every((x) => p.requests.some((r) => r.body.includes(x))));
  assert.equal((await runCliProcess(['consent', 'list'], { vault: root, home })).json.consents[0].via, 'terminal');

  // An agent's request (a piped run: no terminal), approved by the person with `consent approve` in a terminal.
  const before = p.requests.length;
  fs.appendFileSync(path.join(root, 'chess/Openings.md'), '\nCastle early.\n');
  const ask = await runCliProcess(['similar', 'ops/Cache lifetime.md', '--provider', 'far'], { vault: root, home, env: { VAULTGATE_DAEMON: 'off' } });
  const id = ask.json.error.details.consent_request as string;
  const piped = await runCliProcess(['consent', 'approve', id], { vault: root, home });
  assert.equal(piped.exitCode, 77, 'no terminal: no approval');
  assert.doesNotMatch(piped.stdout, HEX64);
  const approve = inTerminal(['consent', 'approve', id], 'approve.json');
  try {
    await approve.waitFor(/Type yes to approve/, 'the approval question');
    assert.match(approve.capture(), /chess\/Openings\.md/);
    approve.type('yes');
    approve.keys('Enter');
    assert.equal(await approve.waitEnded('the approval'), 'exit=0');
  } finally {
    approve.kill();
  }
  assert.equal(read('approve.json').request.state, 'approved');
  assert.equal(p.requests.length, before);
  const now = await runCliProcess(['similar', 'ops/Cache lifetime.md', '--provider', 'far'], { vault: root, home, env: { VAULTGATE_DAEMON: 'off' } });
  assert.equal(now.exitCode, 0, now.stdout);
  assert.equal(p.requests.length, before + 1);
});
