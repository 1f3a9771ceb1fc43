import { VaultgateError } from '../errors.js';
import { compilePathGlob, filesystemFoldKey, type PathGlob, type VaultConfig } from '../vault/index.js';
import { pathsOf, WRITE_MODES, type BundleWrite, type WriteMode } from './bundle-schema.js';

/**
 * Operation types are write scopes (DESIGN §5.1): each may touch only its kind of
 * file. The table is data so the policy module can add scopes from config without
 * touching the engine: a rule names the modes it allows, which files it matches,
 * and optionally a folder (literal, or a vault-config key) it is confined to.
 */
export interface ScopeRule {
  description: string;
  modes: readonly WriteMode[];
  files: 'markdown' | 'non-markdown' | 'any';
  /** Confine to a folder: a literal vault path, or `{config: 'captures_folder'}`. */
  under?: string | { config: 'captures_folder' };
  /** Confine to these vault-relative globs (a configured type: `operations.<type>.paths`). */
  paths?: readonly string[];
}

export type ScopeTable = Readonly<Record<string, ScopeRule>>;

const ALL: readonly WriteMode[] = WRITE_MODES;

export const DEFAULT_SCOPES: ScopeTable = {
  note: { description: 'Markdown notes anywhere outside reserved folders', modes: ALL, files: 'markdown' },
  attachment: { description: 'non-Markdown files (images, PDFs, canvases)', modes: ALL, files: 'non-markdown' },
  capture: {
    description: 'create-only, under the configured captures folder (or the captured folder of ingest)',
    modes: ['create'],
    files: 'any',
    under: { config: 'captures_folder' },
  },
  generic: { description: 'any file outside reserved folders', modes: ALL, files: 'any' },
};

export interface ScopeContext {
  captures_folder: string;
  /** The vault's configured types (`operations` in config.yaml), when the caller has the vault config. */
  operations?: VaultConfig['operations'];
  /** Content-addressed captures land here (ingest.captured_folder): the built-in `capture` may write it too. */
  ingest?: Pick<VaultConfig['ingest'], 'captured_folder'>;
}

/**
 * The scope table of a vault: the built-in types with the configured ones
 * (`operations` in .vaultgate/config.yaml) added, a configured type replacing
 * a built-in one of the same name.
 */
export function scopeTableFor(ctx: ScopeContext): ScopeTable {
  const ops = ctx.operations ?? {};
  if (Object.keys(ops).length === 0) return DEFAULT_SCOPES;
  const table: Record<string, ScopeRule> = { ...DEFAULT_SCOPES };
  for (const [type, op] of Object.entries(ops)) {
    table[type] = {
      description: op.description ?? `configured in .vaultgate/config.yaml`,
      modes: op.create_only ? ['create'] : ALL,
      files: op.files,
      paths: op.paths,
    };
  }
  return table;
}

const globCache = new Map<string, PathGlob>();
function glob(g: string): PathGlob {
  let c = globCache.get(g);
  if (!c) {
    c = compilePathGlob(g, '.vaultgate/config.yaml: operations', 'CONFIG_INVALID');
    globCache.set(g, c);
  }
  return c;
}

const isMarkdown = (p: string) => p.toLowerCase().endsWith('.md');

/**
 * Refuse an unknown type (exit 2) or any write outside the type's scope (exit 77).
 * Without a table given, the vault's own ({@link scopeTableFor} of `ctx`).
 */
export function checkScope(type: string, writes: readonly BundleWrite[], ctx: ScopeContext, table: ScopeTable = scopeTableFor(ctx)): void {
  const rule = Object.hasOwn(table, type) ? table[type] : undefined;
  if (!rule) {
    throw new VaultgateError('BUNDLE_INVALID', `unknown operation_type ${JSON.stringify(type)}`, {
      details: { expected: Object.keys(table), actual: type },
      hint: `Use one of: ${Object.keys(table).join(', ')}.`,
    });
  }
  const captured = type === 'capture' ? ctx.ingest?.captured_folder : undefined;
  const folders = rule.under === undefined ? [] : [typeof rule.under === 'string' ? rule.under : ctx[rule.under.config], ...(captured === undefined ? [] : [captured])];
  const allowed = rule.paths ?? (folders.length > 0 ? folders.map((f) => `${f}/**`) : null);
  const out = (p: string, why: string) =>
    new VaultgateError('OUT_OF_SCOPE', `${p}: ${why} (operation type ${type}: ${rule.description}${allowed ? `; allowed paths: ${allowed.join(', ')}` : ''}${rule.modes.length === 1 ? '; create-only' : ''})`, {
      path: p,
      details: { operation_type: type, path: p, allowed_paths: allowed, create_only: rule.modes.length === 1 && rule.modes[0] === 'create', files: rule.files },
      hint: 'Nothing was written. Choose the operation type whose scope holds these files (`operations` in .vaultgate/config.yaml), or split the change by type.',
    });
  for (const w of writes) {
    if (!rule.modes.includes(w.mode)) throw out(w.path, `mode ${w.mode} is not allowed`);
    for (const p of pathsOf(w)) {
      if (rule.paths !== undefined && !rule.paths.some((g) => glob(g).test(p))) throw out(p, 'outside the allowed paths');
      if (rule.files === 'markdown' && !isMarkdown(p)) throw out(p, 'not a Markdown note');
      if (rule.files === 'non-markdown' && isMarkdown(p)) throw out(p, 'a Markdown note is not an attachment');
      if (rule.under !== undefined) {
        // the filesystem fold: on a case-insensitive disk `INBOX/` is the captures folder `Inbox/`
        const inside = (f: string) => filesystemFoldKey(p).startsWith(filesystemFoldKey(f) + '/');
        if (!folders.some(inside)) throw out(p, `outside ${folders.map((f) => `${f}/`).join(' and ')}`);
      }
    }
  }
}
