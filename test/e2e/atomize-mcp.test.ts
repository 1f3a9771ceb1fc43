/**
 * `atomize status` and `atomize check` are MCP read tools: over the real
 * server (stdio, the compiled binary) they answer with the CLI's JSON as
 * structuredContent and change nothing in the work folder; a missing work
 * folder is an isError result with the typed error.
 */
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { after, test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { BOOK, INVENTED, scriptedModel } from '../helpers/atomize-book.js';
import { startFakeProvider, type FakeProvider } from '../helpers/fake-provider.js';
import { CLI_BIN, runCli } from '../helpers/run-cli.js';
import { snapshotTree, tempDir, tempVault } from '../helpers/temp-vault.js';

const providers: FakeProvider[] = [];
after(async () => {
  for (const p of providers) await p.close();
});

test('mcp: atomize_status and atomize_check answer as the CLI does, read only', async () => {
  const fake = await startFakeProvider();
  providers.push(fake);
  fake.reply(scriptedModel());
  const { root, home } = tempVault({ 'Books/Ember Rules.md': BOOK });
  fs.mkdirSync(path.join(home, 'config'), { recursive: true });
  fs.writeFileSync(path.join(home, 'config', 'config.yaml'), JSON.stringify({ providers: { fake: { kind: 'openai', url: `${fake.url}/v1`, chat_model: 'm', attempts: 1 } } }));
  const work = path.join(tempDir(), 'work');
  const cli = (args: string[]) => runCli(args, { vault: root, home, cwd: root });
  for (const step of [['init', 'Books/Ember Rules.md', '--into', 'Rules', '--narrative', 'Example of play'], ['chunk'], ['extract', '--provider', 'fake'], ['write'], ['strip']]) {
    const r = await cli(['atomize', ...step, '--work', work]);
    assert.equal(r.exitCode, 0, r.stdout);
  }
  const before = snapshotTree(work);
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_BIN, 'mcp', '--vault', root], env: { ...(process.env as Record<string, string>), VAULTGATE_HOME: home }, stderr: 'pipe' });
  const client = new Client({ name: 'atomize-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const { tools } = await client.listTools();
    for (const name of ['atomize_status', 'atomize_check']) {
      const t = tools.find((x) => x.name === name);
      assert.ok(t, name);
      assert.equal(t!.annotations?.readOnlyHint, true);
    }
    for (const name of ['atomize_init', 'atomize_extract', 'atomize_promote']) assert.ok(!tools.some((t) => t.name === name), `${name} is CLI-only`);
    for (const [tool, verb] of [['atomize_status', 'status'], ['atomize_check', 'check']] as const) {
      const r: any = await client.callTool({ name: tool, arguments: { work } });
      assert.ok(!r.isError, JSON.stringify(r.content));
      assert.deepEqual(r.structuredContent, (await cli(['atomize', verb, '--work', work])).json);
    }
    const check: any = await client.callTool({ name: 'atomize_check', arguments: { work } });
    assert.deepEqual(check.structuredContent.novel.map((n: any) => n.text), [INVENTED]);
    const missing: any = await client.callTool({ name: 'atomize_status', arguments: { work: path.join(work, 'nope') } });
    assert.equal(missing.isError, true);
    assert.equal(JSON.parse(missing.content[0].text).error.code, 'ATOMIZE_WORK_MISSING');
  } finally {
    await client.close();
  }
  assert.deepEqual(snapshotTree(work), before, 'the tools wrote nothing into the work folder');
});
