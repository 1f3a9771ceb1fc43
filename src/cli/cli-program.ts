import { Command, CommanderError } from 'commander';
import { VaultgateError } from '../errors.js';
import type { CliIO, CommandResult, Reporter } from './command-kit.js';
import type { Operation } from '../ops/operation.js';
import { flagName, type Param } from '../ops/params.js';
import { errorReport } from '../ops/run-operation.js';
import { operationVerb, preloadSession, registerOperations } from './register-ops.js';
import { VERSION } from '../version.js';
import { visibleLines } from '../visible-text.js';
import { writeJsonCompact } from './json-out.js';
import { colourDiffs, wantsColour } from './diff-colour.js';
import { GLOBAL_FLAGS, verbIndex } from './argv.js';

/**
 * The commands a CLI build knows: operations from the table, and the other
 * verbs (faces, daemon) it registers itself. The whole CLI (run-cli.ts) knows
 * every one; the read verbs' build (run-read-cli.ts) only the read operations,
 * so that a read loads and compiles half the code.
 */
export interface CliVerbs {
  operations: readonly Operation<any, any>[];
  registerMore?: (program: Command, reporter: Reporter) => void;
}

/**
 * Run one vaultgate command line with `verbs` and return its exit code. The only place that
 * decides JSON versus text and maps errors to exit codes (DESIGN §6): JSON when
 * stdout is not a terminal or `--json` is given; errors are
 * `{"ok":false,"error":{code,message,hint?}}` on stdout.
 */
export async function runCliWith(argv: string[], io: CliIO, verbs: CliVerbs): Promise<number> {
  let exitCode = 0;
  const explicitJson = () => argv.includes('--json');
  // --text: the terminal rendering even when piped (the demo, people who pipe into less).
  const explicitText = () => argv.includes('--text') && !explicitJson();
  const wantsJson = () => (!io.isTTY && !explicitText()) || explicitJson();
  const writeJson = (body: unknown) => {
    if (wantsJson() && io.isTTY) return io.stdout(JSON.stringify(body, null, 2) + '\n');
    writeJsonCompact(body, io.stdout);
    io.stdout('\n');
  };

  const reporter: Reporter = {
    io,
    report(result: CommandResult) {
      exitCode = result.exitCode ?? 0;
      if (result.document !== undefined && !explicitJson()) io.stdout(result.document.endsWith('\n') ? result.document : result.document + '\n');
      // `{ok: true, ...json}` keeping lazy fields lazy (a spread would make a review's whole diff at once)
      else if (wantsJson()) writeJson(Object.defineProperties({ ok: true }, Object.getOwnPropertyDescriptors(result.json ?? {})));
      else {
        const text = result.text ?? JSON.stringify(result.json, null, 2);
        io.stdout((result.diffs && result.text !== undefined && wantsColour(io.isTTY, io.env) ? colourDiffs(text) : text) + '\n');
      }
    },
    fail(raised: unknown) {
      const report = errorReport(raised);
      exitCode = report.exitCode;
      const body = report.error;
      if (report.internal) io.stderr(((raised as Error)?.stack ?? String(raised)) + '\n');
      if (wantsJson()) writeJson({ ok: false, error: body });
      // a message quotes paths and titles agents wrote: shown, like every reviewed text, with hidden characters as <U+XXXX>
      else io.stderr(visibleLines(`error [${body.code}]: ${body.message}${body.hint ? `\nhint: ${body.hint}` : ''}`) + '\n');
    },
    exit(code: number) {
      exitCode = code;
    },
  };

  // Before issue 20.1 `--consent` took a token; now it asks the person on the terminal. An old command line gets a clear refusal.
  const legacy = argv.findIndex((a, i) => (a === '--consent' && /^[0-9a-f]{64}$/.test(argv[i + 1] ?? '')) || /^--consent=/.test(a));
  if (legacy >= 0) {
    reporter.fail(
      new VaultgateError('USAGE', '--consent takes no token any more: it shows what would be sent where and asks you on this terminal', {
        details: { param: 'consent' },
        hint: 'Run the same command with --consent alone in a terminal, or approve the pending request in the web inbox (`vaultgate serve`, docs/similar.md).',
      }),
    );
    return exitCode;
  }
  argv = textArgsLast(argv, verbs.operations);
  // What commander writes to its error stream: its own error texts, which our typed
  // errors replace, and the help it shows when a command is given without its
  // subcommand (a bare `vaultgate`, `vaultgate daemon`), which must reach the person.
  let commanderErr = '';
  const program = new Command('vaultgate')
    .description('The one door between AI agents and an Obsidian vault: cited reads, reviewed writes, recoverable transactions.')
    .version(VERSION)
    .option('--vault <path|name>', 'the vault (else VAULTGATE_VAULT, else default_vault in the machine config)')
    .option('--json', 'print JSON even on a terminal')
    .option('--text', 'print the terminal rendering even when piped')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout(s),
      writeErr: (s) => void (commanderErr += s),
    });
  program.enablePositionalOptions(false);
  program.configureHelp({ showGlobalOptions: true, sortSubcommands: false });
  program.addHelpText('after', '\nExit codes: 0 ok, 1 bug, 2 usage or invalid input, 3 integrity, 69 unavailable (provider, native module, daemon), 75 conflict (re-read and retry), 77 not permitted.\nRun `vaultgate <command> --help` for its options and examples.');

  registerOperations(program, reporter, verbs.operations, operationVerb(argv, verbs.operations));
  verbs.registerMore?.(program, reporter);
  // Every subcommand reports usage errors the same way, shows global options in its help, and exits through us.
  const configure = (cmd: Command) => {
    cmd.exitOverride().configureOutput({ writeOut: (s) => io.stdout(s), writeErr: (s) => void (commanderErr += s) });
    cmd.configureHelp({ showGlobalOptions: true });
    cmd.commands.forEach(configure);
  };
  program.commands.forEach(configure);
  if (!argv.includes('--help') && !argv.includes('-h') && !argv.includes('--version') && !argv.includes('-V')) await preloadSession();

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version') return 0;
      // No subcommand given: commander's help, on stderr so that stdout stays empty or JSON.
      if (e.code === 'commander.help') {
        io.stderr(commanderErr);
        return 0;
      }
      const message = e.message.replace(/^error: /, '');
      reporter.fail(new VaultgateError('USAGE', message, { hint: 'Run `vaultgate --help` or `vaultgate <command> --help`.' }));
      return exitCode;
    }
    reporter.fail(e);
  }
  return exitCode;
}

/**
 * For the verbs whose last argument is free text (`search`, `context`): a word
 * like `-draft` is the query language's exclusion, not an unknown option, and
 * `search -- -draft --vault V` still means `--vault V`. So the verb's own flags
 * (and the global ones) are taken out wherever they stand, and every other word
 * goes after a `--`, where commander reads it as text.
 */
export function textArgsLast(argv: string[], operations: readonly Operation<any, any>[]): string[] {
  const i = verbIndex(argv);
  const op = operations.find((o) => o.command === argv[i] && (o.params as readonly Param[]).some((p) => p.positional === 'variadic' && p.type === 'string'));
  if (!op) return argv;
  const flags = new Map(GLOBAL_FLAGS);
  for (const p of op.params as readonly Param[]) if (!p.positional && !p.mcpOnly) flags.set(`--${flagName(p)}`, p.type !== 'boolean');
  const options: string[] = [];
  const words: string[] = [];
  for (let j = i + 1; j < argv.length; j++) {
    const token = argv[j]!;
    if (token === '--') continue;
    const name = token.split('=')[0]!;
    if (flags.has(name)) {
      options.push(token);
      if (flags.get(name) && !token.includes('=') && j + 1 < argv.length) options.push(argv[++j]!);
    } else {
      words.push(token);
    }
  }
  return [...argv.slice(0, i + 1), ...options, '--', ...words];
}
