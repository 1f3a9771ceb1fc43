import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import type { ScenarioSpec } from './scenario-schema.js';

/**
 * Validated `scenario.yaml`s, kept under the cache root by the SHA-256 of the
 * file's exact bytes (and its folder name), so `context --scenario` does not
 * load yaml and zod (~60–90 ms of module loading) on every agent call. Only a
 * file that parsed and validated is ever stored; a changed byte is a miss and
 * is parsed — and refused — again. Bump {@link SPEC_CACHE_VERSION} whenever
 * ScenarioSpec or its validation changes, so old entries are never read.
 *
 * The cache is disposable like the index: an unreadable entry is a miss, and a
 * cache that cannot be written only makes the next call slower.
 */
export const SPEC_CACHE_VERSION = 1;

function entryFile(cacheRoot: string, folderName: string, bytes: Buffer): string {
  const key = crypto.createHash('sha256').update(`vaultgate-scenario-spec\0${SPEC_CACHE_VERSION}\0${folderName}\0`).update(bytes).digest('hex');
  return path.join(cacheRoot, 'scenarios', `${key}.json`);
}

/** The validated spec for these bytes, or undefined. */
export function cachedSpec(cacheRoot: string, folderName: string, bytes: Buffer): ScenarioSpec | undefined {
  try {
    const value = JSON.parse(fs.readFileSync(entryFile(cacheRoot, folderName, bytes), 'utf8')) as ScenarioSpec;
    if (value?.name !== folderName || !Array.isArray(value.areas) || typeof value.write?.frontmatter !== 'object') return undefined;
    // JSON.parse makes a key named __proto__ an own property, as the parser does
    return value;
  } catch {
    return undefined;
  }
}

export function storeSpec(cacheRoot: string, folderName: string, bytes: Buffer, spec: ScenarioSpec): void {
  const file = entryFile(cacheRoot, folderName, bytes);
  const temp = `${file}.${process.pid}.tmp`;
  try {
    // under the cache root, private like the rest of it (vault/dirs.ts privateDir)
    fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
    fs.writeFileSync(temp, JSON.stringify(spec), { mode: 0o600 });
    fs.renameSync(temp, file);
  } catch {
    fs.rmSync(temp, { force: true });
  }
}
