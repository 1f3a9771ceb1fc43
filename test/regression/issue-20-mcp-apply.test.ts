import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { findOperation } from '../../src/ops/index.js';
import { CLI_BIN, REPO_ROOT, runCliProcess } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

/**
 * Issue 20 §7: docs/agents.md said "there is no apply tool" while `mcp --allow-apply`
 * offers one, and that tool described itself as "Not offered to agents over MCP".
 * Both now say what --allow-apply means: the MCP client's approval prompt for the
 * call is then the only person in the loop (the review hash is no person's check:
 * the agent gets it from its own `review` call).
 */
test('issue 20.7: the apply tool and docs/agents.md say plainly what --allow-apply means', { skip: findOperation({ name: 'apply' }) ? undefined : 'the proposals core is not part of this build' }, async () => {
  const { root, home } = tempVault({ 'a.md': '# a\n' });
  for (const extra of [['--allow-apply'], []]) {
    const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_BIN, 'mcp', '--vault', root, ...extra], env: { ...(process.env as Record<string, string>), VAULTGATE_HOME: home }, stderr: 'pipe' });
    const client = new Client({ name: 'vaultgate-test', version: '1.0.0' });
    await client.connect(transport);
    try {
      const apply = (await client.listTools()).tools.find((t) => t.name === 'apply');
      if (extra.length === 0) {
        assert.equal(apply, undefined);
        continue;
      }
      assert.ok(apply);
      assert.doesNotMatch(apply.description ?? '', /not offered/i, apply.description);
      // the server option by name, in tool words (issue 21 §2: the MCP face names no CLI flag)
      assert.match(apply.description ?? '', /started with allow-apply/);
      assert.match(apply.description ?? '', /approval prompt/i);
    } finally {
      await client.close();
    }
  }
  const help = await runCliProcess(['mcp', '--help'], { vault: root, home });
  // commander wraps help at the terminal's width: compare with the line breaks folded
  assert.match(help.stdout.replace(/\s+/g, ' '), /approval prompt/i, 'mcp --help says it too');
  const doc = fs.readFileSync(path.join(REPO_ROOT, 'docs/agents.md'), 'utf8');
  assert.doesNotMatch(doc, /There is no apply tool\./, 'docs/agents.md denies the tool --allow-apply offers');
  assert.match(doc, /--allow-apply/);
});
