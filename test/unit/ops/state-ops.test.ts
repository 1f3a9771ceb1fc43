import assert from 'node:assert/strict';
import { test } from 'node:test';
import { VaultgateError } from '../../../src/errors.js';
import { findOperation, runOperation, type OpContext } from '../../../src/ops/index.js';
import { VaultSession } from '../../../src/session/index.js';
import { tempVault } from '../../helpers/temp-vault.js';

/** The state operations as an MCP client reaches them: API input, the patch as a string argument, no stdin. */
function apiContext(root: string, home: string): OpContext {
  const env = { VAULTGATE_HOME: home };
  return {
    face: 'mcp',
    env,
    cwd: root,
    readStdin: () => {
      throw new VaultgateError('USAGE', 'no stdin in this face');
    },
    session: () => VaultSession.open({ vault: root, env, cwd: root }),
  };
}

test('state ops: state_get and state_patch are MCP tools; the patch travels as the `patch` argument, --patch-file is CLI-only', async () => {
  const { root, home } = tempVault({ 'a.md': '# A\n' });
  const ctx = apiContext(root, home);
  const get = findOperation({ tool: 'state_get' })!;
  const patch = findOperation({ tool: 'state_patch' })!;
  assert.equal(get.name, 'state_get');
  assert.equal(patch.name, 'state_patch');
  assert.equal(findOperation({ name: 'state_list' })!.tool, undefined);
  assert.equal(findOperation({ name: 'scenario_show' })!.tool, undefined);
  const r = await runOperation(patch, { session: 'mcp-1', revision: 0, patch: '{"step": 1}' }, 'api', ctx);
  assert.deepEqual(r.output, { session: 'mcp-1', revision: 1, state: { step: 1 } });
  assert.deepEqual((await runOperation(get, { session: 'mcp-1' }, 'api', ctx)).output, r.output);
  await assert.rejects(runOperation(patch, { session: 'mcp-1', revision: 1, patch_file: '/etc/passwd' }, 'api', ctx), (e: any) => e.code === 'USAGE');
  await assert.rejects(runOperation(patch, { session: 'mcp-1', revision: 1 }, 'api', ctx), (e: any) => e.code === 'USAGE', 'no patch and no stdin');
  await assert.rejects(runOperation(patch, { session: 'mcp-1', revision: 0, patch: '{}' }, 'api', ctx), (e: any) => e.code === 'STATE_STALE');
});
