import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import { test } from 'node:test';
import { runCli } from '../helpers/run-cli.js';
import { tempVault } from '../helpers/temp-vault.js';

/**
 * Issue 20 §7: twin names in a folder move gave BUNDLE_INVALID with the hint "Fix the
 * bundle, then run `vaultgate tx inspect BUNDLE` again" — a step that does not
 * exist for `propose` (there is no bundle the agent could fix). Errors the
 * transaction engine raises for a proposal now carry a hint for the verb that
 * failed; a hint never names a bundle or a `tx` step a proposal has no use for.
 */
const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');
const BUNDLE_STEP = /bundle|tx inspect|tx apply|operation_id/i;

test('issue 20.7: engine refusals of a proposal hint at a step of propose, not of tx', async () => {
  const { root, home } = tempVault({ 'Dir/a.md': '# a\n', 'Dir/A.md': '# A\n', 'Nf/e\u0301.md': 'x', 'Nf/\u00e9.md': 'y', 'N.md': '# N\n' });
  const cli = (args: string[]) => runCli(args, { vault: root, home });
  const cases: Array<{ args: string[]; code: string; hint: RegExp }> = [
    { args: ['propose', '--move', 'Dir', 'New'], code: 'BUNDLE_INVALID', hint: /rename|propose/i },
    { args: ['propose', '--move', 'Nf', 'Nf2'], code: 'BUNDLE_INVALID', hint: /rename|propose/i },
    { args: ['propose', '.obsidian/x.md', '--content', 'x', '--base', 'none'], code: 'PATH_RESERVED', hint: /propos/i },
    { args: ['propose', '--move', 'N.md', '.trash/N.md', '--base', sha('# N\n')], code: 'PATH_RESERVED', hint: /propos/i },
    { args: ['propose', 'x.vg-0123abcd-0001.tmp', '--content', 'x', '--base', 'none'], code: 'BUNDLE_INVALID', hint: /propos|name/i },
  ];
  for (const c of cases) {
    const r = await cli(c.args);
    assert.deepEqual([r.exitCode !== 0, r.json?.error?.code], [true, c.code], `${c.args.join(' ')}: ${r.stdout}`);
    const hint: string = r.json.error.hint ?? '';
    assert.doesNotMatch(hint, BUNDLE_STEP, `${c.args.join(' ')}: the hint names a tx step: ${hint}`);
    assert.match(hint, c.hint, `${c.args.join(' ')}: ${hint}`);
  }
});

test('issue 20.7 (sibling): over MCP a hint names tool arguments, not CLI flags or `--help`', async () => {
  const { Client } = await import('@modelcontextprotocol/sdk/client/index.js');
  const { StdioClientTransport } = await import('@modelcontextprotocol/sdk/client/stdio.js');
  const { CLI_BIN } = await import('../helpers/run-cli.js');
  const { root, home } = tempVault({ 'A.md': '# A\n', 'Dir/a.md': '# a\n', 'Dir/A.md': '# A\n' });
  const transport = new StdioClientTransport({ command: process.execPath, args: [CLI_BIN, 'mcp', '--vault', root], env: { ...(process.env as Record<string, string>), VAULTGATE_HOME: home }, stderr: 'pipe' });
  const client = new Client({ name: 'vaultgate-test', version: '1.0.0' });
  await client.connect(transport);
  try {
    const call = async (args: Record<string, unknown>) => {
      const r: any = await client.callTool({ name: 'propose', arguments: args });
      assert.equal(r.isError, true, JSON.stringify(r));
      return JSON.parse(r.content[0].text).error as { code: string; hint: string };
    };
    const noBase = await call({ title: 't', changes: [{ action: 'move', path: 'A.md', to: 'B.md', base: 'none' }] });
    assert.equal(noBase.code, 'USAGE');
    assert.doesNotMatch(noBase.hint, /--base/, noBase.hint);
    assert.match(noBase.hint, /\bbase\b/);
    const none = await call({ title: 't', changes: [{ action: 'write', path: 'A.md', base: sha('# A\n') }] });
    assert.doesNotMatch(none.hint, /--help|--content|--stdin/, none.hint);
    const twins = await call({ title: 't', changes: [{ action: 'move', path: 'Dir', to: 'New', base: 'none' }] });
    assert.doesNotMatch(twins.hint, BUNDLE_STEP, twins.hint);
  } finally {
    await client.close();
  }
});
