/**
 * The MCP `propose` tool takes the list of change requests itself (issue #21
 * §1), through the SDK's client over stdio against the compiled binary: every
 * action in one call becomes one pending proposal that applies (`--allow-apply`)
 * to exactly the files expected; a wrong request is a tool error naming
 * `changes[i].field` and no CLI flag; the tool's input schema is the list, not
 * the CLI's flags.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { findOperation } from '../../src/ops/index.js';
import { CLI_BIN } from '../helpers/run-cli.js';
import { EVERY_CHANGE_APPLIED, EVERY_CHANGE_VAULT, everyChange, vaultFiles } from '../helpers/every-change.js';
import { tempVault } from '../helpers/temp-vault.js';

async function connect(root: string, home: string) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [CLI_BIN, 'mcp', '--vault', root, '--allow-apply'],
    env: { ...(process.env as Record<string, string>), VAULTGATE_HOME: home },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'vaultgate-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

const skip = findOperation({ name: 'apply' }) ? undefined : 'the proposals core is not part of this build';

test('mcp propose: the input is {title, summary?, changes, scenario?, type?, allow_*}', { skip }, async () => {
  const { root, home } = tempVault(EVERY_CHANGE_VAULT);
  const client = await connect(root, home);
  try {
    const { tools } = await client.listTools();
    const propose = tools.find((t) => t.name === 'propose')!;
    const props = propose.inputSchema.properties as Record<string, any>;
    assert.deepEqual(Object.keys(props).sort(), ['allow_broken_links', 'allow_relink', 'allow_shrink', 'changes', 'scenario', 'summary', 'title', 'type']);
    assert.deepEqual([...(propose.inputSchema.required as string[])].sort(), ['changes', 'title']);
    assert.equal(props.changes.type, 'array');
    assert.deepEqual(props.changes.items.properties.action.enum, ['write', 'delete', 'move', 'rename', 'replace', 'section', 'append', 'rename_heading', 'capture']);
    assert.doesNotMatch(JSON.stringify(propose.inputSchema), /(^|[\s"(])--[a-z]/, 'no CLI flag in the schema');
  } finally {
    await client.close();
  }
});

test('mcp propose: every action in one list, then review and apply through the tools', { skip }, async () => {
  const { root, home } = tempVault(EVERY_CHANGE_VAULT);
  const client = await connect(root, home);
  try {
    const proposed: any = await client.callTool({ name: 'propose', arguments: { title: 'Every kind', changes: everyChange(root) } });
    assert.ok(!proposed.isError, proposed.content[0].text);
    assert.equal(proposed.structuredContent.proposal.state, 'pending', JSON.stringify(proposed.structuredContent.review.checks));
    const id = proposed.structuredContent.proposal.id;
    const reviewed: any = await client.callTool({ name: 'review', arguments: { id } });
    const applied: any = await client.callTool({ name: 'apply', arguments: { id, review_hash: reviewed.structuredContent.review_hash } });
    assert.ok(!applied.isError, applied.content[0].text);
    assert.deepEqual(vaultFiles(root), EVERY_CHANGE_APPLIED);
  } finally {
    await client.close();
  }
});

test('mcp propose: each kind alone applies too; a wrong request names changes[i].field', { skip }, async () => {
  const { root, home } = tempVault(EVERY_CHANGE_VAULT);
  const client = await connect(root, home);
  try {
    // one proposal per request, each applied before the next is read (A.md's edits each against its new hash)
    for (const i of everyChange(root).keys()) {
      const request = everyChange(root)[i]!;
      const r: any = await client.callTool({ name: 'propose', arguments: { title: `kind ${request.action}`, changes: [request] } });
      assert.ok(!r.isError, `${request.action}: ${r.content[0].text}`);
      const id = r.structuredContent.proposal.id;
      const reviewed: any = await client.callTool({ name: 'review', arguments: { id } });
      const applied: any = await client.callTool({ name: 'apply', arguments: { id, review_hash: reviewed.structuredContent.review_hash } });
      assert.ok(!applied.isError, `${request.action}: ${applied.content[0].text}`);
    }
    assert.deepEqual(vaultFiles(root), EVERY_CHANGE_APPLIED);
    const a = everyChange(root)[5]!.base;
    const wrong: any = await client.callTool({
      name: 'propose',
      arguments: { title: 't', changes: [{ action: 'append', path: 'New.md', base: 'none', content: 'x' }] },
    });
    assert.equal(wrong.isError, true);
    const located: any = await client.callTool({
      name: 'propose',
      arguments: { title: 't', changes: [{ action: 'append', path: 'Notes/C.md', base: everyChange(root)[1]!.base, content: 'x\n' }, { action: 'section', path: 'Notes/A.md', base: a, heading: 'Nope', content: 'x' }] },
    });
    assert.equal(located.isError, true);
    for (const [r, field] of [
      [wrong, 'changes[0].base'],
      [located, 'changes[1].heading'],
    ] as const) {
      const error = r.structuredContent?.error ?? JSON.parse(r.content[0].text).error;
      assert.equal(error.details.field, field, JSON.stringify(error));
      assert.ok(error.message.includes(field), error.message);
      assert.doesNotMatch(`${error.message} ${error.hint}`, /(^|\s)--[a-z]/, JSON.stringify(error));
    }
  } finally {
    await client.close();
  }
});
