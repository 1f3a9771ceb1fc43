/**
 * Ingest through MCP (issue 22 §3): an agent reads a dropped source with the
 * `ingest` tool and files it as one `propose` (capture + note, `"type"`), which
 * a person then applies with the CLI. Over MCP a source is a vault path; one
 * outside the vault is refused.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { CLI_BIN, runCli } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

const sha = (s: string | Buffer) => crypto.createHash('sha256').update(s).digest('hex');

test('mcp: ingest (read) → propose with a capture and "type" → pending; the person applies; outside-vault sources refused', async () => {
  const src = '# Tea\n\nGreen tea is steamed or pan-fired. Black tea is oxidised.\n';
  const { root, home } = tempVault({
    '.vaultgate/config.yaml': 'operations:\n  ingest:\n    paths: [".raw/captured/**", "wiki/**"]\n',
    'wiki/Drinks.md': '# Drinks\n\nTea and coffee.\n',
    'inbox/tea.md': src,
  });
  fs.writeFileSync(path.join(path.dirname(root), 'secret.txt'), 'not for agents\n');
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_BIN, 'mcp', '--vault', root], env: { ...(process.env as Record<string, string>), VAULTGATE_HOME: home }, stderr: 'pipe' });
  const client = new Client({ name: 'vaultgate-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const list: any = await client.callTool({ name: 'ingest', arguments: { list: true } });
    assert.deepEqual(list.structuredContent.sources.map((s: any) => [s.path, s.state]), [['inbox/tea.md', 'new']]);
    const r: any = await client.callTool({ name: 'ingest', arguments: { source: 'inbox/tea.md', into: 'wiki' } });
    assert.ok(!r.isError, JSON.stringify(r.content));
    const ing = r.structuredContent;
    assert.deepEqual([ing.capture, ing.captured], [{ action: 'capture', source: 'inbox/tea.md' }, { path: `.raw/captured/${sha(src)}.md`, existing: false }]);
    assert.equal(ing.suggested_note, 'wiki/Tea.md');
    const out: any = await client.callTool({ name: 'ingest', arguments: { source: '../secret.txt' } });
    assert.equal(out.isError, true);
    assert.match(out.content[0].text, /outside the vault/);
    const doc = {
      title: 'Ingest tea',
      type: 'ingest',
      changes: [ing.capture, { path: ing.suggested_note, action: 'write', base: null, content: '# Tea\n\nSee [[Drinks]].\n\n> Black tea is oxidised.\n' }],
    };
    const p: any = await client.callTool({ name: 'propose', arguments: doc });
    assert.ok(!p.isError, JSON.stringify(p.content));
    assert.equal(p.structuredContent.proposal.state, 'pending', JSON.stringify(p.structuredContent.review.checks.filter((c: any) => !c.ok)));
    // out of scope over MCP too: refused, nothing stored
    const bad: any = await client.callTool({ name: 'propose', arguments: { title: 'Other', type: 'ingest', changes: [{ action: 'write', path: 'Other.md', base: 'none', content: 'x' }] } });
    assert.equal(bad.isError, true);
    assert.equal(JSON.parse(bad.content[0].text).error.code, 'OUT_OF_SCOPE');
    const capOut: any = await client.callTool({ name: 'propose', arguments: { title: 'Secret', changes: [{ action: 'capture', source: '../secret.txt' }] } });
    assert.equal(capOut.isError, true);
    const id = p.structuredContent.proposal.id;
    const a = await runCli(['apply', id, '--review-hash', p.structuredContent.review.review_hash], { vault: root, home });
    assert.equal(a.exitCode, 0, a.stdout);
    assert.equal(fs.readFileSync(path.join(root, ing.captured.path), 'utf8'), src);
    const after: any = await client.callTool({ name: 'ingest', arguments: { list: true } });
    assert.deepEqual(after.structuredContent.sources.map((s: any) => s.state), ['applied']);
  } finally {
    await client.close();
  }
});
