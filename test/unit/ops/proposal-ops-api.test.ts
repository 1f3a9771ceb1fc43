/**
 * The proposal operations as a non-CLI face calls them (`runOperation(op, raw,
 * 'api', ctx)`, what the MCP server does): `propose` takes the list of change
 * requests itself (`changes`, or its JSON text), the CLI's flags and
 * file-reading params do not exist, and `apply` has no tool name.
 */
import assert from 'node:assert/strict';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { findOperation, runOperation, type OpContext } from '../../../src/ops/index.js';
import { VaultSession } from '../../../src/session/index.js';
import { isVaultgateError } from '../../../src/errors.js';
import { tempVault } from '../../helpers/temp-vault.js';

const sha = (s: string) => crypto.createHash('sha256').update(s).digest('hex');

function ctxFor(root: string, home: string): { ctx: OpContext; close(): void } {
  const env = { VAULTGATE_HOME: home, VAULTGATE_AGENT: 'mcp-agent' };
  let session: VaultSession | undefined;
  return {
    ctx: {
      face: 'mcp',
      env,
      cwd: '/',
      readStdin: () => {
        throw new Error('no stdin over MCP');
      },
      session: () => (session ??= VaultSession.open({ vault: root, env, cwd: '/' })),
    },
    close: () => session?.close(),
  };
}

test('MCP face: propose with the change list (or its text); review; list_proposals; no apply tool', async () => {
  const { root, home } = tempVault({ 'a.md': '# A\n\ntext\n' });
  const { ctx, close } = ctxFor(root, home);
  try {
    const propose = findOperation({ tool: 'propose' })!;
    const r = await runOperation(propose, { title: 'inline', changes: [{ action: 'write', path: 'a.md', content: '# A\n\nnew text\n', base: sha('# A\n\ntext\n') }] }, 'api', ctx);
    assert.equal((r.output as any).proposal.state, 'pending');
    assert.equal((r.output as any).proposal.id, 'p-1');
    const list = JSON.stringify([{ path: 'b.md', action: 'write', content: 'b\n', base: null }]);
    const c = await runOperation(propose, { title: 'two', changes: list }, 'api', ctx);
    assert.equal((c.output as any).proposal.id, 'p-2');
    // the CLI's flags are sugar of the CLI only: over MCP each is an unknown argument
    for (const cliOnly of [{ content_file: 'x' }, { stdin: true }, { append_file: 'x' }, { path: 'a.md' }, { base: 'none' }, { replace: 'x' }, { move: true }, { changes_json: list }]) {
      await assert.rejects(runOperation(propose, { title: 't', changes: [], ...cliOnly }, 'api', ctx), (e) => isVaultgateError(e) && e.code === 'USAGE' && e.details?.param === Object.keys(cliOnly)[0]);
    }
    await assert.rejects(runOperation(propose, { changes: JSON.parse(list) }, 'api', ctx), (e) => isVaultgateError(e) && e.code === 'USAGE' && e.details?.param === 'title');
    await assert.rejects(runOperation(propose, { title: 't' }, 'api', ctx), (e) => isVaultgateError(e) && e.code === 'USAGE' && e.details?.param === 'changes');
    const review = await runOperation(findOperation({ tool: 'review' })!, { id: 'p-1' }, 'api', ctx);
    assert.equal((review.output as any).proposal.state, 'pending');
    const listed = await runOperation(findOperation({ tool: 'list_proposals' })!, { agent: 'mcp-agent' }, 'api', ctx);
    assert.deepEqual((listed.output as any).proposals.map((p: any) => p.id), ['p-2', 'p-1']);
    assert.equal(findOperation({ name: 'apply' })!.tool, undefined, 'agents propose; people apply');
    assert.equal(fs.readFileSync(path.join(root, 'a.md'), 'utf8'), '# A\n\ntext\n');
  } finally {
    close();
  }
});
