/**
 * The MCP wire format without the SDK: newline-delimited JSON-RPC 2.0 on the
 * binary's stdin/stdout. Pins what any client sees (initialize, tools/list,
 * tools/call), that every stdout line is a protocol message (no stray output),
 * that garbage on stdin does not stop the server, and that the process exits
 * 0 by itself when stdin closes.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { test } from 'node:test';
import { CLI_BIN } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

test('mcp raw: initialize, tools/list, tools/call over plain JSON-RPC lines; exits 0 when stdin closes', async () => {
  const { root, home } = tempVault({ 'Rules.md': '# Rules\n## Robber\nOn a 7 the robber moves.\n', 'Other.md': 'Nothing here.\n' });
  const child = spawn(process.execPath, [CLI_BIN, 'mcp', '--vault', root], { env: { ...process.env, VAULTGATE_HOME: home }, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  const waiters = new Map<number, (msg: any) => void>();
  child.stdout.setEncoding('utf8').on('data', (d: string) => {
    stdout += d;
    let nl: number;
    while ((nl = stdout.indexOf('\n')) >= 0) {
      const line = stdout.slice(0, nl);
      stdout = stdout.slice(nl + 1);
      const msg = JSON.parse(line); // every line on stdout is JSON: nothing stray
      assert.equal(msg.jsonrpc, '2.0');
      waiters.get(msg.id)?.(msg);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('exit', (code, signal) => resolve({ code, signal })));
  const send = (msg: object) => child.stdin.write(JSON.stringify(msg) + '\n');
  const request = (id: number, method: string, params?: object) => {
    const answer = new Promise<any>((resolve) => waiters.set(id, resolve));
    send({ jsonrpc: '2.0', id, method, ...(params ? { params } : {}) });
    return answer;
  };

  const init = await request(1, 'initialize', { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw-test', version: '0' } });
  assert.equal(init.result.protocolVersion, '2025-06-18');
  assert.deepEqual(init.result.serverInfo, { name: 'vaultgate', title: 'vaultgate', version: init.result.serverInfo.version });
  assert.deepEqual(Object.keys(init.result.capabilities).sort(), ['prompts', 'resources', 'tools']);
  assert.match(init.result.instructions, /one Obsidian vault/);
  send({ jsonrpc: '2.0', method: 'notifications/initialized' });

  child.stdin.write('this is not json\n');

  const list = await request(2, 'tools/list');
  const search = list.result.tools.find((t: any) => t.name === 'search');
  // Written from the operation table in the words of tools (issue 21 §2); bounds are the server's to check.
  assert.deepEqual(search.inputSchema, {
    type: 'object',
    properties: {
      query: { type: 'string', description: 'the query' },
      limit: { type: 'integer', description: 'most hits (default 10)' },
      offset: { type: 'integer', description: 'skip this many hits (page) (default 0)' },
      path: { type: 'string', description: 'only notes under this vault path prefix' },
      tag: { type: 'string', description: 'only notes with this tag' },
      where: { type: 'array', items: { type: 'string' }, description: '["key=value", …]: only notes with these properties' },
      all_sections: { type: 'boolean', description: 'all matching sections of each note' },
    },
    required: ['query'],
    additionalProperties: false,
  });
  assert.deepEqual(search.annotations, { readOnlyHint: true, openWorldHint: false });
  assert.equal(search.outputSchema, undefined, 'results are self-describing JSON');

  const call = await request(3, 'tools/call', { name: 'search', arguments: { query: 'robber', limit: 5 } });
  assert.equal(call.result.isError, undefined);
  assert.equal(call.result.content[0].type, 'text');
  const doc = call.result.structuredContent;
  assert.deepEqual(JSON.parse(call.result.content[0].text), doc, 'the text block is the JSON of the structured result');
  assert.equal(doc.ok, true);
  assert.equal(doc.total, 1);
  assert.deepEqual(Object.keys(doc.hits[0]), ['path', 'heading_path', 'anchor', 'lines', 'part', 'sha256', 'score', 'match', 'snippet']);
  assert.deepEqual([doc.hits[0].path, doc.hits[0].heading_path, doc.hits[0].lines], ['Rules.md', ['Rules', 'Robber'], [2, 3]]);

  const bad = await request(4, 'tools/call', { name: 'search', arguments: { query: 42 } });
  assert.equal(bad.result.isError, true);
  assert.deepEqual(JSON.parse(bad.result.content[0].text), {
    ok: false,
    error: { code: 'USAGE', message: 'query must be a string', hint: 'Pass text for query.', details: { param: 'query' } },
  });

  const unknownMethod = await request(5, 'no/such/method');
  assert.equal(unknownMethod.error.code, -32601);

  child.stdin.end();
  const { code, signal } = await exited;
  assert.equal(signal, null);
  assert.equal(code, 0, stderr);
  assert.equal(stdout, '', 'nothing after the last message');
  assert.match(stderr, /not valid JSON/, 'the garbage line was reported on stderr, not answered on stdout');
});
