import fs from 'node:fs';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { loadYaml, loadZod, once } from '../lazy-require.js';
import { dataRoots } from './dirs.js';

type Env = Record<string, string | undefined>;

/** Machine config: `$XDG_CONFIG_HOME/vaultgate/config.yaml`. */
export interface MachineConfig {
  /** A vault path, or a name from `vaults`. */
  default_vault?: string;
  /** Vault names → paths. */
  vaults?: Record<string, string>;
  /** Embedding and chat providers by name; each entry is checked by src/wing/providers (strictly, when used). */
  providers?: Record<string, unknown>;
  /** Search settings (`search.embeddings`: optional dense fusion); checked by src/wing/dense when search runs. */
  search?: Record<string, unknown>;
}

/** Built on first use: zod is loaded only when the machine config exists and is read. */
const machineConfigSchema = once(() => {
  const { z } = loadZod();
  return z.strictObject({
    default_vault: z.string().min(1).optional(),
    vaults: z.record(z.string().min(1), z.string().min(1)).optional(),
    providers: z.record(z.string().min(1), z.unknown()).optional(),
    search: z.record(z.string().min(1), z.unknown()).optional(),
  });
});

export function machineConfigPath(env: Env = process.env): string {
  return path.join(dataRoots(env).config, 'config.yaml');
}

export function readMachineConfig(env: Env = process.env): MachineConfig {
  const file = machineConfigPath(env);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return {};
    throw e;
  }
  return parseMachineConfig(text, file);
}

/** The machine config's text, parsed and validated (CONFIG_INVALID naming `file`). */
export function parseMachineConfig(text: string, file: string): MachineConfig {
  let raw: unknown;
  try {
    raw = loadYaml().parse(text) ?? {};
  } catch (e) {
    throw new VaultgateError('CONFIG_INVALID', `${file}: ${(e as Error).message}`, { hint: 'Fix the YAML syntax.' });
  }
  const parsed = machineConfigSchema().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new VaultgateError('CONFIG_INVALID', `${file}: ${issue.path.join('.') || '(root)'}: ${issue.message}`, {
      hint: 'Known keys: default_vault (a path or a name from `vaults`), vaults (name: path), providers (name: provider settings, docs/similar.md), search (embeddings: dense fusion, docs/similar.md).',
    });
  }
  return parsed.data;
}

export interface VaultSelection {
  /** Absolute real path of the vault root (symlinks in the root path itself resolved once). */
  root: string;
  /** Where the choice came from. */
  source: 'option' | 'env' | 'config';
}

/**
 * Choose the vault: `--vault PATH|NAME`, else `VAULTGATE_VAULT`, else the machine
 * config's `default_vault`. A name is looked up in the config's `vaults` map.
 */
export function selectVault(
  option: string | undefined,
  env: Env = process.env,
  cwd = process.cwd(),
  /** How the machine config is read: the daemon's client passes a cached copy, to load neither yaml nor zod. */
  machineConfig: (env: Env) => MachineConfig = readMachineConfig,
): VaultSelection {
  let value: string | undefined = option;
  let source: VaultSelection['source'] = 'option';
  if (!value) {
    value = env.VAULTGATE_VAULT || undefined;
    source = 'env';
  }
  let config: MachineConfig | undefined;
  if (!value) {
    config = machineConfig(env);
    value = config.default_vault;
    source = 'config';
  }
  if (!value) {
    throw new VaultgateError('VAULT_NOT_FOUND', 'no vault given', {
      hint: `Pass --vault PATH, set VAULTGATE_VAULT, or set default_vault in ${machineConfigPath(env)}.`,
    });
  }
  // A bare name (no slash) that the config knows is a name; anything else is a path.
  if (!value.includes('/') && !value.includes(path.sep)) {
    config ??= machineConfig(env);
    const named = config.vaults?.[value];
    if (named) value = named;
  }
  const abs = path.resolve(cwd, value);
  let st: fs.Stats;
  try {
    st = fs.statSync(abs);
  } catch {
    throw new VaultgateError('VAULT_NOT_FOUND', `vault ${abs} does not exist`, {
      details: { source },
      hint: 'Check the path given with --vault, VAULTGATE_VAULT or default_vault.',
    });
  }
  if (!st.isDirectory()) {
    throw new VaultgateError('VAULT_NOT_DIRECTORY', `vault ${abs} is not a folder`, {
      details: { source },
      hint: 'A vault is the folder you open in Obsidian.',
    });
  }
  return { root: fs.realpathSync(abs), source };
}
