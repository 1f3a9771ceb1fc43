import { spawn } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { runCli as runCliInProcess } from '../../src/cli/run-cli.js';

export const REPO_ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
/** The compiled CLI as installed (package.json `bin`): `npm test` builds first, so end-to-end tests run the real binary. */
export const CLI_BIN = path.join(REPO_ROOT, 'dist/cli/main.cjs');

export interface CliRun {
  exitCode: number;
  stdout: string;
  stderr: string;
  /** stdout parsed as JSON when it is JSON, else undefined. */
  json: any;
}

function parse(stdout: string): any {
  try {
    return JSON.parse(stdout);
  } catch {
    return undefined;
  }
}

/** Run the CLI in this process (fast; same code path as the binary after argv parsing). */
export async function runCli(
  args: string[],
  opts: { vault?: string; home?: string; env?: Record<string, string>; cwd?: string; tty?: boolean; confirm?: (question: string) => boolean | null } = {},
): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const env: Record<string, string | undefined> = { ...process.env, ...opts.env };
  if (opts.home) env.VAULTGATE_HOME = opts.home;
  delete env.VAULTGATE_VAULT;
  if (opts.env?.VAULTGATE_VAULT) env.VAULTGATE_VAULT = opts.env.VAULTGATE_VAULT;
  const argv = opts.vault ? ['--vault', opts.vault, ...args] : args;
  const exitCode = await runCliInProcess(argv, {
    stdout: (s) => (stdout += s),
    stderr: (s) => (stderr += s),
    env,
    isTTY: opts.tty ?? false,
    stderrIsTTY: false,
    cwd: opts.cwd ?? process.cwd(),
    // The person at a terminal (`--consent`), scripted; the real /dev/tty prompt is tested through tmux.
    ...(opts.confirm ? { confirm: opts.confirm } : {}),
  });
  return { exitCode, stdout, stderr, json: parse(stdout) };
}

/** Run the real compiled CLI as a child process. */
export function runCliProcess(
  args: string[],
  opts: { vault?: string; home?: string; env?: Record<string, string>; cwd?: string; input?: string; timeoutMs?: number } = {},
): Promise<CliRun> {
  const env: Record<string, string | undefined> = { ...process.env, ...opts.env };
  if (opts.home) env.VAULTGATE_HOME = opts.home;
  const argv = opts.vault ? ['--vault', opts.vault, ...args] : args;
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...argv], {
      env: env as NodeJS.ProcessEnv,
      cwd: opts.cwd ?? process.cwd(),
      stdio: ['pipe', 'pipe', 'pipe'],
      timeout: opts.timeoutMs ?? 120_000,
    });
    let stdout = '';
    let stderr = '';
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d));
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
    child.on('error', reject);
    child.on('close', (code, signal) =>
      resolve({ exitCode: code ?? (signal ? 128 : 1), stdout, stderr, json: parse(stdout) }),
    );
    child.stdin.end(opts.input ?? '');
  });
}
