import fs from 'node:fs';
import path from 'node:path';
import { checkDraft, prepareSource } from '../../markdown/verbatim.js';
import { ownLines } from '../../markdown/own-lines.js';
import { files, readSource, type Work } from './work.js';

/**
 * `atomize check --work DIR`: every draft sentence that is not word for word in
 * the source (markdown/verbatim.ts: links read as their display text,
 * whitespace folded), with its note and line. Frontmatter, headings and the
 * `Source:` line are not claims and are not checked.
 */
export interface CheckResult {
  notes: number;
  sentences: number;
  verbatim: number;
  novel: { note: string; line: number; text: string }[];
}

/** Draft files under DIR/notes, relative, sorted. */
export function draftNotes(work: Work): string[] {
  const dir = files(work.dir).notes;
  const out: string[] = [];
  const walk = (abs: string, rel: string) => {
    let entries: fs.Dirent[];
    try {
      entries = fs.readdirSync(abs, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      if (e.name.startsWith('.')) continue;
      const r = rel ? `${rel}/${e.name}` : e.name;
      if (e.isDirectory()) walk(path.join(abs, e.name), r);
      else if (e.isFile() && /\.md$/i.test(e.name)) out.push(r);
    }
  };
  walk(dir, '');
  return out.sort();
}

export function atomizeCheck(work: Work): CheckResult {
  const source = prepareSource(readSource(work));
  const result: CheckResult = { notes: 0, sentences: 0, verbatim: 0, novel: [] };
  for (const note of draftNotes(work)) {
    const text = fs.readFileSync(path.join(files(work.dir).notes, note), 'utf8');
    const r = checkDraft(source, text, { skipLines: ownLines(text) });
    result.notes++;
    result.sentences += r.sentences;
    result.verbatim += r.verbatim;
    for (const n of r.novel) result.novel.push({ note, line: n.line, text: n.text });
  }
  return result;
}
