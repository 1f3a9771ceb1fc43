import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { extensionOf } from '../markdown/source-text.js';
import { MAX_FILE_BYTES } from '../txn/index.js';
import { readInputFile } from '../txn/read-input.js';
import { normalizeVaultPath, readVaultBytes, sha256Hex, type VaultConfig } from '../vault/index.js';
import type { CaptureRequest } from './requests.js';
import type { StoredChange } from './types.js';
import { readCurrent } from './vault-files.js';

/**
 * Capture (issue 22 §3): a source's exact bytes stored content-addressed at
 * `<ingest.captured_folder>/<sha256>.<ext>` (`.raw/captured/` by default),
 * create-only. Its own change kind, so every face reaches it the same way:
 * `{"action": "capture", "source": FILE}` in a changes document, `propose
 * --capture FILE` on the command line. The same bytes captured again are a
 * no-op that names the file already there.
 *
 * `source` is an absolute path (the face resolves a relative one: the CLI
 * against its working folder, MCP against the vault root). Inside the vault it
 * is recorded as the vault path; outside, as the absolute path. The request
 * itself ({@link CaptureRequest}) is one action of requests.ts.
 */

/** What a capture came to: the file it is (or already was) stored as. */
export interface CaptureOutcome {
  source: string;
  path: string;
  sha256: string;
  bytes: number;
  /** True: those bytes were already captured there; the capture adds nothing to the proposal. */
  existing: boolean;
}

/** The vault path of a captured byte string: its SHA-256 and the source's extension (`bin` when it has none). */
export function capturedPath(config: Pick<VaultConfig, 'ingest'>, sha256: string, sourceName: string): string {
  const ext = extensionOf(sourceName).replace(/[^a-z0-9]/g, '').slice(0, 16) || 'bin';
  return normalizeVaultPath(`${config.ingest.captured_folder}/${sha256}.${ext}`);
}

/** A source as recorded: its vault path when it is inside the vault, else its absolute path. */
export function recordedSource(root: string, abs: string): string {
  const rel = path.relative(root, abs);
  if (rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)) return rel.split(path.sep).join('/').normalize('NFC');
  return abs;
}

/** The absolute path of a recorded source. */
export function sourceFile(root: string, recorded: string): string {
  return path.isAbsolute(recorded) ? recorded : path.join(root, recorded);
}

/** Whether a recorded source is a vault path (and so can be pinned as the engine's read precondition). */
export function isVaultSource(recorded: string): boolean {
  return !path.isAbsolute(recorded);
}

/**
 * The source's bytes: a regular file, bounded like every input (the engine's
 * per-file limit). A missing or unreadable file is NOT_FOUND / INVALID_INPUT.
 */
export function readSourceBytes(abs: string, shown = abs): Buffer {
  let read;
  try {
    read = readInputFile(abs, MAX_FILE_BYTES);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EMFILE' || code === 'ENFILE') throw e;
    throw new VaultgateError(code === 'ENOENT' ? 'NOT_FOUND' : 'INVALID_INPUT', `cannot read the source ${shown}: ${code ?? (e as Error).message}`, {
      path: shown,
      hint: 'Name a readable file (a relative path is resolved against the working folder on the CLI, the vault root over MCP).',
    });
  }
  if (read.kind !== 'file') {
    throw new VaultgateError('INVALID_INPUT', `the source ${shown} is not a regular file`, { path: shown, hint: 'Capture a regular file.' });
  }
  if (read.bytes.byteLength > MAX_FILE_BYTES) {
    throw new VaultgateError('BUNDLE_LIMIT', `the source ${shown} is over ${MAX_FILE_BYTES} bytes`, {
      path: shown,
      details: { limit: MAX_FILE_BYTES },
      hint: 'A capture stores one file of at most the engine’s per-file limit; split or shrink the source.',
    });
  }
  return read.bytes;
}

/**
 * A recorded source's bytes: a vault source through the vault's confined read
 * (no symbolic link followed anywhere on its path, as for every vault file), any
 * other file as an input file; both bounded by the engine's per-file limit.
 */
export function readRecordedSource(root: string, recorded: string): Buffer {
  return isVaultSource(recorded) ? readVaultBytes(root, recorded, MAX_FILE_BYTES).bytes : readSourceBytes(recorded);
}

/**
 * One capture request → its change, or null when the same bytes are already
 * captured (`outcome.existing`). A file at the captured path with other bytes
 * cannot happen by content addressing; if it does, it is refused (STALE_HASH),
 * never overwritten.
 */
export function resolveCapture(root: string, config: Pick<VaultConfig, 'ingest'>, r: CaptureRequest, outcomes: CaptureOutcome[]): StoredChange | null {
  const abs = path.resolve(r.source);
  const source = recordedSource(root, abs);
  let st: fs.Stats;
  try {
    st = fs.lstatSync(abs);
  } catch {
    throw new VaultgateError('NOT_FOUND', `the source ${source} does not exist`, { path: source, hint: 'Name the file to capture (`vaultgate ingest --list` shows the drop folder).' });
  }
  if (st.isSymbolicLink()) {
    throw new VaultgateError('PATH_SYMLINK', `the source ${source} is a symbolic link; vaultgate captures only regular files`, { path: source, hint: 'Name the file itself.' });
  }
  const bytes = readRecordedSource(root, source);
  const sha256 = sha256Hex(bytes);
  const rel = capturedPath(config, sha256, abs);
  const cur = readCurrent(root, rel);
  const outcome: CaptureOutcome = { source, path: rel, sha256, bytes: bytes.byteLength, existing: cur !== null };
  if (cur !== null) {
    if (cur.sha256 !== sha256) {
      throw new VaultgateError('STALE_HASH', `${rel} exists with other bytes (${cur.sha256}) than its name says (${sha256})`, {
        path: rel,
        details: { expected: sha256, actual: cur.sha256 },
        hint: 'A captured file was changed by hand. Move it away, then capture again.',
      });
    }
    outcomes.push(outcome);
    return null;
  }
  outcomes.push(outcome);
  return { path: rel, action: 'write', to: null, base_sha256: null, old_text: null, new_text: null, new_sha256: sha256, capture: { source, bytes } };
}

/** PROPOSAL_NOOP for a proposal whose only changes are captures of bytes already captured. */
export function alreadyCaptured(outcomes: readonly CaptureOutcome[]): VaultgateError {
  const o = outcomes[0]!;
  return new VaultgateError('PROPOSAL_NOOP', `${o.source} is already captured as ${o.path}${outcomes.length > 1 ? ` (and ${outcomes.length - 1} more)` : ''}: nothing to propose`, {
    path: o.path,
    details: { path: o.path, sha256: o.sha256, captures: outcomes },
    hint: `Nothing was stored. Cite the existing capture (${o.path}) in the note you propose.`,
  });
}
