import crypto from 'node:crypto';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { loadYaml, loadZod, once } from '../lazy-require.js';
import { readStateBytes } from './state-file.js';
import { normalizeVaultPath } from './vault-path.js';

/**
 * Per-vault settings in `<vault>/.vaultgate/config.yaml`. Strict: an unknown key is
 * an error (DESIGN §1.6), so a typo never silently disables an exclusion.
 * The policy module will extend this schema with areas, owners and scenarios.
 */
export interface VaultConfig {
  /** Vault folders (or files) not indexed: links to them are `unindexed`. */
  index: { exclude: string[] };
  /** Folder where `capture` transactions may create notes. */
  captures_folder: string;
  /** How many completed operations keep their backups for undo. */
  txn: { keep_backups: number };
}

/** The settings of a vault without a config file, and the default of every key. A fresh object per call: callers normalise it in place. */
function defaultVaultConfig(): VaultConfig {
  return { index: { exclude: [] }, captures_folder: 'Inbox', txn: { keep_backups: 200 } };
}

/** Built on first use: most vaults have no config file, and then zod is never loaded. */
const vaultConfigSchema = once(() => {
  const { z } = loadZod();
  return z.strictObject({
    index: z.strictObject({ exclude: z.array(z.string().min(1)).default(() => []) }).default(() => defaultVaultConfig().index),
    captures_folder: z.string().min(1).default(() => defaultVaultConfig().captures_folder),
    txn: z
      .strictObject({ keep_backups: z.number().int().min(0).max(1_000_000).default(() => defaultVaultConfig().txn.keep_backups) })
      .default(() => defaultVaultConfig().txn),
  });
});

export function vaultConfigPath(root: string): string {
  return path.join(root, '.vaultgate', 'config.yaml');
}

/**
 * Where a reader may keep configs it already validated, keyed by the SHA-256 of
 * the file's bytes. Parsing means loading yaml and zod (~50 ms of module loading):
 * a read command in a vault with a config file would pay that every time, so
 * the index keeps the validated result and only a changed file is parsed again.
 */
export interface VaultConfigCache {
  get(sha256: string): VaultConfig | undefined;
  set(sha256: string, config: VaultConfig): void;
}

export function readVaultConfig(root: string, cache?: VaultConfigCache): VaultConfig {
  // never through a symbolic link at .vaultgate or at the file (STATE_CORRUPT)
  const bytes = readStateBytes(root, 'config.yaml');
  if (bytes === null) return defaultVaultConfig();
  const sha256 = cache ? crypto.createHash('sha256').update(bytes).digest('hex') : '';
  const cached = cache?.get(sha256);
  if (cached) return cached;
  const config = parseVaultConfig(bytes.toString('utf8'));
  cache?.set(sha256, config);
  return config;
}

function parseVaultConfig(text: string): VaultConfig {
  let raw: unknown;
  try {
    raw = loadYaml().parse(text) ?? {};
  } catch (e) {
    throw new VaultgateError('CONFIG_INVALID', `.vaultgate/config.yaml: ${(e as Error).message}`, {
      hint: 'Fix the YAML syntax of the vault config.',
    });
  }
  const parsed = vaultConfigSchema().safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new VaultgateError(
      'CONFIG_INVALID',
      `.vaultgate/config.yaml: ${issue.path.join('.') || '(root)'}: ${issue.message}`,
      { hint: 'Known keys: index.exclude (list of folders), captures_folder, txn.keep_backups.' },
    );
  }
  const cfg: VaultConfig = parsed.data;
  cfg.index.exclude = cfg.index.exclude.map((p) => normalizeVaultPath(p.replace(/\/+$/, '')));
  cfg.captures_folder = normalizeVaultPath(cfg.captures_folder.replace(/\/+$/, ''));
  return cfg;
}

/** Whether a vault path falls under one of the excluded folders (or is one of the excluded files). */
export function isExcluded(cfg: VaultConfig, rel: string): boolean {
  const lower = rel.toLowerCase();
  return cfg.index.exclude.some((ex) => {
    const e = ex.toLowerCase();
    return lower === e || lower.startsWith(e + '/');
  });
}
