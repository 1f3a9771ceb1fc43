import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { z } from 'zod';
import { VaultgateError } from '../errors.js';
import { normalizeVaultPath } from './vault-path.js';

/**
 * Per-vault settings in `<vault>/.vaultgate/config.yaml`. Strict: an unknown key is
 * an error (DESIGN §1.6), so a typo never silently disables an exclusion.
 * The policy module will extend this schema with areas, owners and scenarios.
 */
const VaultConfigSchema = z.strictObject({
  index: z
    .strictObject({
      /** Vault folders (or files) not indexed: links to them are `unindexed`. */
      exclude: z.array(z.string().min(1)).default([]),
    })
    .default({ exclude: [] }),
  /** Folder where `capture` transactions may create notes. */
  captures_folder: z.string().min(1).default('Inbox'),
  /** How many completed operations keep their backups for undo. */
  txn: z
    .strictObject({
      keep_backups: z.number().int().min(0).max(1_000_000).default(200),
    })
    .default({ keep_backups: 200 }),
});

export type VaultConfig = z.infer<typeof VaultConfigSchema>;

export function vaultConfigPath(root: string): string {
  return path.join(root, '.vaultgate', 'config.yaml');
}

export function readVaultConfig(root: string): VaultConfig {
  const file = vaultConfigPath(root);
  let raw: unknown = {};
  let text: string | undefined;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
  }
  if (text !== undefined) {
    try {
      raw = YAML.parse(text) ?? {};
    } catch (e) {
      throw new VaultgateError('CONFIG_INVALID', `.vaultgate/config.yaml: ${(e as Error).message}`, {
        hint: 'Fix the YAML syntax of the vault config.',
      });
    }
  }
  const parsed = VaultConfigSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    throw new VaultgateError(
      'CONFIG_INVALID',
      `.vaultgate/config.yaml: ${issue.path.join('.') || '(root)'}: ${issue.message}`,
      { hint: 'Known keys: index.exclude (list of folders), captures_folder, txn.keep_backups.' },
    );
  }
  const cfg = parsed.data;
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
