import fs from 'node:fs';
import path from 'node:path';
import type { Db } from '../../index/index.js';
import { notesFingerprint } from './notes-fingerprint.js';
import { getMeta, setMeta, type VectorDb } from './vector-store.js';

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

/**
 * The notes that are templates. Which notes hold placeholders is a scan of
 * every section's text (~33 MB at 10k notes): it is kept in the vector
 * store's meta with the fingerprint of the index's notes it was found in
 * (notes-fingerprint.ts), and scanned again only when that changes. The folders and frontmatter errors are read every time
 * (one small query).
 */
export function templateNotes(db: Db, root: string, store?: VectorDb): Set<string> {
  const folders = templateFolders(root).map((f) => f.toLowerCase() + '/');
  const out = new Set<string>();
  // Without template folders only notes with a frontmatter error can be templates: those rows, not all 10k.
  const sql = `SELECT path, frontmatter_error FROM files WHERE kind = 'note'${folders.length === 0 ? ' AND frontmatter_error IS NOT NULL' : ''}`;
  for (const r of db.prepare(sql).iterate() as Iterable<{ path: string; frontmatter_error: string | null }>) {
    if (folders.some((f) => r.path.toLowerCase().startsWith(f)) || r.frontmatter_error?.includes('NON_SCALAR_KEY')) out.add(r.path);
  }
  const fingerprint = notesFingerprint(db);
  const cached = store ? getMeta(store, PLACEHOLDER_META) : null;
  let placeholders: string[];
  if (cached && (JSON.parse(cached) as { fingerprint: string }).fingerprint === fingerprint) {
    placeholders = (JSON.parse(cached) as { paths: string[] }).paths;
  } else {
    placeholders = placeholderNotes(db);
    if (store) setMeta(store, PLACEHOLDER_META, JSON.stringify({ fingerprint, paths: placeholders }));
  }
  for (const p of placeholders) out.add(p);
  return out;
}

/** Meta key of the notes that hold template placeholders, with the fingerprint they were found at. */
const PLACEHOLDER_META = 'template_placeholders';

/** Notes whose text holds a template placeholder: a LIKE over every section, then the pattern on the notes it finds. */
function placeholderNotes(db: Db): string[] {
  const out: string[] = [];
  const texts = db.prepare('SELECT s.text FROM sections s JOIN files f ON f.id = s.file_id WHERE f.path = ?').pluck();
  for (const r of db.prepare(`SELECT DISTINCT f.path FROM sections s JOIN files f ON f.id = s.file_id WHERE f.kind = 'note' AND (s.text LIKE '%{{%' OR s.text LIKE '%<\\%%' ESCAPE '\\')`).iterate() as Iterable<{ path: string }>) {
    if ((texts.all(r.path) as string[]).some((t) => PLACEHOLDER.test(t))) out.push(r.path);
  }
  return out.sort();
}
