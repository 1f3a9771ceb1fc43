import { isRollbackProposed } from '../proposals/types.js';
import { defineOperation } from './operation.js';
import { actorOf } from './settings.js';
import { CLAIM, REVIEW, proposalsCore, reviewText } from './proposal-output.js';

/**
 * The proposal verbs after `propose` (src/ops/propose-op.ts; docs/proposals.md):
 * `review`, `show`, `apply`, `decline`, `reopen`, `rollback`, `proposals`, `log`.
 * Each calls the proposals core and shapes nothing but input. `apply` has no MCP
 * tool: agents propose, people apply.
 */

const idArg = {
  name: 'id',
  type: 'string',
  positional: true,
  description: 'proposal id (p-7)',
  pattern: { regex: /^p-[1-9][0-9]{0,17}$/, hint: 'Proposal ids look like p-7; `vaultgate proposals` lists them.' },
} as const;


export const reviewOp = defineOperation({
  name: 'review',
  reviewed: true,
  command: 'review',
  tool: 'review',
  group: 'write',
  summary: 'Check a proposal again against the vault as it is: named checks, the exact diff, and the review hash apply needs',
  description: 'Re-runnable: pending and blocked follow the vault. Writes nothing into the vault (the result is stored with the proposal).',
  toolDescription: 'Check a proposal again against the vault as it is now: checks, the exact diff, review_hash (writes nothing).',
  examples: ['vaultgate review p-7', 'vaultgate review p-7 --json'],
  params: [idArg] as const,
  output: { proposal: { object: { id: 'string', state: 'string' } }, ...REVIEW, ...CLAIM },
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  run: async function runReview(input, ctx) {
    const { review } = await proposalsCore();
    return { ...(await review(ctx.session(), input.id, actorOf(ctx.env))) };
  },
  text: (r) => reviewText(r),
});

export const showOp = defineOperation({
  name: 'show',
  reviewed: true,
  command: 'show',
  group: 'write',
  summary: 'A proposal and its last review, without checking again',
  examples: ['vaultgate show p-7', 'vaultgate show p-7 --json'],
  params: [idArg] as const,
  output: { proposal: { object: { id: 'string', state: 'string', title: 'string', agent: 'string|null' } }, ...REVIEW, ...CLAIM },
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: async function runShow(input, ctx) {
    const { show } = await proposalsCore();
    return { ...show(ctx.session(), input.id, actorOf(ctx.env)) };
  },
  text: (r) => [`${r.proposal.id} (${r.proposal.state}) ${r.proposal.title}`, `by ${r.proposal.agent ?? '-'}, ${r.proposal.created_at}`, '', reviewText(r)].join('\n'),
});

export const applyOp = defineOperation({
  name: 'apply',
  reviewed: true,
  command: 'apply',
  group: 'write',
  summary: 'Apply a reviewed proposal: re-reviewed under the vault lock, written only if nothing blocks and the hash is the one you approved',
  description:
    'Stale (the vault changed) exits 75; a protected area exits 77; a declined proposal exits 2 (reopen it first). ' +
    'Over MCP a tool only when the server was started with --allow-apply: the MCP client’s approval prompt for this call is then the only person in the loop ' +
    '(the review hash comes from a `review` call anyone can make, so it proves nothing about a person). Call it only when the person has read the diff and asked for it.',
  // the MCP tool's description starts with the warning of src/mcp/tools.ts (APPLY_WARNING)
  toolDescription:
    'It re-reviews the proposal under the vault lock and writes only if nothing blocks and review_hash is the current review\'s. ' +
    'The vault changed: STALE_HASH, review again. A protected area: refused. A declined proposal: the person reopens it first.',
  examples: ['vaultgate review p-7', 'vaultgate apply p-7 --review-hash <review_hash from vaultgate review p-7>', 'vaultgate apply p-7 --review-hash <review_hash> --json'],
  params: [
    idArg,
    {
      name: 'review_hash',
      type: 'string',
      required: true,
      placeholder: 'sha256',
      description: 'the review_hash of the review you approved',
      pattern: { regex: /^[0-9a-f]{64}$/, hint: 'Copy review_hash (64 lower-case hex digits) from `vaultgate review ID`.' },
    },
  ] as const,
  output: { operation_id: 'string', changed_paths: { array: 'string' }, proposal: { object: { id: 'string', state: 'string' } } },
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  run: async function runApply(input, ctx) {
    const { apply } = await proposalsCore();
    const { engineSettingsFromEnv } = await import('../txn/index.js');
    return { ...(await apply(ctx.session(), input.id, input.review_hash, actorOf(ctx.env), engineSettingsFromEnv(ctx.env))) };
  },
  text: (r) => `${r.replayed ? 'already applied' : 'applied'} ${r.proposal.id} as ${r.operation_id}: ${r.changed_paths.join(', ')}`,
});

export const declineOp = defineOperation({
  name: 'decline',
  reviewed: true,
  command: 'decline',
  group: 'write',
  summary: 'Decline a proposal, saying why (it stays on record; `reopen` brings it back)',
  examples: ["vaultgate decline p-7 --reason 'keep the old wording'", "vaultgate decline p-7 --reason 'links the wrong note' --json"],
  params: [idArg, { name: 'reason', type: 'string', required: true, nonEmpty: true, placeholder: 'text', description: 'why, for the agent and the log' }] as const,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: async function runDecline(input, ctx) {
    const { decline } = await proposalsCore();
    return { ...decline(ctx.session(), input.id, input.reason, actorOf(ctx.env)) };
  },
  text: (r) => `declined ${r.proposal.id}: ${r.proposal.reason}`,
});

export const reopenOp = defineOperation({
  name: 'reopen',
  reviewed: true,
  command: 'reopen',
  group: 'write',
  summary: 'Reopen a declined or undone proposal: it is reviewed again and becomes pending or blocked',
  examples: ['vaultgate reopen p-7', 'vaultgate reopen p-7 --json'],
  params: [idArg] as const,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: async function runReopen(input, ctx) {
    const { reopen } = await proposalsCore();
    return { ...(await reopen(ctx.session(), input.id, actorOf(ctx.env))) };
  },
  text: (r) => reviewText(r),
});

export const rollbackOp = defineOperation({
  name: 'rollback',
  reviewed: true,
  command: 'rollback',
  group: 'write',
  summary: 'Propose the inverse of an applied proposal (writes nothing: review and apply it like any other)',
  description: 'Based on the bytes the apply wrote: if a file changed since, the rollback proposal is created but blocked, with the reason.',
  examples: ['vaultgate rollback p-7', 'vaultgate rollback p-7 --json'],
  params: [idArg] as const,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: async function runRollback(input, ctx) {
    const { rollback } = await proposalsCore();
    return { ...(await rollback(ctx.session(), input.id, actorOf(ctx.env))) };
  },
  text: (r) => reviewText({ proposal: r.proposal, ...r.review }),
});

export const proposalsOp = defineOperation({
  name: 'proposals',
  reviewed: true,
  command: 'proposals',
  tool: 'list_proposals',
  group: 'write',
  summary: 'List proposals, newest first, with what blocks each',
  examples: ['vaultgate proposals --state open', 'vaultgate proposals --agent claude --limit 20', 'vaultgate proposals --match sourdough --offset 100'],
  params: [
    {
      name: 'state',
      type: 'enum',
      values: ['open', 'pending', 'blocked', 'applied', 'declined', 'recovery', 'undone'] as const,
      placeholder: 'state',
      description: 'only proposals in this state; open: pending or blocked (what waits for a person)',
      toolDescription: 'only this state (open: pending or blocked)',
    },
    { name: 'agent', type: 'string', placeholder: 'name', description: 'only proposals by this agent', toolDescription: 'only this agent\'s' },
    { name: 'match', type: 'string', placeholder: 'text', description: 'only proposals whose id, title, agent or a file path contains this text (case-insensitive)', toolDescription: 'text in the id, title, agent or a path' },
    { name: 'limit', type: 'int', min: 1, max: 10_000, default: 100, placeholder: 'n', description: 'most proposals to list', toolDescription: 'most listed' },
    { name: 'offset', type: 'int', min: 0, max: 1_000_000_000, default: 0, placeholder: 'n', description: 'skip this many first (to page: total says how many match)', toolDescription: 'skip this many (page)' },
  ] as const,
  output: { total: 'integer', proposals: { array: { id: 'string', state: 'string', title: 'string', agent: 'string|null', files: 'array', blocking: { array: 'string' }, warnings: 'integer', review_hash: 'string|null' } } },
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: async function runProposals(input, ctx) {
    const { list, OPEN_STATES } = await proposalsCore();
    const states = input.state === undefined ? undefined : input.state === 'open' ? OPEN_STATES : [input.state];
    return {
      ...list(
        ctx.session(),
        { limit: input.limit, offset: input.offset, ...(states ? { states } : {}), ...(input.agent ? { agent: input.agent } : {}), ...(input.match ? { match: input.match } : {}) },
        actorOf(ctx.env),
      ),
    };
  },
  text: (r) =>
    r.proposals.length === 0
      ? 'no proposals'
      : r.proposals
          .map((p) => `${p.id.padEnd(6)} ${p.state.padEnd(8)} ${p.title}  (${p.agent ?? '-'}, ${p.files.length} file${p.files.length === 1 ? '' : 's'}${p.blocking.length ? `; blocked by ${p.blocking.join(', ')}` : ''})`)
          .join('\n'),
});

export const logOp = defineOperation({
  name: 'log',
  reviewed: true,
  command: 'log',
  group: 'write',
  summary: 'The audit log of proposals, newest first: proposed, reviewed, applied, declined, reopened, rollback proposed, rolled back, recovery, undone',
  examples: ['vaultgate log --limit 20', 'vaultgate log --proposal p-7', 'vaultgate log --limit 50 --offset 50'],
  params: [
    { name: 'limit', type: 'int', min: 1, max: 100_000, default: 50, placeholder: 'n', description: 'most events to show' },
    { name: 'offset', type: 'int', min: 0, max: 1_000_000_000, default: 0, placeholder: 'n', description: 'skip this many of the newest first (to page: total says how many there are)' },
    { name: 'proposal', type: 'string', placeholder: 'id', description: 'only the events of this proposal', pattern: idArg.pattern },
  ] as const,
  annotations: { readOnly: true, destructive: false, idempotent: true, openWorld: false },
  run: async function runLog(input, ctx) {
    const { auditLog } = await proposalsCore();
    return { ...auditLog(ctx.session(), { limit: input.limit, offset: input.offset, ...(input.proposal ? { proposal: input.proposal } : {}) }) };
  },
  // an old log's early `rolled_back` (it has details.state) is shown as what it was: a proposed rollback
  text: (r) => (r.events.length === 0 ? 'no events' : r.events.map((e) => `${e.at}  ${(isRollbackProposed(e) ? 'rollback_proposed' : e.event).padEnd(17)} ${(e.proposal ?? '').padEnd(6)} ${e.actor}${e.operation_id && (e.event === 'applied' || (e.event === 'rolled_back' && !isRollbackProposed(e))) ? `  ${e.operation_id}` : ''}`).join('\n')),
});
