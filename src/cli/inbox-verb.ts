import type { Command } from 'commander';
import type { Reporter } from './command-kit.js';

/**
 * `vaultgate inbox`: starts the terminal inbox (src/inbox/terminal/). Not an
 * operation of the table — it returns no document; it runs the table's proposal
 * operations until the person quits — so it is registered here. Nothing is
 * loaded until it runs, and the terminal check comes before ink is loaded.
 */
export function registerInboxVerb(program: Command, reporter: Reporter): void {
  program
    .command('inbox')
    .summary('Work through the proposals in a full-screen terminal: diffs, checks, apply, decline, rollback, history')
    .description(
      'A full-screen terminal inbox over the same operations the CLI has: the open proposals (pending, blocked) with their checks, ' +
        'the whole coloured diff of the selected one, `a` apply (reviews it again, shows the review, asks y/n; y applies exactly that review), ' +
        '`x` decline with a reason, `r` review again, `u` roll back an applied one, `tab` the audit log, `/` filter, `?` every key, `q` quit. ' +
        'Needs a terminal; scripts use `proposals`, `review`, `apply`, `decline`. Acts as `operator` in the log.',
    )
    .helpGroup('Agents and inboxes:')
    .addHelpText('after', '\nExamples:\n  $ vaultgate inbox\n  $ vaultgate --vault ~/Notes inbox\n\nKeys: docs/proposals.md ("The terminal inbox")\n')
    .action(async (_opts: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals() as { vault?: string };
      try {
        const { requireTerminal, runTerminalInbox } = await import('../inbox/terminal/index.js');
        requireTerminal(Boolean(process.stdin.isTTY), reporter.io.isTTY);
        await runTerminalInbox({ vault: o.vault, env: reporter.io.env, cwd: reporter.io.cwd, stdin: process.stdin, stdout: process.stdout, stderr: reporter.io.stderr });
      } catch (e) {
        reporter.fail(e);
      }
    });
}
