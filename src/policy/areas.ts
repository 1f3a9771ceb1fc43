import { areaRuleFor, type VaultConfig } from '../vault/index.js';
import type { AreaOwner, ProposedFile, ReviewCheck } from './types.js';

/**
 * Area owners (DESIGN §5.2): who a part of the vault belongs to. The vault
 * config's `areas` are tried in order and the first glob that matches a path
 * decides; a path no area matches belongs to `default_owner` (default `human`).
 * Only `human` areas are writable by proposals: `imported` (a sync or importer
 * writes it), `repo_mirror` (a copy of a repository), `compiled` (generated
 * output) and `unknown` are proposable but never appliable.
 */
export interface AreaOf {
  owner: AreaOwner;
  /** The glob of the area rule that decided, or null when the default owner applies. */
  glob: string | null;
}

export function areaOf(config: VaultConfig, path: string): AreaOf {
  const rule = areaRuleFor(config, path);
  return rule ? { owner: rule.owner, glob: rule.glob } : { owner: config.default_owner, glob: null };
}

/** Every path a change touches: both ends of a move. */
export function touchedPaths(f: Pick<ProposedFile, 'path' | 'to'>): string[] {
  return f.to === undefined ? [f.path] : [f.path, f.to];
}

/** The `owner` check: one failing entry per touched path outside a `human` area, else one passing entry. */
export function checkOwners(files: readonly ProposedFile[], config: VaultConfig): ReviewCheck[] {
  const out: ReviewCheck[] = [];
  for (const f of files) {
    for (const p of touchedPaths(f)) {
      const area = areaOf(config, p);
      if (area.owner === 'human') continue;
      const where = area.glob === null ? 'default_owner' : `area ${JSON.stringify(area.glob)}`;
      out.push({
        name: 'owner',
        ok: false,
        severity: 'block',
        path: p,
        message: `${p} belongs to ${area.owner} (${where} in .vaultgate/config.yaml); only human areas can be written`,
        details: { owner: area.owner, glob: area.glob },
      });
    }
  }
  if (out.length === 0) out.push({ name: 'owner', ok: true, severity: 'block', message: 'every touched path is in a human area' });
  return out;
}
