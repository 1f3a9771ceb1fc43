import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { dataRoots } from '../../vault/dirs.js';
import { machineConfigPath, parseMachineConfig, type MachineConfig } from '../../vault/select-vault.js';

type Env = Record<string, string | undefined>;

/**
 * The machine config (default_vault, named vaults) as a daemon parsed it, kept
 * under the cache root by the SHA-256 of the file's bytes. A CLI process finds
 * its vault's daemon before loading yaml and zod (~90 ms): with these bytes'
 * parse at hand, selecting the vault costs a file read and a hash. Different
 * bytes, no entry: the client runs the command itself.
 */
function cacheFolder(env: Env): string {
  return path.join(dataRoots(env).cache, 'machine-config');
}

function bytesOf(env: Env): Buffer | null {
  try {
    return fs.readFileSync(machineConfigPath(env));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

const digest = (bytes: Buffer) => crypto.createHash('sha256').update(bytes).digest('hex');

/** For selectVault: the cached parse of the current bytes (no file: the empty config); throws when there is none. */
export function cachedMachineConfig(env: Env): MachineConfig {
  const bytes = bytesOf(env);
  if (bytes === null) return {};
  return JSON.parse(fs.readFileSync(path.join(cacheFolder(env), `${digest(bytes)}.json`), 'utf8')) as MachineConfig;
}

/** Parse the machine config (strictly, as every command does) and keep the result for clients; older entries go. */
export function rememberMachineConfig(env: Env): void {
  const bytes = bytesOf(env);
  if (bytes === null) return;
  const name = `${digest(bytes)}.json`;
  const folder = cacheFolder(env);
  if (fs.existsSync(path.join(folder, name))) return;
  const config = parseMachineConfig(bytes.toString('utf8'), machineConfigPath(env));
  fs.mkdirSync(folder, { recursive: true });
  const tmp = path.join(folder, `.${name}.${process.pid}`);
  fs.writeFileSync(tmp, JSON.stringify(config), { mode: 0o600 });
  fs.renameSync(tmp, path.join(folder, name));
  for (const old of fs.readdirSync(folder)) if (old !== name && old.endsWith('.json')) fs.rmSync(path.join(folder, old), { force: true });
}
