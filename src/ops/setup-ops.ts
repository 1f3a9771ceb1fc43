import os from 'node:os';
import path from 'node:path';
import { defineOperation, type OpContext } from './operation.js';

/**
 * Setting vaultgate up for agent runtimes: `skill install` and `skill
 * uninstall`. They need no vault (the skill is the same for every vault) and
 * write only under the home folder and the data root, never into a vault.
 */

const runtimeParam = {
  name: 'runtime',
  type: 'enum',
  values: ['all', 'claude', 'codex', 'pi'] as const,
  default: 'all',
  placeholder: 'runtime',
  description: 'which runtime: claude (Claude Code), codex, pi, or all',
} as const;
const homeParam = { name: 'home', type: 'string', placeholder: 'dir', nonEmpty: true, description: 'the home folder holding .claude/, .codex/, .pi/ (default: $HOME)' } as const;
const dryRunParam = { name: 'dry_run', type: 'boolean', description: 'say what would be done; change nothing' } as const;

type RuntimeChoice = (typeof runtimeParam.values)[number];

async function setup(ctx: OpContext, input: { runtime: RuntimeChoice; home: string | undefined }) {
  const skill = await import('../skill/index.js');
  const { dataRoots } = await import('../vault/index.js');
  const home = path.resolve(ctx.cwd, input.home ?? (ctx.env.HOME || os.homedir()));
  const runtimes = input.runtime === 'all' ? [...skill.RUNTIMES] : [input.runtime];
  return { skill, home, runtimes, dataRoot: dataRoots(ctx.env).data };
}

/** The vault the recipes name, when one can be selected; the recipes work without one. */
function vaultOrNull(ctx: OpContext): string | null {
  try {
    return ctx.session().root;
  } catch {
    return null;
  }
}

export const skillInstallOp = defineOperation({
  name: 'skill_install',
  command: 'skill install',
  group: 'admin',
  summary: "Install the vaultgate skill (SKILL.md from docs/agents.md) into Claude Code's, Codex's and pi's skills folders",
  description:
    'Writes SKILL.md once under the data root and links it into ~/.claude/skills/vaultgate, ~/.codex/skills/vaultgate and ~/.pi/agent/skills/vaultgate ' +
    '(a copy where a symlink cannot be made). Idempotent; never overwrites a file it did not write (FOREIGN_FILE, exit 75). ' +
    "--guard also adds deny rules for apply/undo to Claude Code's settings.json (merged, backed up) and prints the Codex and pi recipes (docs/agents-setup.md).",
  examples: ['vaultgate skill install', 'vaultgate skill install --runtime claude --guard', 'vaultgate skill install --dry-run --json'],
  params: [
    runtimeParam,
    homeParam,
    dryRunParam,
    { name: 'guard', type: 'boolean', description: "add deny rules for `vaultgate apply`, `tx apply`, `undo` to Claude Code's settings; print the Codex and pi recipes" },
  ] as const,
  annotations: { readOnly: false, destructive: false, idempotent: true, openWorld: false },
  run: async function runSkillInstall(input, ctx) {
    const { skill, home, runtimes, dataRoot } = await setup(ctx, input);
    const { VERSION } = await import('../version.js');
    // What an agent's fresh shell can run: `vaultgate` from PATH, else a shim of this build (skill/command.ts).
    const { shimText, ...command } = skill.agentCommand({ env: ctx.env, home, dataRoot, version: VERSION });
    const content = skill.renderSkill(skill.readAgentsDoc(), VERSION, command.run);
    const r = skill.installSkill({ home, dataRoot, runtimes, content, dryRun: input.dry_run, guard: input.guard, command: { ...command, shimText } });
    // the shim, now written, run the way the agent will run it
    const problem = command.via === 'shim' && !input.dry_run ? skill.versionProblem(command.run, VERSION, ctx.env, home) : null;
    if (command.via === 'shim' && !input.dry_run) command.checked = problem === null;
    const recipes = input.guard ? { codex: skill.codexRecipe((await import('../vault/index.js')).dataRoots(ctx.env), vaultOrNull(ctx)), pi: skill.osRecipe(vaultOrNull(ctx)) } : null;
    return { home, ...r, command: { ...command, ...(problem ? { problem } : {}) }, recipes };
  },
  text: (r) =>
    [
      `${r.dry_run ? 'would install' : 'installed'} ${r.skill.path}`,
      ...r.runtimes.map((x) => `  ${x.runtime.padEnd(6)} ${x.action.padEnd(9)} ${x.path}`),
      ...(r.guard ? [`  guard  ${r.guard.action.padEnd(9)} ${r.guard.settings}${r.guard.rules.length ? ` (+ ${r.guard.rules.join(', ')})` : ''}${r.guard.backup ? `; backup ${r.guard.backup}` : ''}`] : []),
      ...commandLines(r.command, r.dry_run),
      ...(r.recipes ? ['', '# Codex', r.recipes.codex, '', '# pi', r.recipes.pi] : []),
    ].join('\n'),
});

/** What the skill tells agents to run, and why: the person learns here, not from an agent's failing shell. */
function commandLines(c: { run: string; via: string; shim: string | null; target: string | null; on_path: string | null; reason: string | null; checked: boolean; problem?: string }, dryRun: boolean): string[] {
  if (c.via === 'path') return [`agents run: vaultgate (${c.on_path}, checked from a fresh shell)`];
  return [
    `agents run: ${c.run}`,
    `  ${dryRun ? 'would write' : 'wrote'} a shim there that runs ${c.target}, because ${c.reason}`,
    c.problem ? `  warning: the shim does not run from a fresh shell: ${c.problem}` : dryRun ? '' : '  checked from a fresh shell: it runs this version',
    '  to let agents type plain `vaultgate`: `npm link` (or `npm install -g .`) in the vaultgate checkout, then `vaultgate skill install` again',
  ].filter(Boolean);
}

export const skillUninstallOp = defineOperation({
  name: 'skill_uninstall',
  command: 'skill uninstall',
  group: 'admin',
  summary: 'Remove what `skill install` installed (links, copies it wrote, its deny rules), and nothing else',
  examples: ['vaultgate skill uninstall', 'vaultgate skill uninstall --runtime codex --json'],
  params: [runtimeParam, homeParam, dryRunParam] as const,
  annotations: { readOnly: false, destructive: true, idempotent: true, openWorld: false },
  run: async function runSkillUninstall(input, ctx) {
    const { skill, home, runtimes, dataRoot } = await setup(ctx, input);
    return { home, ...skill.uninstallSkill({ home, dataRoot, runtimes, dryRun: input.dry_run }) };
  },
  text: (r) =>
    [
      ...r.runtimes.map((x) => `${x.runtime.padEnd(6)} ${(r.dry_run && x.action === 'removed' ? 'would remove' : x.action).padEnd(9)} ${x.path}${x.reason ? ` (${x.reason})` : ''}`),
      ...(r.guard ? [`guard  ${r.guard.action.padEnd(9)} ${r.guard.settings}${r.guard.rules.length ? ` (- ${r.guard.rules.join(', ')})` : ''}`] : []),
    ].join('\n'),
});
