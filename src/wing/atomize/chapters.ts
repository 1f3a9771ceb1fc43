import fs from 'node:fs';
import { VaultgateError } from '../../errors.js';
import { parseNote } from '../../markdown/index.js';
import { formatTsv, parseTsv } from './tsv.js';
import { files, type Work } from './work.js';

/**
 * Chapters: the source cut at its headings of level 1 and 2 (deeper headings
 * stay inside their chapter), the lines before the first heading a chapter of
 * their own. A chapter marked `narrative` (GM advice, an example of play) is
 * connected prose: its lines never become entity notes, and the map of content
 * links to its heading instead. `chapters.tsv` is the person's to edit: only
 * the `narrative` column is read back (yes/no).
 */
export interface Chapter {
  id: string;
  heading: string;
  level: number;
  /** 1-based, inclusive; the heading line is the first. */
  start_line: number;
  end_line: number;
  narrative: boolean;
}

export const CHAPTER_COLUMNS = ['id', 'heading', 'level', 'start_line', 'end_line', 'narrative'] as const;
export const CHAPTER_LEVEL = 2;

export function splitChapters(text: string): Chapter[] {
  const model = parseNote(text);
  const lineCount = model.lineStarts.length;
  const fm = model.frontmatter;
  const bodyStart = fm ? fm.endLine + 1 : 1;
  const heads = model.headings.filter((h) => h.level <= CHAPTER_LEVEL);
  const out: Chapter[] = [];
  const firstHead = heads[0]?.startLine ?? lineCount + 1;
  const lines = text.split(/\r?\n/);
  if (lines.slice(bodyStart - 1, firstHead - 1).some((l) => l.trim() !== '')) {
    out.push({ id: '', heading: '', level: 0, start_line: bodyStart, end_line: firstHead - 1, narrative: false });
  }
  heads.forEach((h, i) => {
    const end = (heads[i + 1]?.startLine ?? lineCount + 1) - 1;
    out.push({ id: '', heading: h.text, level: h.level, start_line: h.startLine, end_line: end, narrative: false });
  });
  // a trailing newline makes one empty last line: not part of any chapter's text
  const last = out[out.length - 1];
  if (last && last.end_line > lines.length) last.end_line = lines.length;
  out.forEach((c, i) => (c.id = `ch${String(i + 1).padStart(3, '0')}`));
  return out;
}

/** Mark the chapters `--narrative` names (heading text, case-insensitive); an unknown name is a USAGE error listing the headings. */
export function markNarrative(chapters: Chapter[], names: readonly string[]): void {
  for (const name of names) {
    const key = name.trim().toLowerCase();
    const hit = chapters.filter((c) => c.heading.trim().toLowerCase() === key);
    if (hit.length === 0) {
      throw new VaultgateError('USAGE', `--narrative ${JSON.stringify(name)} names no chapter heading of the source`, {
        details: { param: 'narrative', headings: chapters.map((c) => c.heading).filter(Boolean) },
        hint: `Give a level-1 or level-2 heading as written: ${chapters.map((c) => JSON.stringify(c.heading)).filter((h) => h !== '""').slice(0, 20).join(', ')}.`,
      });
    }
    for (const c of hit) c.narrative = true;
  }
}

export function formatChapters(chapters: readonly Chapter[]): string {
  return formatTsv(
    CHAPTER_COLUMNS,
    chapters.map((c) => ({ id: c.id, heading: c.heading, level: String(c.level), start_line: String(c.start_line), end_line: String(c.end_line), narrative: c.narrative ? 'yes' : 'no' })),
  );
}

/** chapters.tsv as the person left it: the cut comes from the source, `narrative` from the file. */
export function readChapters(work: Work): Chapter[] {
  const file = files(work.dir).chapters;
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch {
    throw new VaultgateError('ATOMIZE_WORK_MISSING', `${file} is missing`, { hint: 'Run `vaultgate atomize init SOURCE --work DIR` again.' });
  }
  const t = parseTsv(text);
  const col = (name: string) => t.header.indexOf(name);
  for (const name of CHAPTER_COLUMNS) {
    if (col(name) < 0) throw new VaultgateError('ATOMIZE_WORK_MISSING', `${file} has no column ${JSON.stringify(name)}`, { hint: 'Run `vaultgate atomize init SOURCE --work DIR` again to rewrite it.' });
  }
  return t.rows.map((r) => {
    const cell = (name: string) => r.cells[col(name)] ?? '';
    const narrative = cell('narrative').trim().toLowerCase();
    if (!['yes', 'no', 'true', 'false', ''].includes(narrative)) {
      throw new VaultgateError('USAGE', `${file} line ${r.line}: narrative is ${JSON.stringify(cell('narrative'))}, not yes or no`, { details: { line: r.line }, hint: 'Write yes or no in the narrative column.' });
    }
    return {
      id: cell('id'),
      heading: cell('heading'),
      level: Number(cell('level')),
      start_line: Number(cell('start_line')),
      end_line: Number(cell('end_line')),
      narrative: narrative === 'yes' || narrative === 'true',
    };
  });
}
