import fs from 'node:fs';
import path from 'node:path';
import { dataRoots, writePrivateFile } from '../../vault/dirs.js';
import { machineConfigPath, parseMachineConfig, type MachineConfig } from '../../vault/select-vault.js';

type Env = Record<string, string | undefined>;

/**
 * The machine config (default_vault, named vaults) as a daemon parsed it, kept
 * under the cache root with the exact text it was parsed from. A CLI process
 * finds its vault's daemon before loading yaml and zod (~90 ms): when the
 * config's text is the cached text, the cached parse is its parse. Other text,
 * no use: the client runs the command itself (the daemon re-reads the config
 * every second and caches the new parse).
 */
interface Cached {
  text: string;
  config: MachineConfig;
}

function cacheFile(env: Env): string {
  return path.join(dataRoots(env).cache, 'daemons', 'machine-config.json');
}

function textOf(env: Env): string | null {
  try {
    return fs.readFileSync(machineConfigPath(env), 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw e;
  }
}

/** For selectVault: the cached parse of the current text (no file: the empty config); throws when there is none. */
export function cachedMachineConfig(env: Env): MachineConfig {
  const text = textOf(env);
  if (text === null) return {};
  const cached = JSON.parse(fs.readFileSync(cacheFile(env), 'utf8')) as Cached;
  if (cached.text !== text) throw new Error('the machine config changed since a daemon parsed it');
  return cached.config;
}

/** Parse the machine config (strictly, as every command does) and keep the parse for clients. */
export function rememberMachineConfig(env: Env): void {
  const text = textOf(env);
  if (text === null) return;
  const file = cacheFile(env);
  try {
    if ((JSON.parse(fs.readFileSync(file, 'utf8')) as Cached).text === text) return;
  } catch {
    // absent or unreadable: write it
  }
  const cached: Cached = { text, config: parseMachineConfig(text, machineConfigPath(env)) };
  writePrivateFile(file, JSON.stringify(cached));
}
