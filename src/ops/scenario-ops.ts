import { VaultgateError } from '../errors.js';
import { defineOperation, READ_ONLY, type OpContext } from './operation.js';
import { decodeUtf8Arg, readFileArg } from './read-bounded.js';

/**
 * `scenario list|show|check`: the scenarios a vault sees (its own
 * `.vaultgate/scenarios/`, then the machine config's). Read-only; `check` runs
 * the scenario's validator (a child process) on a sample change. Not offered
 * to MCP clients: an agent names a scenario, it does not manage them.
 */

const nameArg = { name: 'name', type: 'string', positional: true, description: 'the scenario (its folder name)', nonEmpty: true } as const;

export const scenarioListOp = defineOperation({
  name: 'scenario_list',
  command: 'scenario list',
  group: 'read',
  summary: "List the scenarios this vault sees: the vault's own (.vaultgate/scenarios/), then the machine config's",
  description: 'A broken scenario is listed with its error rather than hidden; a machine scenario shadowed by a vault one of the same name is listed as inactive.',
  examples: ['vaultgate scenario list', 'vaultgate scenario list --json'],
  params: [] as const,
  annotations: READ_ONLY,
  run: async function runScenarioList(_input, ctx) {
    const { listScenarios } = await import('../policy/index.js');
    const listings = listScenarios({ root: ctx.session().root, env: ctx.env });
    return {
      total: listings.length,
      scenarios: listings.map((l) => ({
        name: l.name,
        source: l.source,
        dir: l.dir,
        active: l.active,
        valid: l.error === null,
        description: l.scenario?.description ?? null,
        areas: l.scenario?.areas ?? null,
        validator: l.scenario ? l.scenario.validator !== null : null,
        error: l.error,
      })),
    };
  },
  text: (r) =>
    r.scenarios.length === 0
      ? 'no scenarios (see docs/policy.md to write one)'
      : r.scenarios
          .map((s) => `${s.name}\t${s.source}${s.active ? '' : ' (shadowed)'}\t${s.valid ? s.description || '' : `INVALID: ${s.error?.message}`}`)
          .join('\n'),
});

export const scenarioShowOp = defineOperation({
  name: 'scenario_show',
  command: 'scenario show',
  group: 'read',
  summary: 'Print a scenario: its areas, context defaults, write rules and AGENT.md',
  examples: ['vaultgate scenario show books', 'vaultgate scenario show journal --json'],
  params: [nameArg] as const,
  annotations: READ_ONLY,
  run: async function runScenarioShow(input, ctx) {
    const { loadScenario, summarizeScenario } = await import('../policy/index.js');
    return { ...summarizeScenario(loadScenario(input.name, { root: ctx.session().root, env: ctx.env })) };
  },
  text: (r) =>
    [
      `${r.name} (${r.source}: ${r.dir})${r.description ? ` — ${r.description}` : ''}`,
      `areas: ${r.areas.join(', ')}`,
      `context: ${JSON.stringify(r.context)}`,
      `write: ${JSON.stringify(r.write)}`,
      `validator: ${r.validator ?? 'none'}`,
      '',
      r.instruction.trimEnd(),
    ].join('\n'),
});

/** Largest sample note `scenario check --content-file` reads. */
const MAX_SAMPLE_BYTES = 4 * 1024 * 1024;

export const scenarioCheckOp = defineOperation({
  name: 'scenario_check',
  command: 'scenario check',
  group: 'admin',
  summary: "Validate a scenario's files and run its rules and validator on a sample change",
  description:
    'The sample is a made-up note in the first area, or the note given with --path and --content-file. ' +
    'Invalid files, or a validator that crashes, hangs, runs out of memory or answers out of shape, exit 2 (SCENARIO_INVALID); ' +
    "a validator that answers is working, and its verdict on the sample is reported.",
  examples: ['vaultgate scenario check books', "vaultgate scenario check journal --path Journal/2026-12-02.md --content-file draft.md"],
  params: [
    nameArg,
    { name: 'path', type: 'string', placeholder: 'vault-path', description: 'vault path of the sample note (default: a note in the first area)', nonEmpty: true },
    { name: 'content_file', type: 'string', placeholder: 'file', description: 'text of the sample note (default: one that follows the property rules)', cliOnly: true, nonEmpty: true },
  ] as const,
  annotations: READ_ONLY,
  run: async function runScenarioCheck(input, ctx) {
    const { checkScenario } = await import('../policy/index.js');
    const { normalizeVaultPath } = await import('../vault/index.js');
    const sample: { path?: string; text?: string } = {};
    if (input.path !== undefined) sample.path = normalizeVaultPath(input.path);
    if (input.content_file !== undefined) sample.text = readSample(ctx, input.content_file);
    return { ...(await checkScenario(input.name, { root: ctx.session().root, env: ctx.env, sample })) };
  },
  text: (r) =>
    [
      `${r.scenario.name}: files valid`,
      `sample ${r.sample.path}:`,
      ...r.checks.map((c) => `  ${c.ok ? 'ok  ' : 'FAIL'} ${c.name}: ${c.message}`),
      r.validator
        ? `  validator answered ${r.validator.ok ? 'ok' : 'not ok'}${r.validator.messages.length ? `: ${r.validator.messages.join('; ')}` : ''}${r.validator.sandboxed ? '' : ' (not sandboxed: this Node has no permission model)'}`
        : '  no validator',
    ].join('\n'),
});

function readSample(ctx: OpContext, file: string): string {
  const bytes = readFileArg(ctx, file, {
    limit: MAX_SAMPLE_BYTES,
    what: 'sample note',
    tooLarge: (limit) => new VaultgateError('FILE_TOO_LARGE', `${file} is larger than ${limit} bytes`),
  });
  return decodeUtf8Arg(bytes, { what: file, hint: 'Give the sample note as UTF-8 text.' });
}
