#!/usr/bin/env node
/**
 * The `vaultgate` binary, bundled into one file (dist/cli/main.cjs, the bin, and
 * main.js): it asks the vault's daemon to answer first (src/cli/daemon/client.ts,
 * whose every failure, running out of file descriptors included, means "answer
 * it yourself") and only then loads the CLI. That load is guarded: with very few
 * file descriptors (`ulimit -n` in the 20s) loading the CLI's modules can itself
 * fail with EMFILE, and that must still end as a typed error (RESOURCE_LIMIT,
 * exit 3), not a stack trace and exit 1; the fallback needs no module at all.
 * No top-level await: the bundle is also built as CommonJS (scripts/bundle.mjs).
 */
import fs from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { requireWithCodeCache, type CachedBundle } from './code-cache.js';
import { verbOf } from './argv.js';
import { FORWARDED_VERBS, forwardToDaemon } from './daemon/client.js';
import { dataRoots } from '../vault/dirs.js';
import { BUILD, VERSION } from '../version.js';
import { ttyConfirm } from './tty-confirm.js';

// A closed pipe (e.g. `vaultgate search x | head -1`) is not an error worth a stack trace.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

/**
 * A large answer (a 12 MB proposal's review is ~50 MB of JSON) is written in
 * 64 KB pieces, but on a pipe Node queues whatever the reader has not taken
 * yet: the whole document was held in memory again, as strings, until the
 * reader caught up (issue 20 §8). From the first large piece on, writes to a
 * pipe block until the pipe takes them (files and terminals are written
 * synchronously already). Short lines never switch, so a command that prints a
 * line and goes on serving (`serve`) is never stalled by a reader that waits.
 */
const LARGE_WRITE = 64 * 1024;
let stdoutBlocks = false;
function writeStdout(s: string): void {
  if (!stdoutBlocks && s.length >= LARGE_WRITE) {
    stdoutBlocks = true;
    (process.stdout as unknown as { _handle?: { setBlocking?: (on: boolean) => unknown } })._handle?.setBlocking?.(true);
  }
  process.stdout.write(s);
}

const argv = process.argv.slice(2);
const io = {
  stdout: writeStdout,
  stderr: (s: string) => void process.stderr.write(s),
  env: process.env,
  isTTY: Boolean(process.stdout.isTTY),
  stderrIsTTY: Boolean(process.stderr.isTTY),
  cwd: process.cwd(),
  // The person's yes for `--consent` / `consent approve`: only here, in the CLI's own process (never the daemon's).
  confirm: ttyConfirm,
};

/**
 * Besides the read verbs: `index`, and the write verbs an agent or a person runs
 * one after another, each a new process (a proposal's propose, review and apply;
 * the engine's tx and undo). Compiling their modules from source cost ~60 ms of
 * CPU a command (a 12 MB proposal's `tx inspect`: 400 → 339 ms, median of 7).
 */
const CACHED_VERBS: ReadonlySet<string> = new Set(['index', 'propose', 'review', 'apply', 'show', 'tx', 'undo']);

/**
 * The read verbs and {@link CACHED_VERBS} run a CommonJS bundle of the CLI
 * through V8's code cache (code-cache.ts): dist/cli/query.cjs, the read verbs
 * alone (run-read-cli.ts), for a read verb unless help is asked for (the
 * whole CLI's help lists every verb); dist/cli/read.cjs, the whole CLI, for
 * the rest. Every other verb imports the ES module build (`./run-cli.js`,
 * bundled as dist/cli/cli.js and its chunks), whose modules the terminal inbox
 * needs (ink is an ES module only). Null when this verb does not use a bundle,
 * or when there is none (running from tsc's output).
 */
function readBundle(): CachedBundle | null {
  const verb = verbOf(argv);
  // No verb (--version, --help, a bare `vaultgate`) is the read path's start-up too: the same bundle and cache.
  if (verb !== null && !FORWARDED_VERBS.has(verb) && !CACHED_VERBS.has(verb)) return null;
  const queryOnly = verb !== null && FORWARDED_VERBS.has(verb) && !argv.some((a) => a === 'help' || a === '--help' || a === '-h');
  const file = fileURLToPath(new URL(queryOnly ? './query.cjs' : './read.cjs', import.meta.url));
  const st = fs.statSync(file, { throwIfNoEntry: false });
  if (!st) return null;
  const bundleKey = `${BUILD}-${st.size}-${Math.round(st.mtimeMs)}`;
  let cacheFile: string | null = null;
  try {
    // V8 checks a cache against the source's length, not its bytes: the name
    // carries the build and the bundle's size and mtime, so an edited bundle
    // never runs with another text's code. One cache per verb: each holds the
    // functions its own runs compiled (a cache written by `index` has none of
    // the ranking's).
    cacheFile = path.join(dataRoots(io.env).cache, 'code-cache', `${bundleKey}-${verb ?? 'no-verb'}.bin`);
  } catch {
    // an unusable VAULTGATE_HOME: the CLI reports it
  }
  // This build's caches stay, of either bundle; other builds' go.
  return requireWithCodeCache(file, cacheFile, (name) => name.startsWith(`${BUILD}-`));
}

async function answerHere(): Promise<void> {
  try {
    const bundle = readBundle();
    const { runCli } = bundle ? (bundle.exports as typeof import('./run-cli.js')) : await import('./run-cli.js');
    process.exitCode = await runCli(argv, io);
    bundle?.save();
  } catch (e) {
    const code = (e as NodeJS.ErrnoException)?.code;
    if (code !== 'EMFILE' && code !== 'ENFILE') throw e;
    // the same envelope and exit code run-cli.ts gives RESOURCE_LIMIT (src/errors.ts, docs/errors.md)
    const error = {
      code: 'RESOURCE_LIMIT',
      message: `vaultgate could not load its own modules: too many open files (${code})`,
      hint: 'Nothing was changed. Raise the open-file limit (`ulimit -n 1024` in the shell that runs vaultgate) and run the same command again.',
      details: { errno: code },
    };
    if (!process.stdout.isTTY || argv.includes('--json')) process.stdout.write(JSON.stringify({ ok: false, error }) + '\n');
    else process.stderr.write(`error [${error.code}]: ${error.message}\nhint: ${error.hint}\n`);
    process.exitCode = 3;
  }
}

// `vaultgate --version` alone is what scripts and installers run to see that the
// command works: answered before the daemon socket and the CLI bundle (commander
// prints the same line for it when combined with other words).
if (argv.length === 1 && (argv[0] === '--version' || argv[0] === '-V')) {
  process.stdout.write(`${VERSION}\n`);
} else {
  // A read the vault's daemon can answer costs a socket round trip; only when none
  // answers is the CLI itself (commander, the operation table, the index) loaded.
  void forwardToDaemon(argv, io).then((forwarded) => {
    if (forwarded !== null) process.exitCode = forwarded;
    else return answerHere();
  });
}
