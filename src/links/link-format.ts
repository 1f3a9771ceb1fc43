import fs from 'node:fs';
import path from 'node:path';
import { DEFAULT_LINK_FORMAT, type LinkFormat } from './link-text.js';

/**
 * The vault's link settings from `.obsidian/app.json` (`newLinkFormat`,
 * `useMarkdownLinks`), as Obsidian uses them for new links. A missing file or
 * key means Obsidian's default; an unreadable file or an unknown value is
 * reported as a warning and the default used — the link is checked by
 * resolving it either way.
 */
export function readLinkFormat(root: string): { format: LinkFormat; warnings: string[] } {
  const file = path.join(root, '.obsidian', 'app.json');
  let raw: unknown;
  try {
    raw = JSON.parse(fs.readFileSync(file, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT') return { format: DEFAULT_LINK_FORMAT, warnings: [] };
    return { format: DEFAULT_LINK_FORMAT, warnings: [`.obsidian/app.json is not readable JSON (${(e as Error).message}); using Obsidian's default link format`] };
  }
  const warnings: string[] = [];
  const o = (raw && typeof raw === 'object' ? raw : {}) as Record<string, unknown>;
  let newLinkFormat = DEFAULT_LINK_FORMAT.newLinkFormat;
  if (o.newLinkFormat !== undefined) {
    if (o.newLinkFormat === 'shortest' || o.newLinkFormat === 'relative' || o.newLinkFormat === 'absolute') newLinkFormat = o.newLinkFormat;
    else warnings.push(`.obsidian/app.json: newLinkFormat ${JSON.stringify(o.newLinkFormat)} is unknown; using "shortest"`);
  }
  let useMarkdownLinks = DEFAULT_LINK_FORMAT.useMarkdownLinks;
  if (o.useMarkdownLinks !== undefined) {
    if (typeof o.useMarkdownLinks === 'boolean') useMarkdownLinks = o.useMarkdownLinks;
    else warnings.push(`.obsidian/app.json: useMarkdownLinks ${JSON.stringify(o.useMarkdownLinks)} is not a boolean; using wikilinks`);
  }
  return { format: { newLinkFormat, useMarkdownLinks }, warnings };
}
