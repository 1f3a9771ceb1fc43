#!/usr/bin/env node
/**
 * The `vaultgate` binary. It statically imports nothing of ours: with very few file
 * descriptors (`ulimit -n` in the 20s) loading the CLI's modules can itself fail
 * with EMFILE, and that must still end as a typed error (RESOURCE_LIMIT, exit 3),
 * not a stack trace and exit 1. So the CLI is loaded here, inside a guard whose
 * fallback needs no module at all.
 */

// A closed pipe (e.g. `vaultgate search x | head -1`) is not an error worth a stack trace.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

const argv = process.argv.slice(2);
try {
  const { runCli } = await import('./run-cli.js');
  process.exitCode = await runCli(argv, {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    env: process.env,
    isTTY: Boolean(process.stdout.isTTY),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    cwd: process.cwd(),
  });
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
