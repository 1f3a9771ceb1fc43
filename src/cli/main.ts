#!/usr/bin/env node
import { forwardToDaemon } from './daemon/client.js';

// A closed pipe (e.g. `vaultgate search x | head -1`) is not an error worth a stack trace.
process.stdout.on('error', (e: NodeJS.ErrnoException) => {
  if (e.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw e;
});

const argv = process.argv.slice(2);
const io = {
  stdout: (s: string) => void process.stdout.write(s),
  stderr: (s: string) => void process.stderr.write(s),
  env: process.env,
  isTTY: Boolean(process.stdout.isTTY),
  stderrIsTTY: Boolean(process.stderr.isTTY),
  cwd: process.cwd(),
};
// A read the vault's daemon can answer costs a socket round trip; only when none
// answers is the CLI itself (commander, the operation table, the index) loaded.
// No top-level await: the bundle is also built as CommonJS (scripts/bundle.mjs).
void forwardToDaemon(argv, io).then(async (forwarded) => {
  if (forwarded !== null) {
    process.exitCode = forwarded;
    return;
  }
  const { runCli } = await import('./run-cli.js');
  process.exitCode = await runCli(argv, io);
});
