import { VaultgateError } from '../errors.js';
import { filesystemFoldKey } from '../vault/index.js';
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
}

export type ScopeTable = Readonly<Record<string, ScopeRule>>;

const ALL: readonly WriteMode[] = WRITE_MODES;

export const DEFAULT_SCOPES: ScopeTable = {
  note: { description: 'Markdown notes anywhere outside reserved folders', modes: ALL, files: 'markdown' },
  attachment: { description: 'non-Markdown files (images, PDFs, canvases)', modes: ALL, files: 'non-markdown' },
  capture: {
    description: 'create-only, under the configured captures folder',
    modes: ['create'],
    files: 'any',
    under: { config: 'captures_folder' },
  },
  generic: { description: 'any file outside reserved folders', modes: ALL, files: 'any' },
};

export interface ScopeContext {
  captures_folder: string;
}

const isMarkdown = (p: string) => p.toLowerCase().endsWith('.md');

/** Refuse an unknown type (exit 2) or any write outside the type's scope (exit 77). */
export function checkScope(type: string, writes: BundleWrite[], ctx: ScopeContext, table: ScopeTable = DEFAULT_SCOPES): void {
  const rule = Object.hasOwn(table, type) ? table[type] : undefined;
  if (!rule) {
    throw new VaultgateError('BUNDLE_INVALID', `unknown operation_type ${JSON.stringify(type)}`, {
      details: { expected: Object.keys(table), actual: type },
      hint: `Use one of: ${Object.keys(table).join(', ')}.`,
    });
  }
  const out = (p: string, why: string) =>
    new VaultgateError('OUT_OF_SCOPE', `${p}: ${why} (operation_type ${type}: ${rule.description})`, {
      path: p,
      hint: 'Choose the operation_type that matches the files, or split the bundle by type.',
    });
  for (const w of writes) {
    if (!rule.modes.includes(w.mode)) throw out(w.path, `mode ${w.mode} is not allowed`);
    for (const p of pathsOf(w)) {
      if (rule.files === 'markdown' && !isMarkdown(p)) throw out(p, 'not a Markdown note');
      if (rule.files === 'non-markdown' && isMarkdown(p)) throw out(p, 'a Markdown note is not an attachment');
      if (rule.under !== undefined) {
        const folder = typeof rule.under === 'string' ? rule.under : ctx[rule.under.config];
        // the filesystem fold: on a case-insensitive disk `INBOX/` is the captures folder `Inbox/`
        if (!filesystemFoldKey(p).startsWith(filesystemFoldKey(folder) + '/')) throw out(p, `outside ${folder}/`);
      }
    }
  }
}
