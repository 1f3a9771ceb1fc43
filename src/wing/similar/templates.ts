import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../../index/index.js';

/**
 * Notes that are templates — scaffolding for new notes, not content — are
 * never offered as similar notes: every note made from a template shares its
 * headings, properties and links, so templates would top every list. A note
 * is a template when it lies in the vault's templates folder (the core
 * Templates plugin's `.obsidian/templates.json` `folder`, Templater's
 * `templates_folder`, else a top-level `Templates/`, Obsidian's usual name for
 * it), or when it holds template placeholders (`{{date}}`, `{{title}}`,
 * `<% tp.… %>`; in frontmatter, `created: {{date}}` shows up as a
 * NON_SCALAR_KEY YAML error in the index).
 */
const PLACEHOLDER = /\{\{\s*(?:date|time|title)\b[^}]*\}\}|<%[-_*~]?\s*tp\./i;

export function templateFolders(root: string): string[] {
  const folders = new Set<string>();
  const read = (rel: string, key: string) => {
    try {
      const v = (JSON.parse(fs.readFileSync(path.join(root, rel), 'utf8')) as Record<string, unknown>)[key];
      if (typeof v === 'string' && v.trim() !== '') folders.add(v.trim().replace(/^\/+|\/+$/g, ''));
    } catch {
      // absent or unreadable: not configured
    }
  };
  read('.obsidian/templates.json', 'folder');
  read('.obsidian/plugins/templater-obsidian/data.json', 'templates_folder');
  if (folders.size === 0) folders.add('Templates');
  return [...folders];
}

export function templateNotes(db: Db, root: string): Set<string> {
  const folders = templateFolders(root).map((f) => f.toLowerCase() + '/');
  const out = new Set<string>();
  for (const r of db.prepare(`SELECT path, frontmatter_error FROM files WHERE kind = 'note'`).iterate() as Iterable<{ path: string; frontmatter_error: string | null }>) {
    if (folders.some((f) => r.path.toLowerCase().startsWith(f)) || r.frontmatter_error?.includes('NON_SCALAR_KEY')) out.add(r.path);
  }
  for (const r of db.prepare(`SELECT DISTINCT f.path FROM sections s JOIN files f ON f.id = s.file_id WHERE f.kind = 'note' AND (s.text LIKE '%{{%' OR s.text LIKE '%<\\%%' ESCAPE '\\')`).iterate() as Iterable<{ path: string }>) {
    if (!out.has(r.path)) {
      const texts = db.prepare('SELECT s.text FROM sections s JOIN files f ON f.id = s.file_id WHERE f.path = ?').pluck().all(r.path) as string[];
      if (texts.some((t) => PLACEHOLDER.test(t))) out.add(r.path);
    }
  }
  return out;
}
