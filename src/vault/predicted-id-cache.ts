import fs from 'node:fs';
import path from 'node:path';
import { dataRoots, writePrivateFile } from './dirs.js';

type Env = Record<string, string | undefined>;

/**
 * The predicted ids of uninitialised vaults (vault-id.ts predictVaultId),
 * remembered under the cache root with everything the prediction is a digest
 * of: the root's real path, device, inode and birth time. Every read of an
 * uninitialised vault needs the id (it names the index's folder), and the
 * digest is the only thing on that path that loads node:crypto (2–5 ms of a
 * process start). When all four inputs match an entry, the entry's id is the
 * digest's; anything else is predicted and remembered.
 */
interface Entry {
  dev: string;
  ino: string;
  birth: string;
  id: string;
}

/** Vaults remembered at most; the oldest entries go first. */
const MAX_ENTRIES = 64;

function cacheFile(env: Env): string {
  return path.join(dataRoots(env).cache, 'predicted-vault-ids.json');
}

function read(file: string): Record<string, Entry> {
  try {
    const parsed = JSON.parse(fs.readFileSync(file, 'utf8')) as unknown;
    return parsed && typeof parsed === 'object' && !Array.isArray(parsed) ? (parsed as Record<string, Entry>) : {};
  } catch {
    return {};
  }
}

/**
 * `predict(root)` for `root`, through the cache: a hit is a read of one small
 * file and one stat. A cache that cannot be read or written only costs the
 * prediction.
 */
export function rememberedPrediction(root: string, env: Env, predict: (root: string) => string): string {
  let file: string;
  let real: string;
  let st: fs.BigIntStats;
  try {
    file = cacheFile(env);
    real = fs.realpathSync(root);
    st = fs.statSync(root, { bigint: true });
  } catch {
    return predict(root);
  }
  const key = { dev: String(st.dev), ino: String(st.ino), birth: String(st.birthtimeNs) };
  const entries = read(file);
  const hit = entries[real];
  if (hit && hit.dev === key.dev && hit.ino === key.ino && hit.birth === key.birth && typeof hit.id === 'string') return hit.id;
  const id = predict(root);
  try {
    delete entries[real];
    const kept = Object.entries(entries).slice(-(MAX_ENTRIES - 1));
    writePrivateFile(file, JSON.stringify(Object.fromEntries([...kept, [real, { ...key, id }]])));
  } catch {
    // a read-only or full cache root: predicted again next time
  }
  return id;
}
