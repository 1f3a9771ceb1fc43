import path from 'node:path';
import { unreachable, VaultgateError } from '../errors.js';
import { loadZod, once } from '../lazy-require.js';
import { filesystemFoldKey, isReservedPath, normalizeVaultPath, sha256Hex } from '../vault/index.js';
import { readInputFile } from './read-input.js';
import {
  MAX_BUNDLE_BYTES,
  MAX_FILE_BYTES,
  MAX_NAME_BYTES,
  MAX_OPERATION_BYTES,
  MAX_READ_PRECONDITIONS,
  MAX_WRITES,
  OPERATION_ID,
  TEMP_NAME,
} from './settings.js';
import { parseStrictJson } from './strict-json.js';

export const BUNDLE_SCHEMA = 'vaultgate.transaction.v1';

/**
 * One validated write, one variant per mode. Paths are canonical (NFC, `/`);
 * `content` is the exact new bytes. Every `switch (w.mode)` in the engine ends in
 * {@link unreachable}, so a fifth mode cannot silently run as one of these four.
 */
export type BundleWrite = CreateWrite | ReplaceWrite | DeleteWrite | MoveWrite;
/** `path` must not exist; published without clobbering. */
export interface CreateWrite {
  mode: 'create';
  path: string;
  content: Buffer;
  /** Absolute path of the `content_file` the bytes came from: shown by inspect, not approved (the bytes are). */
  source?: string;
}
/** `path` exists; its bytes are replaced, its permission bits kept. */
export interface ReplaceWrite {
  mode: 'replace';
  path: string;
  content: Buffer;
  /** As {@link CreateWrite.source}. */
  source?: string;
}
/** `path` exists and goes (its original is kept as a backup for undo). */
export interface DeleteWrite {
  mode: 'delete';
  path: string;
}
/** `path` moves to `to` (which must not exist), bytes and mode unchanged. */
export interface MoveWrite {
  mode: 'move';
  path: string;
  to: string;
}
export type WriteMode = BundleWrite['mode'];
export const WRITE_MODES = ['create', 'replace', 'delete', 'move'] as const satisfies readonly WriteMode[];

/** The vault paths a write touches: its path, and a move's destination. */
export function pathsOf(w: BundleWrite): string[] {
  switch (w.mode) {
    case 'create':
    case 'replace':
    case 'delete':
      return [w.path];
    case 'move':
      return [w.path, w.to];
    default:
      return unreachable(w, 'write mode');
  }
}

/**
 * A map from vault paths to values with no prototype: `__proto__`, `constructor` and
 * `toString` are ordinary keys here (a note may be called `__proto__`), and a lookup
 * never finds an inherited member.
 */
export type PathMap<V> = Record<string, V>;
export function pathMap<V>(): PathMap<V> {
  return Object.create(null) as PathMap<V>;
}

/** A bundle that passed every check that needs no disk access. */
export interface Bundle {
  schema: typeof BUNDLE_SCHEMA;
  operation_id: string;
  operation_type: string;
  writes: BundleWrite[];
  /** Canonical path → expected SHA-256, or null for "must not exist" (a {@link pathMap}). */
  expected_hashes: PathMap<string | null>;
  /** Canonical path → SHA-256 (a {@link pathMap}). */
  read_preconditions: PathMap<string>;
}

const SHA256 = /^[0-9a-f]{64}$/;

/**
 * Built on first use: zod is loaded only by the commands that parse a bundle. The
 * two path-keyed tables are *not* zod records: a record silently drops a key named
 * `__proto__` (it builds a plain object), so they are checked key by key below.
 */
const bundleSchema = once(() => {
  const { z } = loadZod();
  const Sha256 = z.string().regex(SHA256, 'expected 64 lower-case hex digits');
  const WriteSchema = z.strictObject({
    path: z.string().min(1),
    mode: z.enum(WRITE_MODES),
    content: z.string().optional(),
    content_file: z.string().min(1).optional(),
    sha256: Sha256.optional(),
    to: z.string().min(1).optional(),
  });
  return z.strictObject({
    schema: z.literal(BUNDLE_SCHEMA),
    operation_id: z.string().regex(OPERATION_ID, 'letters, digits, `.`, `_`, `-`; at most 128; starting with a letter or digit'),
    operation_type: z.string().min(1).max(64),
    writes: z.array(WriteSchema).min(1).max(MAX_WRITES),
    expected_hashes: z.unknown(),
    read_preconditions: z.unknown().optional(),
  });
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

/** A JSON object's own entries, refusing anything that is not a plain JSON object. */
function objectEntries(value: unknown, field: string): Array<[string, unknown]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw invalid(`bundle ${field}: expected an object of path → hash`, { details: { field } });
  }
  return Object.keys(value).map((k) => [k, (value as Record<string, unknown>)[k]]);
}

function hashValue(value: unknown, field: string, key: string, nullable: boolean): string | null {
  if (value === null && nullable) return null;
  if (typeof value === 'string' && SHA256.test(value)) return value;
  throw invalid(`bundle ${field}.${key}: expected 64 lower-case hex digits${nullable ? ' or null' : ''}`, { details: { field: `${field}.${key}` } });
}

/**
 * Validate a bundle document completely without touching the vault: strict JSON,
 * exact shape, modes, paths, limits, hash table coverage. Reads `content_file`s.
 */
export function parseBundle(bytes: Uint8Array, opts: ParseOptions): Bundle {
  if (bytes.byteLength > MAX_BUNDLE_BYTES) {
    throw limit(`bundle is over ${MAX_BUNDLE_BYTES} bytes`, { actual: bytes.byteLength, limit: MAX_BUNDLE_BYTES });
  }
  let text: string;
  try {
    text = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    throw invalid('bundle is not valid UTF-8');
  }
  return bundleFromValue(parseStrictJson(text), { ...opts, byteLength: bytes.byteLength });
}

/**
 * The same validation for a document already held as a value (its JSON encoding
 * `byteLength` bytes long): what a proposal's own bundle goes through, without
 * encoding 12 MB of texts only to parse them back character by character (issue 20 §8).
 */
export function bundleFromValue(raw: unknown, opts: ParseOptions & { byteLength: number; built?: boolean }): Bundle {
  const b = opts.built === true && builtShapeOk(raw) && opts.byteLength <= MAX_BUNDLE_BYTES ? (raw as SchemaBundle) : schemaChecked(raw, opts.byteLength);
  const { writes, targets, expectedFor } = checkedWrites(b.writes, opts.baseDir);
  checkNoFileIsAFolder(targets);
  const expected = checkedExpectedHashes(b.expected_hashes, expectedFor);
  const reads = checkedReads(b.read_preconditions, targets);
  return { schema: BUNDLE_SCHEMA, operation_id: b.operation_id, operation_type: b.operation_type, writes, expected_hashes: expected, read_preconditions: reads };
}

type SchemaBundle = ReturnType<typeof schemaChecked>;

const WRITE_KEYS = new Set(['path', 'mode', 'content', 'content_file', 'sha256', 'to']);
const BUNDLE_KEYS = new Set(['schema', 'operation_id', 'operation_type', 'writes', 'expected_hashes', 'read_preconditions']);
const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;
const optionalString = (v: unknown, min: number) => v === undefined || (typeof v === 'string' && v.length >= min);

/**
 * The bundle schema checked by hand, for a value built in this process (a
 * proposal's bundle, `built`): true only for a value the schema accepts as it
 * is. Loading the schema library costs ~55 ms of CPU, in each of propose, review
 * and apply (issue 20 §8); a value that fails here goes through the schema
 * anyway, for its exact error.
 */
function builtShapeOk(raw: unknown): boolean {
  if (!isPlainObject(raw) || !Object.keys(raw).every((k) => BUNDLE_KEYS.has(k))) return false;
  if (raw.expected_hashes === undefined || raw.schema !== BUNDLE_SCHEMA || typeof raw.operation_id !== 'string' || !OPERATION_ID.test(raw.operation_id)) return false;
  if (typeof raw.operation_type !== 'string' || raw.operation_type.length < 1 || raw.operation_type.length > 64) return false;
  const writes = raw.writes;
  if (!Array.isArray(writes) || writes.length < 1 || writes.length > MAX_WRITES) return false;
  return writes.every(
    (w) =>
      isPlainObject(w) &&
      Object.keys(w).every((k) => WRITE_KEYS.has(k)) &&
      typeof w.path === 'string' &&
      w.path.length >= 1 &&
      typeof w.mode === 'string' &&
      (WRITE_MODES as readonly string[]).includes(w.mode) &&
      optionalString(w.content, 0) &&
      optionalString(w.content_file, 1) &&
      (w.sha256 === undefined || (typeof w.sha256 === 'string' && SHA256.test(w.sha256))) &&
      optionalString(w.to, 1),
  );
}

/** The document checked against the bundle schema (size first): the first issue is the error. */
function schemaChecked(raw: unknown, byteLength: number) {
  if (byteLength > MAX_BUNDLE_BYTES) {
    throw limit(`bundle is over ${MAX_BUNDLE_BYTES} bytes`, { actual: byteLength, limit: MAX_BUNDLE_BYTES });
  }
  const parsed = bundleSchema().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue?.path.join('.') || '(root)';
    if (issue?.code === 'too_big' && where === 'writes') {
      throw limit(`bundle has more than ${MAX_WRITES} writes`, { limit: MAX_WRITES });
    }
    throw invalid(`bundle ${where}: ${issue?.message ?? 'invalid'}`, { details: { field: where } });
  }
  return parsed.data;
}

/**
 * Each write checked and its new bytes read (content or content_file, within the
 * per-file and per-operation limits), and every path it touches claimed once:
 * `targets` maps filesystem fold keys to paths, `expectedFor` says what
 * expected_hashes must give for each (absent or a hash).
 */
function checkedWrites(list: SchemaBundle['writes'], baseDir: string) {
  const writes: BundleWrite[] = [];
  const targets = new Map<string, string>(); // filesystem fold key → canonical path
  const expectedFor = new Map<string, 'absent' | 'sha'>(); // canonical → what expected_hashes must say
  let total = 0;
  const claim = (rel: string, must: 'absent' | 'sha') => {
    const key = filesystemFoldKey(rel);
    const other = targets.get(key);
    if (other !== undefined) {
      throw invalid(`${rel} and ${other} are the same file once case and Unicode form are ignored`, {
        path: rel,
        details: { collides_with: other },
      });
    }
    targets.set(key, rel);
    expectedFor.set(rel, must);
  };
  list.forEach((w, n) => {
    const at = `writes.${n}`;
    const rel = checkWritePath(w.path);
    const hasContent = w.content !== undefined || w.content_file !== undefined;
    const source = w.content_file !== undefined ? path.resolve(baseDir, w.content_file) : undefined;
    const newContent = (): Buffer => {
      if (w.content !== undefined && w.content_file !== undefined) throw invalid(`${at}: give content or content_file, not both`, { path: rel });
      if (w.to !== undefined) throw invalid(`${at}: only move takes \`to\``, { path: rel });
      let content: Buffer;
      if (w.content !== undefined) content = Buffer.from(w.content, 'utf8');
      else if (w.content_file !== undefined) {
        if (w.sha256 === undefined) throw invalid(`${at}: content_file needs sha256`, { path: rel });
        content = readContentFile(source!, rel);
      } else throw invalid(`${at}: ${w.mode} needs content or content_file`, { path: rel });
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
      return content;
    };
    const noContent = () => {
      if (hasContent || w.sha256 !== undefined) throw invalid(`${at}: ${w.mode} takes no content`, { path: rel });
    };
    switch (w.mode) {
      case 'create':
      case 'replace': {
        const content = newContent();
        claim(rel, w.mode === 'create' ? 'absent' : 'sha');
        writes.push({ mode: w.mode, path: rel, content, ...(source !== undefined ? { source } : {}) });
        break;
      }
      case 'delete':
        noContent();
        if (w.to !== undefined) throw invalid(`${at}: only move takes \`to\``, { path: rel });
        claim(rel, 'sha');
        writes.push({ mode: 'delete', path: rel });
        break;
      case 'move': {
        noContent();
        if (w.to === undefined) throw invalid(`${at}: move needs \`to\``, { path: rel });
        const to = checkWritePath(w.to);
        claim(rel, 'sha');
        claim(to, 'absent');
        writes.push({ mode: 'move', path: rel, to });
        break;
      }
      default:
        unreachable(w.mode, 'write mode');
    }
  });
  return { writes, targets, expectedFor };
}

/** One written path may not be a folder of another (`a` and `a/b.md`). */
function checkNoFileIsAFolder(targets: Map<string, string>): void {
  const keys = [...targets.keys()].sort();
  for (let k = 1; k < keys.length; k++) {
    const shallow = keys[k - 1] ?? '';
    const deep = keys[k] ?? '';
    if (deep.startsWith(shallow + '/')) {
      throw invalid(`${targets.get(shallow)} is both a file and a folder of ${targets.get(deep)}`, { path: targets.get(deep) });
    }
  }
}

/** expected_hashes: exactly one entry per path a write touches, null for one it creates. */
function checkedExpectedHashes(given: unknown, expectedFor: Map<string, 'absent' | 'sha'>) {
  const expected = pathMap<string | null>();
  for (const [key, value] of objectEntries(given, 'expected_hashes')) {
    const rel = normalizeVaultPath(key, { portable: true });
    const hash = hashValue(value, 'expected_hashes', key, true);
    if (Object.hasOwn(expected, rel)) throw invalid(`expected_hashes lists ${rel} twice`, { path: rel });
    const must = expectedFor.get(rel);
    if (must === undefined) throw invalid(`expected_hashes names ${rel}, which no write touches`, { path: rel });
    if (must === 'absent' && hash !== null) throw invalid(`expected_hashes.${rel} must be null: the write creates it`, { path: rel });
    if (must === 'sha' && hash === null) throw invalid(`expected_hashes.${rel} must be the current SHA-256: the write changes an existing file`, { path: rel });
    expected[rel] = hash;
  }
  for (const rel of expectedFor.keys()) {
    if (!Object.hasOwn(expected, rel)) throw invalid(`expected_hashes has no entry for ${rel}`, { path: rel });
  }
  return expected;
}

/** read_preconditions: files read but not written, each pinned to a hash. */
function checkedReads(given: unknown, targets: Map<string, string>) {
  const reads = pathMap<string>();
  const readEntries = given === undefined ? [] : objectEntries(given, 'read_preconditions');
  if (readEntries.length > MAX_READ_PRECONDITIONS) {
    throw limit(`more than ${MAX_READ_PRECONDITIONS} read_preconditions`, { limit: MAX_READ_PRECONDITIONS });
  }
  for (const [key, value] of readEntries) {
    const rel = normalizeVaultPath(key);
    const hash = hashValue(value, 'read_preconditions', key, false) ?? '';
    if (Object.hasOwn(reads, rel)) throw invalid(`read_preconditions lists ${rel} twice`, { path: rel });
    if (targets.has(filesystemFoldKey(rel))) throw invalid(`${rel} is written; pin it in expected_hashes, not read_preconditions`, { path: rel });
    reads[rel] = hash;
  }
  return reads;
}

/**
 * New bytes from a file outside the vault. Only a regular file is read (decided on
 * the open descriptor, so a FIFO, `/dev/zero` or a socket is refused unread and a
 * swap between a check and the read is impossible), and never more than the
 * per-file limit plus one byte (a `/proc` file says its size is 0).
 */
function readContentFile(abs: string, rel: string): Buffer {
  let r: ReturnType<typeof readInputFile>;
  try {
    r = readInputFile(abs, MAX_FILE_BYTES);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    if (code === 'EMFILE' || code === 'ENFILE') throw e;
    throw invalid(`content_file for ${rel} cannot be read (${code ?? (e as Error).message}): ${abs}`, { path: rel });
  }
  if (r.kind !== 'file') throw invalid(`content_file for ${rel} is not a regular file: ${abs}`, { path: rel });
  if (r.bytes.byteLength > MAX_FILE_BYTES) {
    throw limit(`${rel}: content_file is over ${MAX_FILE_BYTES} bytes`, { limit: MAX_FILE_BYTES }, rel);
  }
  return r.bytes;
}
