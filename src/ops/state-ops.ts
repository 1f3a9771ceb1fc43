import { defineOperation, READ_ONLY, type OpContext } from './operation.js';
import { readFileArg } from './read-bounded.js';

/**
 * `state get|patch|list|delete`: agents' working state outside the vault
 * (src/state). A patch is an RFC 7396 JSON merge patch sent with the revision
 * it was computed against; a wrong revision exits 75 (STATE_STALE) and changes
 * nothing. `state get` and `state patch` are MCP tools.
 */

const sessionArg = { name: 'session', type: 'string', positional: true, description: 'the session id (1–128 letters, digits, . _ : @ -)', toolDescription: 'your session id', nonEmpty: true } as const;
const revisionParam = (description: string) =>
  ({ name: 'revision', type: 'int', required: true, min: 0, placeholder: 'n', description }) as const;

/** The patch text: `patch` (API), else `--patch-file` (`-` = stdin), else stdin. */
async function patchText(ctx: OpContext, input: { patch?: string | undefined; patch_file?: string | undefined }): Promise<string | Buffer> {
  const { MAX_STATE_PATCH_BYTES } = await import('../state/index.js');
  if (input.patch !== undefined) return input.patch;
  // Over the limit, parseStatePatch reports STATE_LIMIT.
  return readFileArg(ctx, input.patch_file ?? '-', { limit: MAX_STATE_PATCH_BYTES, what: 'patch file' });
}

export const stateGetOp = defineOperation({
  name: 'state_get',
  command: 'state get',
  tool: 'state_get',
  group: 'read',
  summary: "Read a session's working state and its revision (revision 0 and {} when new)",
  description: 'Working state lives outside the vault, per vault, in the data root; it is for an agent to keep notes-to-self between calls.',
  toolDescription: 'Your working state for a session, kept outside the vault between calls (revision 0, {} when new).',
  examples: ['vaultgate state get review-2026-12', 'vaultgate state get review-2026-12 --json'],
  params: [sessionArg] as const,
  output: { session: 'string', revision: 'integer', state: 'object' },
  annotations: READ_ONLY,
  run: async function runStateGet(input, ctx) {
    const { getState } = await import('../state/index.js');
    return { ...getState(ctx.session().root, ctx.env, input.session) };
  },
  text: (r) => `${r.session} @ revision ${r.revision}\n${JSON.stringify(r.state, null, 2)}`,
});

export const statePatchOp = defineOperation({
  name: 'state_patch',
  command: 'state patch',
  tool: 'state_patch',
  group: 'write',
  summary: "Change a session's working state with a JSON merge patch (RFC 7396), if it is still at --revision",
  description:
    'The patch is one JSON object: keys to set (objects merge), `null` to remove a key; read from stdin, or --patch-file. ' +
    'A different current revision exits 75 (STATE_STALE) and changes nothing: get, redo, patch again.',
  toolDescription:
    "Change a session's working state by a JSON merge patch (RFC 7396) if it is still at revision; else STATE_STALE: state_get, redo, patch.",
  examples: [
    `echo '{"step": 2, "todo": null}' | vaultgate state patch review-2026-12 --revision 0`,
    'vaultgate state patch review-2026-12 --revision 7 --patch-file patch.json',
  ],
  params: [
    sessionArg,
    { ...revisionParam('the revision the patch was computed against (`state get`; 0 for a new session)'), toolDescription: 'the revision you read (0 for a new session)' },
    { name: 'patch_file', type: 'string', placeholder: 'file', description: 'read the patch from this file (`-` or absent: stdin)', cliOnly: true, nonEmpty: true },
    { name: 'patch', type: 'string', description: 'the merge patch: a JSON object (or its text)', mcpOnly: true, jsonText: true },
  ] as const,
  output: { session: 'string', revision: 'integer', state: 'object' },
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: async function runStatePatch(input, ctx) {
    const { patchState } = await import('../state/index.js');
    const text = await patchText(ctx, input);
    return { ...patchState(ctx.session().root, ctx.env, input.session, input.revision, text) };
  },
  text: (r) => `${r.session} @ revision ${r.revision}`,
});

export const stateListOp = defineOperation({
  name: 'state_list',
  command: 'state list',
  group: 'read',
  summary: 'List the sessions that have working state in this vault',
  examples: ['vaultgate state list', 'vaultgate state list --json'],
  params: [] as const,
  annotations: READ_ONLY,
  run: async function runStateList(_input, ctx) {
    const { listStates } = await import('../state/index.js');
    const sessions = listStates(ctx.session().root, ctx.env);
    return { total: sessions.length, sessions };
  },
  text: (r) => (r.sessions.length === 0 ? 'no working state' : r.sessions.map((s) => `${s.session}\trevision ${s.revision}\t${s.bytes} bytes\t${s.updated_at}`).join('\n')),
});

export const stateDeleteOp = defineOperation({
  name: 'state_delete',
  command: 'state delete',
  group: 'write',
  summary: "Delete a session's working state, if it is still at --revision",
  examples: ['vaultgate state get review-2026-12', 'vaultgate state delete review-2026-12 --revision 9'],
  params: [sessionArg, revisionParam('the current revision (`state get`)')] as const,
  annotations: { readOnly: false, destructive: true, idempotent: false, openWorld: false },
  run: async function runStateDelete(input, ctx) {
    const { deleteState } = await import('../state/index.js');
    return { ...deleteState(ctx.session().root, ctx.env, input.session, input.revision) };
  },
  text: (r) => (r.deleted ? `deleted the state of ${r.session}` : `${r.session} had no state`),
});
