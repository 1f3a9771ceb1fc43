/**
 * Running the compiled CLI as another (unprivileged) user, for tests of what
 * the kernel refuses to a non-root user. That user must be able to load the
 * build: a checkout inside a folder others cannot enter (a `mktemp -d` folder,
 * a 0700 home) holds a `dist/cli/main.cjs` it cannot read, and the test would
 * fail for that reason alone (issue 20). {@link cliReadableBy} then hands out a
 * copy of the build in a folder the user can enter, or says why there is none,
 * so the test can skip with that reason.
 */
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { CLI_BIN } from './run-cli.js';
import { tempDir } from './temp-vault.js';

/** The `nobody` user and group. */
export const NOBODY = 65534;
/** Root, with `setpriv` to become another user. */
export const CAN_DROP_ROOT = process.getuid?.() === 0 && spawnSync('setpriv', ['--version']).status === 0;

export interface RunAs {
  exitCode: number;
  stdout: string;
  stderr: string;
  json: any;
  signal: NodeJS.Signals | null;
}

/** Run node with `args` as `uid` (null: as this process's user). */
export function runAs(uid: number | null, args: string[], env: Record<string, string> = {}, input?: string): RunAs {
  const argv = uid === null ? [process.execPath, ...args] : ['setpriv', `--reuid=${uid}`, `--regid=${uid}`, '--clear-groups', process.execPath, ...args];
  const r = spawnSync(argv[0]!, argv.slice(1), { env: { ...process.env, ...env }, encoding: 'utf8', input: input ?? '', timeout: 60_000, cwd: '/' });
  let json: any;
  try {
    json = JSON.parse(r.stdout);
  } catch {
    json = undefined;
  }
  return { exitCode: r.status ?? 128, stdout: r.stdout, stderr: r.stderr, json, signal: r.signal };
}

const copies = new Map<string, string>();

/**
 * A CLI entry `uid` can load: `bin` itself when it can, else a copy of its build
 * (`dist/` and package.json; node_modules hard-linked when on the same disk, so
 * nothing large is copied) in a temporary folder everyone may enter. `skip` says
 * why neither works.
 */
export function cliReadableBy(uid: number, bin: string = CLI_BIN): { bin: string } | { skip: string } {
  const canRun = (b: string) => runAs(uid, [b, '--version']).exitCode === 0;
  if (canRun(bin)) return { bin };
  const key = `${uid}:${bin}`;
  const known = copies.get(key);
  if (known) return { bin: known };
  const repo = path.resolve(path.dirname(bin), '../..');
  const dir = tempDir('vaultgate-build-');
  fs.chmodSync(dir, 0o755);
  fs.cpSync(path.join(repo, 'dist'), path.join(dir, 'dist'), { recursive: true });
  fs.copyFileSync(path.join(repo, 'package.json'), path.join(dir, 'package.json'));
  if (fs.existsSync(path.join(repo, 'node_modules'))) spawnSync('cp', ['-al', path.join(repo, 'node_modules'), path.join(dir, 'node_modules')]);
  spawnSync('chmod', ['-R', 'a+rX', dir]);
  const copy = path.join(dir, path.relative(repo, bin));
  if (!canRun(copy)) return { skip: `user ${uid} can load neither ${bin} nor a copy of the build in ${dir}` };
  copies.set(key, copy);
  return { bin: copy };
}
