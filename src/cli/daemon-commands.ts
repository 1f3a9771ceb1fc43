import { Command, Option } from 'commander';
import type { Reporter } from './command-kit.js';
import { intFlag } from './int-flag.js';
import type { runCli as RunCli } from './run-cli.js';
import { GROUP_HEADINGS } from './register-ops.js';

/** Default of `--walk-interval`: the watcher's safety net, in seconds. */
const DEFAULT_WALK_INTERVAL_S = 600;

/**
 * `vaultgate daemon start|stop|status|run`: process management for the CLI's
 * warm path (src/cli/daemon/). Not operations of the table: they manage a
 * process on this machine and mean nothing to an MCP client. Their modules are
 * imported on first use, like every verb's core.
 */
export function registerDaemonCommands(program: Command, reporter: Reporter, runCli: typeof RunCli): void {
  const daemon = program
    .command('daemon')
    .summary('A long-lived process per vault that answers read commands warm (opt-in)')
    .description(
      'A long-lived process per vault that answers read commands warm (opt-in).\n\n' +
        'While it runs, `search`, `context`, `note`, `resolve`, `links`, `backlinks` and `check` for that vault are answered by it ' +
        '(the same output, without loading vaultgate, opening the index and walking the vault each time); a file watcher tells it what changed. ' +
        'Any problem and the command answers itself as before. Writes never go through it.',
    )
    .helpGroup(GROUP_HEADINGS.admin);
  daemon.addHelpText('after', '\nExamples:\n  $ vaultgate daemon start\n  $ vaultgate daemon status --json\n  $ vaultgate daemon stop\n');
  registerStart(daemon, reporter);
  registerStop(daemon, reporter);
  registerStatus(daemon, reporter);
  registerRun(daemon, reporter, runCli);
}

const freshnessOption = () => new Option('--freshness <mode>', 'watch (a file watcher says what changed) or walk (stat every note before each read)').choices(['watch', 'walk']).default('watch');
const walkIntervalOption = () =>
  new Option('--walk-interval <seconds>', 'walk the whole vault at least this often anyway (0: before every read; lower it on network filesystems)').default(String(DEFAULT_WALK_INTERVAL_S));
const vaultOf = (cmd: Command) => (cmd.optsWithGlobals() as { vault?: string }).vault;
const control = () => import('./daemon/control.js');

/** A subcommand's action: its JSON and text reported, a failure reported as every verb's is. */
function act(reporter: Reporter, run: (cmd: Command) => Promise<{ json: Record<string, unknown>; text: string }>) {
  return async (...params: unknown[]) => {
    const cmd = params[params.length - 1] as Command;
    try {
      const r = await run(cmd);
      reporter.report(r);
    } catch (e) {
      reporter.fail(e);
    }
  };
}

function registerStart(daemon: Command, reporter: Reporter): void {
  daemon
    .command('start')
    .summary('Start the vault\'s daemon in the background (a no-op when it runs)')
    .description('Start the vault\'s daemon in the background and wait until it answers. A daemon of another vaultgate build is replaced, a stale socket (a killed daemon) too.')
    .addOption(freshnessOption())
    .addOption(walkIntervalOption())
    .action(
      act(reporter, async (cmd) => {
        const o = cmd.opts() as { freshness: 'watch' | 'walk'; walkInterval: string };
        const { target, startDaemon } = await control();
        const t = target(vaultOf(cmd), reporter.io.env, reporter.io.cwd);
        const json = await startDaemon(t, { env: reporter.io.env, cwd: reporter.io.cwd, freshness: o.freshness, walkIntervalS: seconds(o.walkInterval) });
        return { json, text: json.started ? `started: pid ${json.pid} serves ${json.vault}` : `already running: pid ${json.pid} serves ${json.vault}` };
      }),
    );
}

function registerStop(daemon: Command, reporter: Reporter): void {
  daemon
    .command('stop')
    .summary('Stop the vault\'s daemon')
    .action(
      act(reporter, async (cmd) => {
        const { target, stopDaemon } = await control();
        const json = await stopDaemon(target(vaultOf(cmd), reporter.io.env, reporter.io.cwd));
        return { json, text: json.stopped ? `stopped: pid ${json.pid}` : `no daemon was running for ${json.vault}${json.stale_socket_removed ? ' (a stale socket was removed)' : ''}` };
      }),
    );
}

function registerStatus(daemon: Command, reporter: Reporter): void {
  daemon
    .command('status')
    .summary('Whether the vault\'s daemon runs: pid, socket, uptime, freshness')
    .action(
      act(reporter, async (cmd) => {
        const { target, daemonStatus } = await control();
        const json = await daemonStatus(target(vaultOf(cmd), reporter.io.env, reporter.io.cwd));
        return { json, text: statusText(json) };
      }),
    );
}

function registerRun(daemon: Command, reporter: Reporter, runCli: typeof RunCli): void {
  daemon
    .command('run')
    .summary('Run the daemon in the foreground (what `start` detaches)')
    .addOption(freshnessOption())
    .addOption(walkIntervalOption())
    .action(
      act(reporter, async (cmd) => {
        const o = cmd.opts() as { freshness: 'watch' | 'walk'; walkInterval: string };
        const { serveDaemon } = await import('./daemon/server.js');
        const { reason } = await serveDaemon({
          vault: vaultOf(cmd),
          env: reporter.io.env,
          cwd: reporter.io.cwd,
          freshness: o.freshness,
          walkIntervalMs: seconds(o.walkInterval) * 1000,
          log: (line) => reporter.io.stderr(`${new Date().toISOString()} ${line}\n`),
          runCli,
        });
        return { json: { stopped: reason }, text: `stopped: ${reason}` };
      }),
    );
}

/** `--walk-interval`, in seconds: a whole number from 0 to a day. */
const WALK_INTERVAL = { name: 'walk_interval', type: 'int', min: 0, max: 86_400, description: 'walk the whole vault at least this often' } as const;

function seconds(value: string): number {
  return intFlag(WALK_INTERVAL, value);
}

function statusText(s: Record<string, unknown>): string {
  if (!s.running) return `no daemon for ${s.vault}${s.stale_socket ? ' (a stale socket is left: `daemon start` replaces it)' : ''}`;
  if (!s.responding) return `a daemon (pid ${s.pid ?? 'unknown'}) holds ${s.socket} but does not answer: ${s.why}`;
  const f = s.freshness as { mode?: string; watcher?: { state?: string } | null; reason?: string | null } | undefined;
  const fresh = f?.mode === 'watch' ? `watch (${f.watcher?.state ?? 'starting'})` : `walk${f?.reason ? ` (${f.reason})` : ''}`;
  const e = s.embeddings as { state?: string; provider?: string | null; pending_notes?: number | null; last_error?: string | null } | undefined;
  const embed = !e || e.state === 'off' ? '' : `\n  embeddings (${e.provider}): ${e.state}${e.pending_notes ? `, ${e.pending_notes} notes to embed` : ''}${e.last_error ? ` (${e.last_error})` : ''}`;
  return `pid ${s.pid} serves ${s.vault}\n  socket ${s.socket}\n  up ${s.uptime_s} s, ${s.requests} commands answered, freshness: ${fresh}${embed}`;
}
