import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { readBounded } from './read-input.js';
import { MAX_STATE_FILE_BYTES } from './settings.js';

/**
 * The one layer through which every file-system call of the transaction engine
 * goes. Production uses {@link realFsOps}; the fault-injection tests wrap it
 * ({@link faultyFsOps}) to "crash" or fail at any numbered mutating step, which is
 * how the all-or-nothing claim is proved for every step of a bundle.
 *
 * Calls are synchronous on purpose: a step either happened or it did not when
 * the next line runs, so the journal order in the code is the order on disk.
 */
/** Where an operation's files are: the vault root, its operation folder, and the filesystem calls (the crash tests inject faults there). */
export interface OperationSite {
  root: string;
  opDir: string;
  ops: FsOps;
}

export interface FsOps {
  /** Create a new file, refusing an existing name or a symlink (O_CREAT|O_EXCL|O_NOFOLLOW). */
  openExclusive(abs: string, mode: number): number;
  /** Open an existing regular file for reading without following a final symlink. */
  openRead(abs: string): number;
  /** Open a directory for fsync. */
  openDir(abs: string): number;
  write(fd: number, data: Uint8Array): void;
  fchmod(fd: number, mode: number): void;
  fsync(fd: number): void;
  close(fd: number): void;
  rename(from: string, to: string): void;
  link(existing: string, newPath: string): void;
  unlink(abs: string): void;
  mkdir(abs: string): void;
  rmdir(abs: string): void;
  /** Open for appending, creating the file when missing (history.jsonl). */
  openAppend(abs: string): number;
  /** lstat, or null when the name does not exist (or a parent is not a folder). */
  lstat(abs: string): fs.BigIntStats | null;
  fstat(fd: number): fs.BigIntStats;
  readFile(abs: string): Buffer;
  /**
   * A regular file's bytes, at most `limit + 1` of them (more than `limit`: over
   * the bound), never following a link and never blocking on a FIFO: how the
   * engine reads its own state files back.
   */
  readFileBounded(abs: string, limit: number): Buffer;
  readdir(abs: string): string[];
}

const { O_WRONLY, O_RDONLY, O_CREAT, O_EXCL, O_NOFOLLOW, O_DIRECTORY, O_APPEND } = fs.constants;

export const realFsOps: FsOps = {
  openExclusive: (abs, mode) => fs.openSync(abs, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode),
  openRead: (abs) => fs.openSync(abs, O_RDONLY | O_NOFOLLOW),
  openDir: (abs) => fs.openSync(abs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW),
  write(fd, data) {
    let off = 0;
    while (off < data.byteLength) off += fs.writeSync(fd, data, off, data.byteLength - off);
  },
  fchmod: (fd, mode) => fs.fchmodSync(fd, mode),
  fsync: (fd) => fs.fsyncSync(fd),
  close: (fd) => fs.closeSync(fd),
  rename: (a, b) => fs.renameSync(a, b),
  link: (a, b) => fs.linkSync(a, b),
  unlink: (a) => fs.unlinkSync(a),
  mkdir: (a) => fs.mkdirSync(a),
  rmdir: (a) => fs.rmdirSync(a),
  openAppend: (abs) => fs.openSync(abs, O_WRONLY | O_CREAT | O_APPEND | O_NOFOLLOW, 0o644),
  lstat(abs) {
    try {
      return fs.lstatSync(abs, { bigint: true });
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return null;
      throw e;
    }
  },
  fstat: (fd) => fs.fstatSync(fd, { bigint: true }),
  readFile(abs) {
    const fd = fs.openSync(abs, O_RDONLY | O_NOFOLLOW);
    try {
      return fs.readFileSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  },
  readFileBounded(abs, limit) {
    const fd = fs.openSync(abs, O_RDONLY | O_NOFOLLOW | fs.constants.O_NONBLOCK);
    try {
      if (!fs.fstatSync(fd).isFile()) throw Object.assign(new Error(`${abs} is not a regular file`), { code: 'EFTYPE' });
      return readBounded(fd, limit);
    } finally {
      fs.closeSync(fd);
    }
  },
  readdir: (abs) => fs.readdirSync(abs),
};

/**
 * Thrown by the fault layer to simulate the process dying at a step. The engine
 * never catches it (see {@link rethrowIfCrash}): whatever it had in memory is
 * lost, exactly as after SIGKILL, and only what reached the disk remains.
 */
export class SimulatedCrash extends Error {
  override readonly name = 'SimulatedCrash';
}

/** Every catch block in the engine starts with this, so a simulated crash is never "handled". */
export function rethrowIfCrash(e: unknown): void {
  if (e instanceof SimulatedCrash) throw e;
}

/**
 * A state file's text, or null when it does not exist (any other failure is
 * thrown). Read with a bound (MAX_STATE_FILE_BYTES): one over it is
 * STATE_CORRUPT naming the file, never read whole.
 */
export function readTextIfExists(file: string, ops: FsOps, hint?: string): string | null {
  let bytes: Buffer;
  try {
    bytes = ops.readFileBounded(file, MAX_STATE_FILE_BYTES);
  } catch (e) {
    rethrowIfCrash(e);
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
  if (bytes.byteLength > MAX_STATE_FILE_BYTES) throw stateFileTooLarge(file, hint);
  return bytes.toString('utf8');
}

/** `.vaultgate/…` of an absolute state path, for messages (the path itself when it is not under one). */
export function stateRel(file: string): string {
  const at = file.lastIndexOf(`${path.sep}.vaultgate${path.sep}`);
  return at >= 0 ? file.slice(at + 1).split(path.sep).join('/') : file;
}

export function stateFileTooLarge(file: string, hint?: string): VaultgateError {
  const rel = stateRel(file);
  return new VaultgateError('STATE_CORRUPT', `${rel} is over the ${MAX_STATE_FILE_BYTES}-byte bound for a state file: vaultgate never writes one that large, so it was planted or damaged; it was not read`, {
    path: rel,
    details: { file: rel, limit: MAX_STATE_FILE_BYTES },
    hint: hint ?? `Move ${rel} out of the way (keep a copy to look at), then run the command again; \`vaultgate tx status\` shows what is pending.`,
  });
}

export type FaultKind = 'crash' | 'ENOSPC' | 'EIO' | 'EIO-sticky';

export interface FaultPlan {
  /** 1-based number of the mutating call that faults. */
  atStep: number;
  kind: FaultKind;
  /** Called before mutating step n runs. */
  beforeStep?: (n: number, op: string, args: unknown[]) => void;
  /** Called after mutating step n succeeded: "between two steps" (the symlink-swap test). */
  afterStep?: (n: number, op: string, args: unknown[]) => void;
}

export interface FaultyFsOps extends FsOps {
  /** How many mutating calls ran (or were attempted) so far. */
  readonly steps: number;
  /** Whether the planned fault fired. */
  readonly fired: boolean;
}

const MUTATING = new Set<keyof FsOps>([
  'openExclusive',
  'write',
  'fchmod',
  'fsync',
  'close',
  'rename',
  'link',
  'unlink',
  'mkdir',
  'rmdir',
  'openAppend',
]);

/**
 * Wrap `base` so mutating call number `atStep` faults: `crash` throws
 * {@link SimulatedCrash} before the call runs and closes every descriptor this
 * layer opened (the kernel would); `ENOSPC`/`EIO` fail that one call like the
 * disk would; `EIO-sticky` fails it and every mutating call after it, so the
 * in-process rollback fails too and recovery has to happen later.
 */
export function faultyFsOps(plan: FaultPlan, base: FsOps = realFsOps): FaultyFsOps {
  let steps = 0;
  let fired = false;
  let dead = false;
  const open = new Set<number>();
  const wrapped: Record<string, unknown> = {};
  for (const key of Object.keys(base) as (keyof FsOps)[]) {
    const fn = base[key] as (...a: unknown[]) => unknown;
    wrapped[key] = (...args: unknown[]) => {
      if (dead) throw new SimulatedCrash('process already crashed');
      if (MUTATING.has(key)) {
        steps++;
        plan.beforeStep?.(steps, key, args);
        const sticky = plan.kind === 'EIO-sticky' && steps > plan.atStep;
        if (steps === plan.atStep || sticky) {
          fired = true;
          if (plan.kind === 'crash') {
            dead = true;
            for (const fd of open) {
              try {
                fs.closeSync(fd);
              } catch {
                /* already closed */
              }
            }
            open.clear();
            throw new SimulatedCrash(`simulated crash before step ${steps} (${key})`);
          }
          if (key === 'close') {
            // a failing close still releases the descriptor, as close(2) does
            (fn as (fd: number) => void)(args[0] as number);
            open.delete(args[0] as number);
          }
          const code = plan.kind === 'ENOSPC' ? 'ENOSPC' : 'EIO';
          const err = new Error(`${code}: injected fault at step ${steps} (${key})`) as NodeJS.ErrnoException;
          err.code = code;
          throw err;
        }
      }
      const result = fn(...args);
      if (key === 'openExclusive' || key === 'openRead' || key === 'openDir' || key === 'openAppend') open.add(result as number);
      if (key === 'close') open.delete(args[0] as number);
      if (MUTATING.has(key)) plan.afterStep?.(steps, key, args);
      return result;
    };
  }
  Object.defineProperty(wrapped, 'steps', { get: () => steps });
  Object.defineProperty(wrapped, 'fired', { get: () => fired });
  return wrapped as unknown as FaultyFsOps;
}
