import { Command, CommanderError } from 'commander';
import { exitCodeOf, isResourceLimit, isVaultgateError, resourceLimitError, VaultgateError } from '../errors.js';
import type { CliIO, CommandResult, Reporter } from './command-kit.js';
import { loadCommands } from './commands/index.js';

export const VERSION = '0.1.0';

/**
 * Run one vaultgate command line and return its exit code. The only place that
 * decides JSON versus text and maps errors to exit codes (DESIGN §6): JSON when
 * stdout is not a terminal or `--json` is given; errors are
 * `{"ok":false,"error":{code,message,hint?}}` on stdout.
 */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  let exitCode = 0;
  const explicitJson = () => argv.includes('--json');
  const wantsJson = () => !io.isTTY || explicitJson();
  const writeJson = (body: unknown) => io.stdout(JSON.stringify(body, null, wantsJson() && io.isTTY ? 2 : 0) + '\n');

  const reporter: Reporter = {
    io,
    report(result: CommandResult) {
      exitCode = result.exitCode ?? 0;
      if (result.document !== undefined && !explicitJson()) io.stdout(result.document.endsWith('\n') ? result.document : result.document + '\n');
      else if (wantsJson()) writeJson({ ok: true, ...result.json });
      else io.stdout((result.text ?? JSON.stringify(result.json, null, 2)) + '\n');
    },
    fail(thrown: unknown) {
      // out of file descriptors (a module that could not load, a file that could not open): the environment, not a bug
      const error = !isVaultgateError(thrown) && isResourceLimit(thrown) ? resourceLimitError(thrown, 'vaultgate could not open a file', false) : thrown;
      exitCode = exitCodeOf(error);
      const body = isVaultgateError(error)
        ? error.toJSON()
        : { code: 'INTERNAL', message: `internal error: ${(error as Error)?.message ?? String(error)}`, hint: 'This is a bug in vaultgate; please report it with the command you ran.' };
      if (!isVaultgateError(error)) io.stderr(((error as Error)?.stack ?? String(error)) + '\n');
      if (wantsJson()) writeJson({ ok: false, error: body });
      else io.stderr(`error [${body.code}]: ${body.message}${body.hint ? `\nhint: ${body.hint}` : ''}\n`);
    },
  };

  const program = new Command('vaultgate')
    .description('The one door between AI agents and an Obsidian vault: cited reads, reviewed writes, recoverable transactions.')
    .version(VERSION)
    .option('--vault <path|name>', 'the vault (else VAULTGATE_VAULT, else default_vault in the machine config)')
    .option('--json', 'print JSON even on a terminal')
    .showHelpAfterError(false)
    .exitOverride()
    .configureOutput({
      writeOut: (s) => io.stdout(s),
      // commander's own error text is replaced by our typed error below
      writeErr: () => {},
    });
  program.enablePositionalOptions(false);

  for (const register of await loadCommands()) register(program, reporter);
  // Every subcommand reports usage errors the same way and exits through us.
  for (const cmd of program.commands) {
    cmd.exitOverride().configureOutput({ writeOut: (s) => io.stdout(s), writeErr: () => {} });
    for (const sub of cmd.commands) sub.exitOverride().configureOutput({ writeOut: (s) => io.stdout(s), writeErr: () => {} });
  }

  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (e) {
    if (e instanceof CommanderError) {
      if (e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.code === 'commander.help') return 0;
      const message = e.message.replace(/^error: /, '');
      reporter.fail(
        new VaultgateError('USAGE', message, { hint: 'Run `vaultgate --help` or `vaultgate <command> --help`.' }),
      );
      return exitCode;
    }
    reporter.fail(e);
  }
  return exitCode;
}
