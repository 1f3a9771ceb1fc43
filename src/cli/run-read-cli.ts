import type { Operation } from '../ops/operation.js';
import { contextOp, searchOp } from '../ops/search-ops.js';
import { noteOp, resolveOp } from '../ops/note-ops.js';
import { backlinksOp, checkOp, linksOp } from '../ops/link-ops.js';
import type { CliIO } from './command-kit.js';
import { runCliWith } from './cli-program.js';

/**
 * The read verbs a daemon also answers (daemon/client.ts FORWARDED_VERBS), in
 * the table's order: what dist/cli/query.cjs knows. Built into a bundle of
 * its own (scripts/bundle.mjs) that imports none of the write side, the faces
 * or the daemon: ~0.7 MB of code instead of the whole CLI's ~1.6 MB, so a
 * read's process reads, deserialises and runs half as much before its work
 * (main.ts sends these verbs here unless help is asked for). A test holds the
 * list to the table's entries for those verbs.
 */
export const READ_OPERATIONS: readonly Operation<any, any>[] = [searchOp, contextOp, noteOp, resolveOp, linksOp, backlinksOp, checkOp];

/** {@link runCliWith} over the read verbs alone. */
export async function runCli(argv: string[], io: CliIO): Promise<number> {
  return runCliWith(argv, io, { operations: READ_OPERATIONS });
}
