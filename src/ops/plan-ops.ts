import { defineOperation } from './operation.js';

/** `plan`: an accepted recommendation of a catalog becomes a bounded change plan (DESIGN §5.3). Writes nothing. */
export const planOp = defineOperation({
  name: 'plan',
  reviewed: true,
  command: 'plan',
  group: 'write',
  summary: 'Turn an accepted link recommendation into an exact, bounded change: one file, one place, one checked link, a diff',
  description:
    'The place is the recommendation’s anchor (or --at, --after-heading, --line): after a paragraph, list, table or quote, ' +
    'never inside frontmatter, code, tables, lists, quotes, callouts, links, math, comments or managed blocks (--list-item appends an item ' +
    'at the end of the anchor’s list instead). The link text is the shortest that names exactly the target, in the vault’s link format, ' +
    'checked by resolving it. A link that already exists is a no-op. Both notes are re-read before answering: a change exits 75. ' +
    '--propose stores the change as a proposal (never written to the vault until a person applies it).',
  examples: ['vaultgate plan cat-0123456789abcdef --recommendation 0', 'vaultgate plan cat-0123456789abcdef --recommendation 0 --propose', "vaultgate plan cat-0123456789abcdef --recommendation 1 --after-heading 'Review policy'"],
  params: [
    { name: 'catalog_id', type: 'string', positional: true, description: 'catalog id printed by `relate prepare`', nonEmpty: true },
    { name: 'recommendation', type: 'int', required: true, min: 0, max: 10_000, placeholder: 'n', description: 'index of the recommendation in the accepted answer' },
    { name: 'at', type: 'string', placeholder: 'fragment', description: 'put the link after the block holding this fragment (of the note the link goes into)' },
    { name: 'after_heading', type: 'string', placeholder: 'A > B', description: 'put the link at the end of this section' },
    { name: 'line', type: 'int', min: 1, max: 100_000_000, placeholder: 'n', description: 'put the link after this line (the end of a block)' },
    { name: 'list_item', type: 'boolean', description: 'append the link as a new item at the end of the anchor’s list' },
    { name: 'propose', type: 'boolean', description: 'store the plan as a proposal for a person to review (docs/proposals.md); a no-op proposes nothing' },
    { name: 'agent', type: 'string', placeholder: 'name', description: 'with --propose: who proposes (default: VAULTGATE_AGENT)' },
  ] as const,
  annotations: { readOnly: false, destructive: false, idempotent: false, openWorld: false },
  run: async function runPlan(input, ctx) {
    const { makePlan, proposePlan } = await import('../wing/plan/index.js');
    const { actorOf, agentName } = await import('./settings.js');
    const session = ctx.session();
    const result = makePlan(session.root, session.env, session, {
      catalogId: input.catalog_id,
      recommendation: input.recommendation,
      at: input.at,
      afterHeading: input.after_heading,
      line: input.line,
      listItem: input.list_item,
    });
    const { new_text: _t, bom: _b, cited: _c, ...out } = result;
    if (!input.propose) return { ...out };
    const agent = input.agent ?? agentName(ctx.env);
    const proposed = await proposePlan(session, result, actorOf(ctx.env, agent), agent);
    return { ...out, proposal: proposed?.proposal ?? null, review: proposed?.review ?? null };
  },
  text: (r) => {
    const out = r as typeof r & { proposal?: { id: string; state: string } | null };
    if (r.noop) return `no-op: ${r.reason}`;
    const head = `${r.plan!.source}: insert ${r.plan!.link_text} after line ${r.plan!.insert.lines[0]}`;
    return [head, out.proposal ? `proposed as ${out.proposal.id} (${out.proposal.state}): review it with \`vaultgate review ${out.proposal.id}\`` : null, r.diff].filter(Boolean).join('\n');
  },
});
