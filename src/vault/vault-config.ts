import crypto from 'node:crypto';
import path from 'node:path';
import { VaultgateError } from '../errors.js';
import { loadYaml, loadZod, once } from '../lazy-require.js';
import { compilePathGlob, type PathGlob } from './path-glob.js';
import { readStateBytes } from './state-file.js';
import { normalizeVaultPath } from './vault-path.js';

/**
 * Per-vault settings in `<vault>/.vaultgate/config.yaml`. Strict: an unknown key is
 * an error (DESIGN §1.6), so a typo never silently disables an exclusion or
 * leaves an area unprotected. docs/proposals.md documents every key.
 */
export interface VaultConfig {
  /** Vault folders (or files) not indexed: links to them are `unindexed`. */
  index: { exclude: string[] };
  /** Folder where `capture` transactions may create notes. */
  captures_folder: string;
  /** How many completed operations keep their backups for undo. */
  txn: { keep_backups: number };
  /** Who owns which part of the vault; the first rule whose glob matches a path decides. */
  areas: AreaRule[];
  /** The owner of a path no area matches. */
  default_owner: AreaOwnerName;
  /** Start/end markers of managed blocks besides `%%NAME-managed%%` … `%%/NAME-managed%%`. */
  managed_blocks: ManagedMarker[];
  /**
   * The vault's operation scopes (issue 22 §3): operation type → where it may write.
   * Added to the built-in types (`note`, `attachment`, `capture`, `generic`); a
   * configured type of the same name replaces the built-in one. Bundles (`tx`)
   * and proposals (`propose --type T`) are held to the same table.
   */
  operations: Record<string, OperationScopeConfig>;
  /** The Ingest workflow's folders and notes (issue 22 §3). */
  ingest: IngestConfig;
}

/** One configured operation type (`operations.<type>` in config.yaml). */
export interface OperationScopeConfig {
  /** Vault-relative globs (path-glob.ts, case-sensitive) every written path must match. */
  paths: string[];
  /** Only new files: no replace, delete or move. */
  create_only: boolean;
  /** Which files: Markdown notes, anything but notes, or any file. */
  files: 'markdown' | 'non-markdown' | 'any';
  description?: string;
}

export interface IngestConfig {
  /** Where sources wait to be ingested (`ingest --list`). */
  drop_folder: string;
  /** Where a capture stores a source's exact bytes, as `<sha256>.<ext>`. */
  captured_folder: string;
  /** The vault's index note an ingest adds a line to, if it has one. */
  index_note: string | null;
  /** The vault's log note an ingest adds a line to, if it has one. */
  log_note: string | null;
}

/** Who owns a part of the vault (DESIGN §5.2): only `human` areas are writable by proposals. */
export const AREA_OWNERS = ['human', 'imported', 'repo_mirror', 'compiled', 'unknown'] as const;
export type AreaOwnerName = (typeof AREA_OWNERS)[number];

export interface AreaRule {
  /** Vault-relative glob (path-glob.ts), matched case-insensitively. */
  glob: string;
  owner: AreaOwnerName;
  /** False: the area's files are not indexed (like `index.exclude`). */
  index: boolean;
}

export interface ManagedMarker {
  start: string;
  end: string;
}

/** The settings of a vault without a config file, and the default of every key. A fresh object per call: callers normalise it in place. */
function defaultVaultConfig(): VaultConfig {
  return {
    index: { exclude: [] },
    captures_folder: 'Inbox',
    txn: { keep_backups: 200 },
    areas: [],
    default_owner: 'human',
    managed_blocks: [],
    operations: {},
    ingest: { drop_folder: 'inbox', captured_folder: '.raw/captured', index_note: null, log_note: null },
  };
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
    areas: z
      .array(z.strictObject({ glob: z.string().min(1), owner: z.enum(AREA_OWNERS), index: z.boolean().default(true) }))
      .max(1000)
      .default(() => []),
    default_owner: z.enum(AREA_OWNERS).default('human'),
    managed_blocks: z
      .array(z.strictObject({ start: z.string().trim().min(1), end: z.string().trim().min(1) }))
      .max(100)
      .default(() => []),
    operations: z
      .record(
        z.string().regex(/^[a-z][a-z0-9_-]{0,63}$/, 'an operation type is lower-case letters, digits, `-`, `_` (at most 64)'),
        z.strictObject({
          paths: z.array(z.string().min(1)).min(1).max(100),
          create_only: z.boolean().default(false),
          files: z.enum(['markdown', 'non-markdown', 'any']).default('any'),
          description: z.string().max(300).optional(),
        }),
      )
      .default(() => ({})),
    ingest: z
      .strictObject({
        drop_folder: z.string().min(1).default(() => defaultVaultConfig().ingest.drop_folder),
        captured_folder: z.string().min(1).default(() => defaultVaultConfig().ingest.captured_folder),
        index_note: z.string().min(1).nullable().default(null),
        log_note: z.string().min(1).nullable().default(null),
      })
      .default(() => defaultVaultConfig().ingest),
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
      {
        hint:
          'Known keys: index.exclude (list of folders), captures_folder, txn.keep_backups, ' +
          'areas (list of {glob, owner, index}), default_owner, managed_blocks (list of {start, end}), ' +
          'operations (type → {paths, create_only, files, description}), ingest ({drop_folder, captured_folder, index_note, log_note}); see docs/proposals.md and docs/ingest.md.',
      },
    );
  }
  const cfg: VaultConfig = parsed.data;
  cfg.index.exclude = cfg.index.exclude.map((p) => normalizeVaultPath(p.replace(/\/+$/, '')));
  cfg.captures_folder = normalizeVaultPath(cfg.captures_folder.replace(/\/+$/, ''));
  // A bad glob is refused now, with the key that holds it, not at the first write it fails to guard.
  cfg.areas.forEach((a, n) => compiledGlob(a.glob, `.vaultgate/config.yaml: areas.${n}.glob`));
  // operation scopes: a bad glob is refused here too (case-sensitive: a scope grants writes)
  for (const [type, op] of Object.entries(cfg.operations)) {
    op.paths = op.paths.map((g, n) => compilePathGlob(g, `.vaultgate/config.yaml: operations.${type}.paths.${n}`, 'CONFIG_INVALID').glob);
  }
  const folder = (p: string) => normalizeVaultPath(p.replace(/\/+$/, ''));
  cfg.ingest.drop_folder = folder(cfg.ingest.drop_folder);
  cfg.ingest.captured_folder = folder(cfg.ingest.captured_folder);
  if (cfg.ingest.index_note !== null) cfg.ingest.index_note = normalizeVaultPath(cfg.ingest.index_note);
  if (cfg.ingest.log_note !== null) cfg.ingest.log_note = normalizeVaultPath(cfg.ingest.log_note);
  return cfg;
}

const globCache = new Map<string, PathGlob>();
function compiledGlob(glob: string, where = '.vaultgate/config.yaml: areas'): PathGlob {
  let g = globCache.get(glob);
  if (!g) {
    g = compilePathGlob(glob, where, 'CONFIG_INVALID', { caseInsensitive: true });
    globCache.set(glob, g);
  }
  return g;
}

/** The first area rule whose glob matches the path (first match wins), or null. */
export function areaRuleFor(cfg: VaultConfig, rel: string): AreaRule | null {
  for (const a of cfg.areas) if (compiledGlob(a.glob).test(rel)) return a;
  return null;
}

/**
 * Whether a vault path is not indexed: under one of the excluded folders (or one of
 * the excluded files), or in an area with `index: false`.
 */
export function isExcluded(cfg: VaultConfig, rel: string): boolean {
  const lower = rel.toLowerCase();
  const excluded = cfg.index.exclude.some((ex) => {
    const e = ex.toLowerCase();
    return lower === e || lower.startsWith(e + '/');
  });
  return excluded || (cfg.areas.length > 0 && areaRuleFor(cfg, rel)?.index === false);
}

/**
 * Everything that decides {@link isExcluded}, as one string: the index compares it
 * with the value it stored and re-resolves every link when it changes.
 */
export function exclusionKey(cfg: VaultConfig): string {
  // Rules with index: true matter too: first match wins, so they shadow later ones.
  const areas = cfg.areas.some((a) => !a.index) ? cfg.areas.map((a) => [a.glob, a.index]) : [];
  return JSON.stringify(areas.length ? { exclude: cfg.index.exclude, areas } : cfg.index.exclude);
}
