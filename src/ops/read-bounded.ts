import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { readBounded, readInputFile } from '../txn/read-input.js';
import type { OpContext } from './operation.js';

/** One bounded reader for every input an operation takes from a descriptor (stdin). */
export { readBounded };

export interface FileArgOptions {
  /** Most bytes accepted. */
  limit: number;
  /** What the file is, for messages (`content file`, `patch file`). */
  what: string;
  /**
   * The error for an input over `limit` (each operation has its own limit code).
   * Absent: the `limit + 1` bytes are returned and the core reports its own limit.
   */
  tooLarge?: (limit: number) => VaultgateError;
}

/**
 * Read a file named on the command line (`--content-file F`, `--patch-file F`),
 * or stdin for `-`: bounded, decided on the open descriptor. Only a regular
 * file is read: a device (`/dev/zero`) would never end and a FIFO nobody writes
 * into would wait forever (issue 20), so both are refused unread; what a program
 * generates is piped to `-` (`generate-note | vaultgate propose … --content-file -`).
 */
export function readFileArg(ctx: OpContext, file: string, opts: FileArgOptions): Buffer {
  let bytes: Buffer;
  if (file === '-') bytes = ctx.readStdin(opts.limit);
  else {
    const abs = path.resolve(ctx.cwd, file);
    let read;
    try {
      read = readInputFile(abs, opts.limit);
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      throw new VaultgateError(code === 'ENOENT' ? 'NOT_FOUND' : 'INVALID_INPUT', `cannot read ${opts.what} ${file}: ${code ?? (e as Error).message}`, {
        hint: `Give the path of a readable file (relative to ${ctx.cwd}), or - for stdin.`,
      });
    }
    if (read.kind !== 'file') {
      throw new VaultgateError('INVALID_INPUT', `${opts.what} ${file} is not a regular file${read.kind === 'pipe' ? ' (a FIFO is never waited on)' : ''}`, {
        hint: 'Give a regular file, or `-` and pipe the text into stdin (`generate | vaultgate … -`).',
      });
    }
    bytes = read.bytes;
  }
  if (bytes.byteLength > opts.limit && opts.tooLarge) throw opts.tooLarge(opts.limit);
  return bytes;
}

/** Strict UTF-8 (never U+FFFD): text inputs are refused when they are not text. */
export function decodeUtf8Arg(bytes: Buffer, arg: { what: string; hint: string; keepBom?: boolean }): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: arg.keepBom === true }).decode(bytes);
  } catch {
    throw new VaultgateError('NOT_UTF8', `${arg.what} is not valid UTF-8`, { hint: arg.hint });
  }
}
