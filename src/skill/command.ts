import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { PACKAGE_ROOT } from './agents-doc.js';
import { sha256 } from './files.js';

/**
 * The command the installed skill tells an agent to run. An agent's shell is a
 * fresh, non-interactive one: it inherits PATH but none of the person's aliases
 * or shell functions, so `alias vaultgate=…` in the person's shell never reaches
 * it (issue 21: the skill said `vaultgate …` and every command failed). So
 * `skill install` asks a fresh shell: when `vaultgate --version` runs there and
 * is this version, the skill says `vaultgate`; otherwise it writes a shim under
 * the data root that runs this very build by absolute paths, and the skill (and
 * the `--guard` rules) use the shim's absolute path instead.
 */

export interface AgentCommand {
  /** What every command in SKILL.md starts with: `vaultgate`, or the shim's absolute path (quoted for sh when it must be). */
  run: string;
  /** `path`: `vaultgate` from a fresh shell's PATH runs this version; `shim`: the skill runs the shim. */
  via: 'path' | 'shim';
  /** The shim's absolute path (via `shim`), else null. */
  shim: string | null;
  /** What the shim runs: `node` and the CLI bundle, by absolute path (via `shim`), else null. */
  target: string | null;
  /** What `command -v vaultgate` found in a fresh shell, or null. */
  on_path: string | null;
  /** Why the shim was needed (via `shim`): not on PATH, failed, or another version. */
  reason: string | null;
  /** Whether `<run> --version` was run from a fresh shell and printed this version (false in a dry run that would write the shim). */
  checked: boolean;
}

type Env = Record<string, string | undefined>;

/** A POSIX-shell word for `s`: bare when it needs no quoting. */
export function shellWord(s: string): string {
  return /^[A-Za-z0-9_./:@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}

/** The environment a fresh agent shell has, near enough: PATH and HOME, and where vaultgate keeps its data. */
function freshEnv(env: Env, home: string): Env {
  const out: Env = { PATH: env.PATH || '/usr/local/bin:/usr/bin:/bin', HOME: home };
  for (const k of ['VAULTGATE_HOME', 'XDG_DATA_HOME', 'XDG_CACHE_HOME', 'XDG_CONFIG_HOME', 'XDG_STATE_HOME']) if (env[k]) out[k] = env[k];
  return out;
}

function sh(script: string, env: Env): { status: number | null; stdout: string; stderr: string } {
  const r = spawnSync('/bin/sh', ['-c', script], { env: env as NodeJS.ProcessEnv, encoding: 'utf8', timeout: 60_000, stdio: ['ignore', 'pipe', 'pipe'] });
  return { status: r.status, stdout: (r.stdout ?? '').trim(), stderr: (r.stderr ?? '').trim() || (r.error ? r.error.message : '') };
}

/** Run `<word> --version` from a fresh shell: null when it printed `version`, else what went wrong. */
export function versionProblem(word: string, version: string, env: Env, home: string): string | null {
  const r = sh(`${word} --version`, freshEnv(env, home));
  if (r.status !== 0) return `\`${word} --version\` failed (exit ${r.status ?? 'killed'}${r.stderr ? `: ${r.stderr.split('\n')[0]}` : ''})`;
  if (r.stdout !== version) return `\`${word} --version\` printed ${JSON.stringify(r.stdout.slice(0, 80))}, not this version ${version}`;
  return null;
}

/** Where the shim goes: beside the skill under the data root (the folder `skill uninstall` empties). */
export function shimPath(dataRoot: string): string {
  return path.join(dataRoot, 'skill', 'bin', 'vaultgate');
}

/** This build's CLI bundle, which the shim runs. */
function cliBundle(): string {
  const file = path.join(PACKAGE_ROOT, 'dist', 'cli', 'main.cjs');
  if (!fs.existsSync(file)) {
    throw new VaultgateError('NOT_FOUND', `vaultgate is not on PATH and its CLI bundle ${file} does not exist, so there is nothing an agent could run`, {
      path: file,
      hint: 'Run `npm run build` in the vaultgate checkout (or `npm link` to put vaultgate on PATH), then `vaultgate skill install` again.',
    });
  }
  return file;
}

export function shimText(node: string, bundle: string): string {
  return [
    '#!/bin/sh',
    '# Written by `vaultgate skill install`: `vaultgate` was not on the PATH an agent',
    "# shell gets, so the skill runs this. `npm link` and a new `skill install` retire it.",
    `exec ${shellWord(node)} ${shellWord(bundle)} "$@"`,
    '',
  ].join('\n');
}

/**
 * Decide the command (no writes): `vaultgate` when a fresh shell runs this
 * version from PATH, else the shim (written by {@link writeShim}).
 */
export function agentCommand(opts: { env: Env; home: string; dataRoot: string; version: string }): AgentCommand & { shimText: string | null } {
  const env = freshEnv(opts.env, opts.home);
  const found = sh('command -v vaultgate', env);
  const onPath = found.status === 0 && found.stdout ? found.stdout.split('\n')[0]! : null;
  // A shim of ours found on PATH (someone put the data root's bin on PATH) is as good as vaultgate.
  const problem = onPath ? versionProblem('vaultgate', opts.version, opts.env, opts.home) : 'vaultgate is not on the PATH of a fresh shell (an alias or shell function does not reach an agent)';
  if (!problem) return { run: 'vaultgate', via: 'path', shim: null, target: null, on_path: onPath, reason: null, checked: true, shimText: null };
  const shim = shimPath(opts.dataRoot);
  const bundle = cliBundle();
  return {
    run: shellWord(shim),
    via: 'shim',
    shim,
    target: `${process.execPath} ${bundle}`,
    on_path: onPath,
    reason: problem,
    checked: false,
    shimText: shimText(process.execPath, bundle),
  };
}

/** The shim's bytes are what `text` says: written (0755, atomically) when not; the hash recorded for uninstall. */
export function shimSha(text: string): string {
  return sha256(text);
}
