import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../../errors.js';

/**
 * The work folder of one atomize run (outside the vault): every step reads its
 * inputs from here and writes its outputs here, each file replaced atomically
 * (a temporary file, fsync, rename), so a run killed at any point leaves every
 * file either as it was or complete. `atomize.json` is the run's record: the
 * source and its sha256, the target folder, and what each step last did.
 */
export const WORK_SCHEMA = 'vaultgate.atomize.work.v1';

export interface WorkState {
  schema: typeof WORK_SCHEMA;
  source: {
    /** Absolute path of the source file. */
    file: string;
    /** Its vault-relative path when it is a note of the vault, else null. */
    vault_path: string | null;
    sha256: string;
    bytes: number;
  };
  /** The vault folder the notes are proposed into, or null (set it with `init --into`). */
  into: string | null;
  created_at: string;
  chunk?: { max_chars: number; chunks: number; at: string };
  extract?: { provider: string; model: string; at: string; requests: number };
  /** sha256 of the registry.tsv extract last generated: a different file was edited by hand and is kept. */
  registry_generated_sha256?: string;
  tidy?: { registry_sha256: string; rows: number; at: string };
  write?: { registry_sha256: string; notes: string[]; links_added: number; narrative: string[]; into: string | null; at: string };
  strip?: { write_at: string; lines_removed: number; map: string | null; at: string };
  promote?: { proposals: string[]; proposed: Record<string, string>; allow_novel: boolean; at: string };
}

export interface Work {
  dir: string;
  state: WorkState;
}

export const files = (dir: string) => ({
  state: path.join(dir, 'atomize.json'),
  chapters: path.join(dir, 'chapters.tsv'),
  chunks: path.join(dir, 'chunks.tsv'),
  progress: path.join(dir, 'progress'),
  registry: path.join(dir, 'registry.tsv'),
  registryGenerated: path.join(dir, 'registry.generated.tsv'),
  notes: path.join(dir, 'notes'),
});

export function sha256(data: string | Buffer): string {
  return crypto.createHash('sha256').update(data).digest('hex');
}

/** Replace a file atomically: write a temporary sibling, fsync it, rename it over the file. */
export function writeAtomic(file: string, data: string | Buffer): void {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  const tmp = path.join(path.dirname(file), `.${path.basename(file)}.${process.pid}.${crypto.randomBytes(4).toString('hex')}.tmp`);
  const fd = fs.openSync(tmp, 'w', 0o644);
  try {
    fs.writeSync(fd, typeof data === 'string' ? Buffer.from(data, 'utf8') : data);
    fs.fsyncSync(fd);
  } finally {
    fs.closeSync(fd);
  }
  fs.renameSync(tmp, file);
}

export function resolveWorkDir(cwd: string, dir: string): string {
  return path.resolve(cwd, dir);
}

/** The work folder as `init` left it, or ATOMIZE_WORK_MISSING; the source must still be the one init recorded. */
export function openWork(cwd: string, dir: string, opts: { checkSource?: boolean } = {}): Work {
  const abs = resolveWorkDir(cwd, dir);
  const f = files(abs);
  let text: string;
  try {
    text = fs.readFileSync(f.state, 'utf8');
  } catch {
    throw new VaultgateError('ATOMIZE_WORK_MISSING', `${abs} is not an atomize work folder (no atomize.json)${fs.existsSync(abs) ? '' : ': the folder does not exist'}`, {
      details: { work: abs },
      hint: 'Run `vaultgate atomize init SOURCE --work DIR` first, or give the --work folder init made.',
    });
  }
  let state: WorkState;
  try {
    state = JSON.parse(text) as WorkState;
    if (state.schema !== WORK_SCHEMA) throw new Error(`schema ${String(state.schema)}`);
  } catch (e) {
    throw new VaultgateError('ATOMIZE_WORK_MISSING', `${f.state} is not an atomize record (${(e as Error).message})`, {
      details: { work: abs },
      hint: 'Run `vaultgate atomize init SOURCE --work DIR` again to start the folder afresh.',
    });
  }
  const work = { dir: abs, state };
  if (opts.checkSource !== false) assertSourceFresh(work);
  return work;
}

/** The source as init recorded it, or ATOMIZE_SOURCE_CHANGED (exit 75): every step's line numbers and sentences depend on it. */
export function readSource(work: Work): string {
  let bytes: Buffer;
  try {
    bytes = fs.readFileSync(work.state.source.file);
  } catch (e) {
    throw sourceChanged(work, `it cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
  }
  const now = sha256(bytes);
  if (now !== work.state.source.sha256) throw sourceChanged(work, `its sha256 is now ${now}`);
  return bytes.toString('utf8');
}

export function assertSourceFresh(work: Work): void {
  readSource(work);
}

function sourceChanged(work: Work, why: string): VaultgateError {
  return new VaultgateError('ATOMIZE_SOURCE_CHANGED', `the source ${work.state.source.file} changed since \`atomize init\` (recorded sha256 ${work.state.source.sha256}; ${why})`, {
    details: { source: work.state.source.file, expected_sha256: work.state.source.sha256 },
    hint: `Nothing was written. Re-run \`vaultgate atomize init ${JSON.stringify(work.state.source.file)} --work ${JSON.stringify(work.dir)}\`, then the steps again.`,
  });
}

export function saveState(work: Work): void {
  writeAtomic(files(work.dir).state, JSON.stringify(work.state, null, 2) + '\n');
}

export function notReady(message: string, hint: string): VaultgateError {
  return new VaultgateError('ATOMIZE_NOT_READY', message, { hint });
}

export const nowIso = () => new Date().toISOString();
