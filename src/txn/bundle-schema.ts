import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { loadZod, once } from '../lazy-require.js';
import { isReservedPath, normalizeVaultPath, sha256Hex } from '../vault/index.js';
import {
  MAX_BUNDLE_BYTES,
  MAX_FILE_BYTES,
  MAX_NAME_BYTES,
  MAX_OPERATION_BYTES,
  MAX_READ_PRECONDITIONS,
  MAX_WRITES,
  OPERATION_ID,
  TEMP_NAME,
} from './limits.js';
import { parseStrictJson } from './strict-json.js';

export const BUNDLE_SCHEMA = 'vaultgate.transaction.v1';
export type WriteMode = 'create' | 'replace' | 'delete' | 'move';

/** One validated write. Paths are canonical (NFC, `/`); `content` is the exact new bytes. */
export interface BundleWrite {
  path: string;
  mode: WriteMode;
  /** New bytes for create/replace; absent for delete/move. */
  content?: Buffer;
  /** Destination of a move. */
  to?: string;
}

/** A bundle that passed every check that needs no disk access. */
export interface Bundle {
  schema: typeof BUNDLE_SCHEMA;
  operation_id: string;
  operation_type: string;
  writes: BundleWrite[];
  /** Canonical path → expected SHA-256, or null for "must not exist". */
  expected_hashes: Record<string, string | null>;
  read_preconditions: Record<string, string>;
}

/** Built on first use: zod is loaded only by the commands that parse a bundle. */
const bundleSchema = once(() => {
  const { z } = loadZod();
  const Sha256 = z.string().regex(/^[0-9a-f]{64}$/, 'expected 64 lower-case hex digits');
  const WriteSchema = z.strictObject({
    path: z.string().min(1),
    mode: z.enum(['create', 'replace', 'delete', 'move']),
    content: z.string().optional(),
    content_file: z.string().min(1).optional(),
    sha256: Sha256.optional(),
    to: z.string().min(1).optional(),
  });
  const BundleSchema = z.strictObject({
    schema: z.literal(BUNDLE_SCHEMA),
    operation_id: z.string().regex(OPERATION_ID, 'letters, digits, `.`, `_`, `-`; at most 128; starting with a letter or digit'),
    operation_type: z.string().min(1).max(64),
    writes: z.array(WriteSchema).min(1).max(MAX_WRITES),
    expected_hashes: z.record(z.string(), Sha256.nullable()),
    read_preconditions: z.record(z.string(), Sha256).default({}),
  });
  return BundleSchema;
});

const invalid = (message: string, info: { path?: string; details?: Record<string, unknown> } = {}) =>
  new VaultgateError('BUNDLE_INVALID', message, {
    ...info,
    hint: 'Fix the bundle (format: docs/bundle.md), then run `vaultgate tx inspect BUNDLE` again.',
  });
const limit = (message: string, details: Record<string, unknown>, p?: string) =>
  new VaultgateError('BUNDLE_LIMIT', message, {
    details,
    ...(p === undefined ? {} : { path: p }),
    hint: 'Split the change into several smaller bundles.',
  });

/** Case-fold key used for collision checks: NFC, then full-ish case folding (ß → ss). */
export function foldKey(p: string): string {
  return p.normalize('NFC').toUpperCase().toLowerCase().normalize('NFC');
}

/** A write path: lexically valid, portable, not reserved, and short enough to carry our temp suffix. */
export function checkWritePath(input: string): string {
  const rel = normalizeVaultPath(input, { portable: true });
  if (isReservedPath(rel)) {
    throw new VaultgateError('PATH_RESERVED', `${rel} is inside a reserved folder (.vaultgate, .obsidian, .git, .trash)`, {
      path: rel,
      hint: 'Bundles may not write reserved folders; choose a path in the vault proper.',
    });
  }
  const name = rel.slice(rel.lastIndexOf('/') + 1);
  if (Buffer.byteLength(name) > MAX_NAME_BYTES) {
    throw limit(`${rel}: file name is ${Buffer.byteLength(name)} bytes; with the temp suffix it must fit 255`, {
      actual: Buffer.byteLength(name),
      limit: MAX_NAME_BYTES,
    }, rel);
  }
  if (TEMP_NAME.test(name)) throw invalid(`${rel} looks like a vaultgate temp file`, { path: rel });
  return rel;
}

export interface ParseOptions {
  /** Folder `content_file` paths are relative to (the bundle's folder, or the cwd for stdin). */
  baseDir: string;
}

/**
 * Validate a bundle document completely without touching the vault: strict JSON,
 * exact shape, modes, paths, limits, hash table coverage. Reads `content_file`s.
 */
export function parseBundle(bytes: Uint8Array, opts: ParseOptions): Bundle {
  if (bytes.byteLength > MAX_BUNDLE_BYTES) {
    throw limit(`bundle is ${bytes.byteLength} bytes, over ${MAX_BUNDLE_BYTES}`, { actual: bytes.byteLength, limit: MAX_BUNDLE_BYTES });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw invalid('bundle is not valid UTF-8');
  }
  const raw = parseStrictJson(text);
  const parsed = bundleSchema().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const where = issue.path.join('.') || '(root)';
    if (issue.code === 'too_big' && issue.path.join('.') === 'writes') {
      throw limit(`bundle has more than ${MAX_WRITES} writes`, { limit: MAX_WRITES });
    }
    throw invalid(`bundle ${where}: ${issue.message}`, { details: { field: where } });
  }
  const b = parsed.data;
  const writes: BundleWrite[] = [];
  const targets = new Map<string, string>(); // fold key → canonical path
  const expectedFor = new Map<string, string | null>(); // canonical → what expected_hashes must say
  let total = 0;
  const claim = (rel: string, must: string | null | 'sha') => {
    const key = foldKey(rel);
    const other = targets.get(key);
    if (other !== undefined) {
      throw invalid(`${rel} and ${other} are the same file once case and Unicode form are ignored`, {
        path: rel,
        details: { collides_with: other },
      });
    }
    targets.set(key, rel);
    expectedFor.set(rel, must === 'sha' ? 'sha' : null);
  };
  b.writes.forEach((w, n) => {
    const at = `writes.${n}`;
    const rel = checkWritePath(w.path);
    const hasContent = w.content !== undefined || w.content_file !== undefined;
    if (w.mode === 'create' || w.mode === 'replace') {
      if (w.content !== undefined && w.content_file !== undefined) throw invalid(`${at}: give content or content_file, not both`, { path: rel });
      if (!hasContent) throw invalid(`${at}: ${w.mode} needs content or content_file`, { path: rel });
      if (w.content_file !== undefined && w.sha256 === undefined) throw invalid(`${at}: content_file needs sha256`, { path: rel });
      if (w.to !== undefined) throw invalid(`${at}: only move takes \`to\``, { path: rel });
    } else {
      if (hasContent || w.sha256 !== undefined) throw invalid(`${at}: ${w.mode} takes no content`, { path: rel });
      if (w.mode === 'move' && w.to === undefined) throw invalid(`${at}: move needs \`to\``, { path: rel });
      if (w.mode === 'delete' && w.to !== undefined) throw invalid(`${at}: only move takes \`to\``, { path: rel });
    }
    let content: Buffer | undefined;
    if (w.content !== undefined) content = Buffer.from(w.content, 'utf8');
    if (w.content_file !== undefined) content = readContentFile(path.resolve(opts.baseDir, w.content_file), rel);
    if (content) {
      if (content.byteLength > MAX_FILE_BYTES) {
        throw limit(`${rel}: new content is ${content.byteLength} bytes, over ${MAX_FILE_BYTES}`, { actual: content.byteLength, limit: MAX_FILE_BYTES }, rel);
      }
      total += content.byteLength;
      if (total > MAX_OPERATION_BYTES) {
        throw limit(`bundle content exceeds ${MAX_OPERATION_BYTES} bytes`, { limit: MAX_OPERATION_BYTES }, rel);
      }
      if (w.sha256 !== undefined && sha256Hex(content) !== w.sha256) {
        throw invalid(`${at}: content does not match its sha256`, { path: rel, details: { expected: w.sha256, actual: sha256Hex(content) } });
      }
    }
    claim(rel, w.mode === 'create' ? null : 'sha');
    const out: BundleWrite = { path: rel, mode: w.mode };
    if (content) out.content = content;
    if (w.mode === 'move') {
      const to = checkWritePath(w.to!);
      claim(to, null);
      out.to = to;
    }
    writes.push(out);
  });
  // one written path may not be a folder of another (`a` and `a/b.md`)
  const keys = [...targets.keys()].sort();
  for (let k = 1; k < keys.length; k++) {
    if (keys[k]!.startsWith(keys[k - 1]! + '/')) {
      throw invalid(`${targets.get(keys[k - 1]!)} is both a file and a folder of ${targets.get(keys[k]!)}`, { path: targets.get(keys[k]!) });
    }
  }
  const expected: Record<string, string | null> = {};
  for (const [key, value] of Object.entries(b.expected_hashes)) {
    const rel = normalizeVaultPath(key, { portable: true });
    if (Object.hasOwn(expected, rel)) throw invalid(`expected_hashes lists ${rel} twice`, { path: rel });
    const must = expectedFor.get(rel);
    if (must === undefined) throw invalid(`expected_hashes names ${rel}, which no write touches`, { path: rel });
    if (must === null && value !== null) throw invalid(`expected_hashes.${rel} must be null: the write creates it`, { path: rel });
    if (must === 'sha' && value === null) throw invalid(`expected_hashes.${rel} must be the current SHA-256: the write changes an existing file`, { path: rel });
    expected[rel] = value;
  }
  for (const rel of expectedFor.keys()) {
    if (!Object.hasOwn(expected, rel)) throw invalid(`expected_hashes has no entry for ${rel}`, { path: rel });
  }
  const reads: Record<string, string> = {};
  const readEntries = Object.entries(b.read_preconditions);
  if (readEntries.length > MAX_READ_PRECONDITIONS) {
    throw limit(`more than ${MAX_READ_PRECONDITIONS} read_preconditions`, { limit: MAX_READ_PRECONDITIONS });
  }
  for (const [key, value] of readEntries) {
    const rel = normalizeVaultPath(key);
    if (Object.hasOwn(reads, rel)) throw invalid(`read_preconditions lists ${rel} twice`, { path: rel });
    if (targets.has(foldKey(rel))) throw invalid(`${rel} is written; pin it in expected_hashes, not read_preconditions`, { path: rel });
    reads[rel] = value;
  }
  return { schema: BUNDLE_SCHEMA, operation_id: b.operation_id, operation_type: b.operation_type, writes, expected_hashes: expected, read_preconditions: reads };
}

function readContentFile(abs: string, rel: string): Buffer {
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    throw invalid(`content_file for ${rel} not found: ${abs}`, { path: rel });
  }
  if (!st.isFile()) throw invalid(`content_file for ${rel} is not a regular file: ${abs}`, { path: rel });
  if (st.size > MAX_FILE_BYTES) {
    throw limit(`${rel}: content_file is ${st.size} bytes, over ${MAX_FILE_BYTES}`, { actual: st.size, limit: MAX_FILE_BYTES }, rel);
  }
  return fs.readFileSync(abs);
}
