import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { format } from 'node:util';
import { Command, Option } from 'commander';
import { errorReport } from '../ops/index.js';
import { visibleLines } from '../visible-text.js';
import type { Reporter } from './command-kit.js';
import { intFlag } from './int-flag.js';

/**
 * The verbs that start another face: `vaultgate mcp` (MCP stdio server),
 * `vaultgate serve` (web inbox) and `vaultgate inbox` (terminal inbox). Not
 * operations of the table — they do not return a document, they serve the
 * table's operations until stopped — so they are registered here; all their
 * logic lives in `src/mcp/`, `src/inbox/web/` and `src/inbox/terminal/`,
 * loaded only when the verb runs.
 */

const HELP_GROUP = 'Agents and inboxes:';
/** The compiled CLI as installed (package.json `bin`), for `--print-config` (absolute: desktop apps start servers without the shell's PATH). */
const CLI_MAIN = path.join(path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..'), 'dist/cli/main.cjs');

/** The face verbs' whole-number flags, as params: read by {@link intFlag} as every operation's flags are. */
const MAX_OUTPUT_CHARS = { name: 'max_output_chars', type: 'int', min: 1000, max: 10_000_000, description: 'most characters of a tool result' } as const;
const PORT = { name: 'port', type: 'int', min: 0, max: 65535, description: 'port to listen on' } as const;

/** A failure before the protocol starts: stderr only (stdout belongs to the MCP client). */
function failOnStderr(reporter: Reporter, e: unknown): void {
  const { error, exitCode, internal } = errorReport(e);
  if (internal) reporter.io.stderr(((e as Error)?.stack ?? String(e)) + '\n');
  reporter.io.stderr(visibleLines(`error [${error.code}]: ${error.message}${error.hint ? `\nhint: ${error.hint}` : ''}`) + '\n');
  reporter.exit(exitCode);
}

export function registerFaceVerbs(program: Command, reporter: Reporter): void {
  registerMcpVerb(program, reporter);
  registerServeVerb(program, reporter);
  registerInboxVerb(program, reporter);
}

/** `vaultgate mcp`: the MCP stdio server (or, with --print-config, the JSON that registers it). */
function registerMcpVerb(program: Command, reporter: Reporter): void {
  program
    .command('mcp')
    .summary('Serve this vault to MCP clients over stdio (Claude Code, Claude Desktop, Cursor, VS Code)')
    .description(
      'Serve this vault to MCP clients over stdio (one vault per server).\n\n' +
        'Tools are the operations with an MCP name (search, context, note, resolve_link, links, backlinks, check_vault, propose, review, list_proposals, …), ' +
        'with the same arguments (snake_case), the same JSON (structuredContent, and the same JSON as the text block) and the same errors as the CLI. No tool writes into the vault; ' +
        '`apply` is offered only with --allow-apply: the MCP client’s approval prompt for each call is then the only person in the loop (the review hash it needs comes from a `review` call the agent can make itself). Results stay under --max-output-chars (each of the two representations) and say in the data when they were cut. ' +
        'Resources: vaultgate://note/{path}, vaultgate://proposal/{id}. Prompt: answer_from_vault. Ends when stdin closes.',
    )
    .helpGroup(HELP_GROUP)
    .option('--allow-apply', 'also offer the `apply` tool: the client’s approval prompt is then the only person in the loop')
    .addOption(new Option('--max-output-chars <n>', 'most characters of a tool result: its structuredContent JSON and its text block, each').default('20000', '20000'))
    .addOption(new Option('--print-config <client>', 'print the JSON that registers this server with a client, and exit').choices(['claude-desktop', 'cursor', 'vscode']))
    .addHelpText('after', '\nExamples:\n  $ vaultgate mcp --vault ~/Notes\n  $ vaultgate mcp --print-config claude-desktop --vault ~/Notes\n  $ claude mcp add vaultgate -- vaultgate mcp --vault ~/Notes\n')
    .action(async (_opts: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals() as { vault?: string; allowApply?: boolean; maxOutputChars: string; printConfig?: string };
      try {
        const maxOutputChars = intFlag(MAX_OUTPUT_CHARS, o.maxOutputChars);
        if (o.printConfig) {
          const { mcpClientConfig } = await import('../mcp/print-config.js');
          const { selectVault } = await import('../vault/index.js');
          const vault = selectVault(o.vault, reporter.io.env, reporter.io.cwd).root;
          const r = mcpClientConfig(o.printConfig, { vault, node: process.execPath, cli: CLI_MAIN, env: reporter.io.env, allowApply: Boolean(o.allowApply) });
          reporter.report({ json: r, document: JSON.stringify(r.config, null, 2), text: JSON.stringify(r.config, null, 2) });
          return;
        }
        // stdout is the protocol channel from here on: a stray log line from anywhere goes to stderr.
        for (const level of ['log', 'info', 'debug', 'warn'] as const) console[level] = (...args: unknown[]) => void process.stderr.write(format(...args) + '\n');
        const { runMcpServer } = await import('../mcp/index.js');
        const code = await runMcpServer({
          vault: o.vault,
          env: reporter.io.env,
          cwd: reporter.io.cwd,
          allowApply: Boolean(o.allowApply),
          maxOutputChars,
          stdin: process.stdin,
          stdout: process.stdout,
          log: (line) => reporter.io.stderr(line + '\n'),
        });
        reporter.exit(code);
      } catch (e) {
        if (o.printConfig) reporter.fail(e);
        else failOnStderr(reporter, e);
      }
    });
}

/** `vaultgate serve`: the web inbox, until interrupted. */
function registerServeVerb(program: Command, reporter: Reporter): void {
  program
    .command('serve')
    .summary('Open the web inbox: review, approve, decline and roll back proposals in a browser (loopback only)')
    .description(
      'Serve the web inbox for this vault on 127.0.0.1. The printed URL carries a random token; every API call needs it ' +
        '(Authorization: Bearer TOKEN, or the session cookie the page sets from it). Piped, stdout gets one JSON line {"url","token","port"}. ' +
        'Runs until interrupted (Ctrl-C).',
    )
    .helpGroup(HELP_GROUP)
    .addOption(new Option('--port <n>', 'port to listen on; 0 picks a free one').default('0', '0'))
    .option('--host <address>', 'address to listen on (default 127.0.0.1); any other address is reachable from the network and is warned about')
    .addHelpText('after', '\nExamples:\n  $ vaultgate serve --vault ~/Notes\n  $ vaultgate serve --port 8765 --json\n')
    .action(async (_opts: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals() as { vault?: string; port: string; host?: string; json?: boolean };
      try {
        const port = intFlag(PORT, o.port);
        const { startWebInbox } = await import('../inbox/web/index.js');
        const inbox = await startWebInbox({ vault: o.vault, env: reporter.io.env, cwd: reporter.io.cwd, port, ...(o.host ? { host: o.host } : {}), log: (line) => reporter.io.stderr(line + '\n') });
        if (!reporter.io.isTTY || o.json) reporter.io.stdout(JSON.stringify({ url: inbox.url, token: inbox.token, port: inbox.port }) + '\n');
        else reporter.io.stdout(`vaultgate inbox for ${inbox.vault}\n  ${inbox.url}\n(open it in a browser; Ctrl-C stops the server)\n`);
        await new Promise<void>((resolve) => {
          process.once('SIGINT', resolve);
          process.once('SIGTERM', resolve);
        });
        await inbox.close();
        reporter.exit(0);
      } catch (e) {
        reporter.fail(e);
      }
    });
}

/** `vaultgate inbox`: the full-screen terminal inbox. */
function registerInboxVerb(program: Command, reporter: Reporter): void {
  program
    .command('inbox')
    .summary('Work through the proposals in a full-screen terminal: diffs, checks, apply, decline, rollback, history')
    .description(
      'A full-screen terminal inbox over the same operations the CLI has: the open proposals (pending, blocked) with their checks, ' +
        'the whole coloured diff of the selected one, `a` apply (reviews it again, shows the review, asks y/n; y applies exactly that review), ' +
        '`x` decline with a reason, `r` review again, `u` roll back an applied one, `tab` the audit log, `/` filter, `?` every key, `q` quit. ' +
        'Needs a terminal; scripts use `proposals`, `review`, `apply`, `decline`. Acts as `operator` in the log.',
    )
    .helpGroup(HELP_GROUP)
    .addHelpText('after', '\nExamples:\n  $ vaultgate inbox\n  $ vaultgate --vault ~/Notes inbox\n\nKeys: docs/proposals.md ("The terminal inbox")\n')
    .action(async (_opts: unknown, cmd: Command) => {
      const o = cmd.optsWithGlobals() as { vault?: string };
      try {
        const { requireTerminal, runTerminalInbox } = await import('../inbox/terminal/index.js');
        requireTerminal(Boolean(process.stdin.isTTY), reporter.io.isTTY);
        // the terminal check comes before ink and react are loaded (runTerminalInbox imports them)
        reporter.exit(await runTerminalInbox({ vault: o.vault, env: reporter.io.env, cwd: reporter.io.cwd, stdin: process.stdin, stdout: process.stdout, stderr: reporter.io.stderr }));
      } catch (e) {
        reporter.fail(e);
      }
    });
}
