import type { Db } from './db.js';
import { NOTE_SLOT, sectionId, sectionRange } from './schema.js';
import { indexText } from './text-pipeline.js';

/**
 * Anchor text: how other notes describe a note or one of its sections, in their
 * own words. The display text and subpath of every resolved link into a note
 * (`[[Catan rules#The robber|what a 7 does]]`, `[rolling a seven](Catan%20rules.md#the-robber)`)
 * is indexed in `anchors_fts` — at the section the link names, or at the note's
 * own row ({@link NOTE_SLOT}) when it names the whole note, which also holds the
 * string values of the note's frontmatter (description, aliases, tags…). Web search engines have ranked pages by
 * the text of links into them since the 1990s; a note is the same.
 *
 * Anchor rows depend on other notes, so a refresh rebuilds the rows of every
 * note whose incoming links may have changed ({@link rebuildAnchors}): the
 * targets of the links of each deleted, changed or added note (before and after),
 * the targets of every link whose resolution changed, and the notes themselves
 * that were (re)inserted. Self-links are not anchors: a note does not describe
 * itself to others.
 */

/** Source characters of anchor text kept per row: a hub linked 5000 times is not described 5000 times over. */
export const MAX_ANCHOR_CHARS = 4000;
/** The same phrase counts at most this often in one row (repetition is evidence, up to a point). */
const MAX_PHRASE_REPEATS = 3;

interface IncomingLink {
  target: string;
  display: string | null;
  subpath: string | null;
  /** First line of the heading or block the link names, when it names one that exists. */
  line: number | null;
}

interface SectionSpan {
  id: number;
  start_line: number;
  end_line: number;
  level: number;
  empty: number;
}

/** Targets of a file's resolved links, read before the file's rows are deleted or replaced. */
export function linkTargetsOf(db: Db, fileId: number): string[] {
  return db.prepare(`SELECT DISTINCT target FROM links WHERE file_id = ? AND status = 'resolved' AND target IS NOT NULL`).pluck().all(fileId) as string[];
}

/** What a link says about its target: its display text and the heading it names (a block id says nothing). */
function phraseOf(link: IncomingLink): string {
  const heading = link.subpath && !link.subpath.startsWith('^') ? link.subpath.replace(/#/g, ' ') : '';
  return [link.display ?? '', heading].filter((s) => s.trim() !== '').join(' ');
}

/**
 * The section a heading or block link lands in: the one holding the named line.
 * A heading whose content is all in subsections (an empty section) passes its
 * anchor text to the first subsection that has words.
 */
function landingSection(spans: SectionSpan[], line: number): number | null {
  let k = spans.findIndex((s) => s.start_line <= line && line <= s.end_line);
  if (k < 0) return null;
  const top = spans[k]!;
  while (spans[k]?.empty === 1 && k + 1 < spans.length && spans[k + 1]!.level > top.level) k++;
  return spans[k]!.id;
}

/** Phrases joined for one row: each at most {@link MAX_PHRASE_REPEATS} times, within {@link MAX_ANCHOR_CHARS}. */
function joinPhrases(phrases: string[]): string {
  const seen = new Map<string, number>();
  const kept: string[] = [];
  let chars = 0;
  for (const p of phrases) {
    const n = (seen.get(p) ?? 0) + 1;
    seen.set(p, n);
    if (n > MAX_PHRASE_REPEATS || chars + p.length > MAX_ANCHOR_CHARS) continue;
    kept.push(p);
    chars += p.length + 1;
  }
  return kept.join('\n');
}

/**
 * Links into other notes that say something (a display text or a subpath),
 * ordered by target then source, so a row's text does not depend on the order in
 * which notes were indexed: a refresh and a rebuild write the same rows.
 */
const INCOMING = `SELECT l.target, l.display, l.subpath, json_extract(l.resolution, '$.subpath.lines[0]') AS line
  FROM links l JOIN files s ON s.id = l.file_id
  WHERE l.status = 'resolved' AND l.external = 0 AND (l.display IS NOT NULL OR l.subpath IS NOT NULL) AND l.target != s.path`;

/**
 * Rebuild the anchor rows of the notes at `paths` (every note when `paths` is
 * 'all'). Returns how many notes were rebuilt. Notes no longer indexed are
 * skipped: their rows went with their sections.
 */
export function rebuildAnchors(db: Db, paths: Set<string> | 'all', pageSize = ANCHOR_PAGE): number {
  const ftsInsert = db.prepare('INSERT INTO anchors_fts(rowid, text) VALUES (?, ?)');
  const rowInsert = db.prepare('INSERT INTO anchor_rows(id) VALUES (?)');
  const insert = { run: (id: number, text: string) => (ftsInsert.run(id, text), rowInsert.run(id)) };
  const spansOf = db.prepare('SELECT id, start_line, end_line, level, empty FROM sections WHERE id BETWEEN ? AND ? ORDER BY id');
  const linksInto = db.prepare(`${INCOMING} AND l.target IN (SELECT value FROM json_each(?)) ORDER BY l.target, s.path, l.ord`);
  const build = (targets: Target[]) => buildRows(targets, linksInto.all(JSON.stringify(targets.map((t) => t.path))) as IncomingLink[], spansOf, insert);
  if (paths === 'all') {
    db.prepare(`INSERT INTO anchors_fts(anchors_fts) VALUES ('delete-all')`).run();
    db.prepare('DELETE FROM anchor_rows').run();
    // In pages of notes, in id order: at 100k notes, every incoming link and every
    // note held at once came to ~150 MB of the cold index's peak memory.
    const page = db.prepare(`SELECT id, path, description FROM files WHERE kind = 'note' AND id > ? ORDER BY id LIMIT ?`);
    let built = 0;
    for (let last = -1; ; ) {
      const targets = page.all(last, pageSize) as Target[];
      if (targets.length === 0) break;
      last = targets[targets.length - 1]!.id;
      built += build(targets);
    }
    return built;
  }
  const byPath = db.prepare(`SELECT id, path, description FROM files WHERE path = ? AND kind = 'note'`);
  const targets = [...paths].sort().flatMap((p) => (byPath.get(p) as Target | undefined) ?? []);
  // Exact rowids (anchor_rows): a rowid range in a contentless FTS5 table is slow.
  const rows = db.prepare('DELETE FROM anchor_rows WHERE id BETWEEN ? AND ? RETURNING id').pluck();
  const clear = db.prepare('DELETE FROM anchors_fts WHERE rowid = ?');
  for (const t of targets) for (const id of rows.all(...sectionRange(t.id)) as number[]) clear.run(id);
  build(targets);
  return targets.length;
}

interface Target {
  id: number;
  path: string;
  description: string | null;
}

/** Notes whose anchor rows a full rebuild builds at once. */
const ANCHOR_PAGE = 2000;

/**
 * Write the anchor rows of `targets` from `links` (the links into them, ordered by
 * target, source path and position); returns how many targets had anything to say.
 */
function buildRows(
  targets: Target[],
  links: IncomingLink[],
  spansOf: { all: (lo: number, hi: number) => unknown[] },
  insert: { run: (id: number, text: string) => unknown },
): number {
  const byTarget = new Map<string, IncomingLink[]>();
  for (const l of links) {
    const list = byTarget.get(l.target);
    if (list) list.push(l);
    else byTarget.set(l.target, [l]);
  }
  let built = 0;
  for (const t of targets) {
    if (t.description !== null || byTarget.has(t.path)) built++;
    const [lo, hi] = sectionRange(t.id);
    const bySection = new Map<number, string[]>();
    const whole: string[] = t.description ? [t.description] : [];
    let spans: SectionSpan[] | null = null;
    for (const link of byTarget.get(t.path) ?? []) {
      const phrase = phraseOf(link);
      if (phrase === '') continue;
      if (link.subpath === null || link.line === null) {
        whole.push(indexText(phrase));
        continue;
      }
      spans ??= spansOf.all(lo, hi) as SectionSpan[];
      const id = landingSection(spans, link.line);
      if (id === null) continue;
      const list = bySection.get(id);
      if (list) list.push(indexText(phrase));
      else bySection.set(id, [indexText(phrase)]);
    }
    // The description is stored as tokens already: FTS5 only splits them at spaces.
    if (whole.length > 0) insert.run(sectionId(t.id, NOTE_SLOT), joinPhrases(whole));
    for (const [id, phrases] of bySection) insert.run(id, joinPhrases(phrases));
  }
  return built;
}
