import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { Command, Option } from 'commander';
import type { Operation, OpContext } from '../ops/operation.js';
import { flagName, isRequired, type Param } from '../ops/params.js';
import { runOperation } from '../ops/run-operation.js';
import type { VaultSession } from '../session/index.js';
import { verbOf } from './argv.js';
import type { Reporter } from './command-kit.js';
import { progressPrinter } from './progress.js';
import { readStdinBounded } from './stdin.js';

/** Where the docs the help text points at live (shipped in the package). */
const PACKAGE_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

export const GROUP_HEADINGS: Record<Operation['group'], string> = {
  read: 'Read (never writes the vault):',
  write: 'Write (proposals and transactions):',
  admin: 'Maintenance:',
};

/**
 * Register every operation of `operations` (the table, or a build's part of it) as a commander command: arguments and
 * flags from its params, help from its summary, examples and param descriptions.
 * The action validates through the same `runOperation` every face uses.
 */
export function registerOperations(program: Command, reporter: Reporter, operations: readonly Operation<any, any>[], verb: string | null = null): void {
  const parents = new Map<string, Command>();
  for (const op of operations) {
    const words = op.command.split(' ');
    if (verb !== null && !runsAs(op, verb)) continue;
    let parent = program;
    for (const word of words.slice(0, -1)) {
      let sub = parents.get(word);
      if (!sub) {
        sub = program.command(word).description(parentDescription(word)).helpGroup(GROUP_HEADINGS[op.group]);
        parents.set(word, sub);
      }
      parent = sub;
    }
    const cmd = parent
      .command(words[words.length - 1]!)
      .summary(op.summary)
      .description(op.summary + (op.description ? `\n\n${op.description}` : ''));
    if (parent === program) cmd.helpGroup(GROUP_HEADINGS[op.group]);
    for (const alias of op.aliases ?? []) cmd.alias(alias);
    for (const p of op.params as readonly Param[]) {
      if (p.mcpOnly) continue;
      if (p.positional) cmd.argument(argumentSyntax(p), p.description);
      else cmd.addOption(optionOf(p));
    }
    cmd.addHelpText('after', helpFooter(op));
    cmd.action(async (...params: unknown[]) => {
      const self = params[params.length - 1] as Command;
      const globals = self.optsWithGlobals() as { vault?: string };
      const raw = rawInput(op, self);
      const progress = reporter.io.stderrIsTTY ? progressPrinter(reporter.io.stderr) : undefined;
      let session: VaultSession | undefined;
      const shared = reporter.io.session;
      const ctx: OpContext = {
        face: 'cli',
        env: reporter.io.env,
        cwd: reporter.io.cwd,
        progress: progress?.update,
        readStdin: readStdinBounded,
        ...(reporter.io.confirm ? { confirm: reporter.io.confirm } : {}),
        session() {
          if (shared) return shared(globals.vault);
          session ??= openSession(globals.vault, reporter, progress?.update);
          return session;
        },
        settle: reporter.io.settle,
      };
      try {
        const r = await runOperation(op, raw, 'cli', ctx);
        progress?.done();
        reporter.report({
          json: r.output,
          get text() {
            return r.text; // rendered only if the reporter prints text
          },
          document: r.document,
          exitCode: r.exitCode,
          // a reviewed operation's text is what a person reviews: its diffs are coloured on a terminal
          diffs: op.reviewed === true,
        });
      } catch (e) {
        progress?.done();
        reporter.fail(e);
      } finally {
        session?.close();
      }
    });
  }
}

/**
 * The operation verb a command line runs, when that is all commander needs to
 * know: the first word after the global flags names an operation (or a group of
 * them, `tx`) and no help or version is asked for. Then only that verb's commands
 * are registered (~5 ms less of every read); anything else (no verb, an unknown
 * one, help, the face and daemon verbs) registers the whole table, so usage
 * errors and help read as before.
 */
export function operationVerb(argv: readonly string[], operations: readonly Operation<any, any>[]): string | null {
  if (argv.includes('help')) return null;
  const verb = verbOf(argv);
  return verb !== null && operations.some((op) => runsAs(op, verb)) ? verb : null;
}

/** Whether `verb` (a command line's first word) runs `op` or the group it is in: its first word, or a one-word operation's alias. */
function runsAs(op: Operation, verb: string): boolean {
  const words = op.command.split(' ');
  return words[0] === verb || (words.length === 1 && op.aliases?.includes(verb) === true);
}

/** Imported lazily: `--help` and `--version` never load the index or SQLite. */
let sessionModule: typeof import('../session/index.js') | undefined;
export async function preloadSession(): Promise<void> {
  sessionModule ??= await import('../session/index.js');
}
function openSession(vault: string | undefined, reporter: Reporter, onProgress: ((p: { phase: string; done: number; total: number }) => void) | undefined): VaultSession {
  if (!sessionModule) throw new Error('session module not loaded');
  return sessionModule.VaultSession.open({ vault, env: reporter.io.env, cwd: reporter.io.cwd, onProgress });
}

const PARENT_DESCRIPTIONS: Record<string, string> = {
  tx: 'Recoverable multi-file transactions (docs/bundle.md)',
  scenario: 'Scenarios: areas, context defaults, write rules and an instruction per task (docs/policy.md)',
  state: "Agents' working state outside the vault, patched with revisions (docs/json.md)",
  relate: 'Evidence catalogs for two notes and strict answers about them (docs/similar.md)',
  consent: 'Consents given to send note text off this machine (docs/similar.md)',
  skill: "Install or remove the vaultgate skill for Claude Code, Codex and pi (docs/agents-setup.md)",
  atomize: 'Cut a book into atomic, linked notes with a chat model, proposed for review (docs/atomize.md)',
};

function parentDescription(word: string): string {
  return PARENT_DESCRIPTIONS[word] ?? `${word} commands`;
}

function argumentSyntax(p: Param): string {
  const name = p.name.toUpperCase();
  const inner = p.positional === 'variadic' ? `${name}...` : name;
  return isRequired(p) ? `<${inner}>` : `[${inner}]`;
}

function optionOf(p: Param): Option {
  const flag = `--${flagName(p)}`;
  const placeholder = p.placeholder ?? p.name;
  const repeat = p.type === 'strings';
  const bare = p.type === 'string' && p.bareValue !== undefined;
  const syntax = p.type === 'boolean' ? flag : bare ? `${flag} [${placeholder}]` : `${flag} <${placeholder}>`;
  const extra = p.type === 'enum' ? ` (${p.values.join('|')})` : '';
  const dflt = 'default' in p && p.default !== undefined ? ` (default ${String(p.default)})` : '';
  const opt = new Option(syntax, p.description + extra + (repeat ? '' : dflt) + (isRequired(p) ? ' (required)' : ''));
  if (repeat) opt.argParser((value: string, previous: string[] | undefined) => [...(previous ?? []), value]);
  return opt;
}

/** The values the user typed, keyed by param name; absent ones stay absent so the params' defaults apply. */
function rawInput(op: Operation, cmd: Command): Record<string, unknown> {
  const raw: Record<string, unknown> = {};
  const opts = cmd.opts() as Record<string, unknown>;
  let position = 0;
  for (const p of op.params as readonly Param[]) {
    if (p.mcpOnly) continue;
    if (p.positional) {
      const value = cmd.processedArgs[position++];
      if (value !== undefined) raw[p.name] = value;
      continue;
    }
    const value = opts[new Option(`--${flagName(p)}`).attributeName()];
    // a flag with an optional value given alone (commander says `true`)
    if (value === true && p.type === 'string' && p.bareValue !== undefined) raw[p.name] = p.bareValue;
    else if (value !== undefined) raw[p.name] = value;
  }
  return raw;
}

function helpFooter(op: Operation): string {
  const lines = ['', 'Examples:', ...op.examples.map((e) => `  $ ${e}`), ''];
  lines.push(`JSON fields: ${path.join(PACKAGE_ROOT, 'docs/json.md')}`);
  lines.push(`Exit codes and errors: ${path.join(PACKAGE_ROOT, 'docs/errors.md')}`);
  return lines.join('\n');
}
