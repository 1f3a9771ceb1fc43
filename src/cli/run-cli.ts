import { OPERATIONS } from '../ops/table.js';
import type { CliIO } from './command-kit.js';
import { runCliWith } from './cli-program.js';
import { registerDaemonCommands } from './daemon-commands.js';
import { registerFaceVerbs } from './face-verbs.js';
import { VERSION } from '../version.js';

export { VERSION };

/**
 * Run one vaultgate command line and return its exit code: every operation of
 * the table, the face verbs (mcp, serve, inbox) and the daemon's
 * (cli-program.ts does the work).
 */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  return runCliWith(argv, io, {
    operations: OPERATIONS,
    registerMore(program, reporter) {
      registerFaceVerbs(program, reporter);
      registerDaemonCommands(program, reporter, runCli);
    },
  });
}
