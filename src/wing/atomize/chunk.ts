import fs from 'node:fs';
import { VaultgateError } from '../../errors.js';
import { lineBlocks, parseNote, type LineKind } from '../../markdown/index.js';
import { readChapters, type Chapter } from './chapters.js';
import { formatTsv, parseTsv } from './tsv.js';
import { files, nowIso, readSource, saveState, sha256, writeAtomic, type Work } from './work.js';

/**
 * Chunks: what one model call reads. Cut inside a chapter only, at block
 * boundaries only: a paragraph, a table, a list, a code block, a quote (a
 * callout) is one unit, never split; units are packed up to `max_chars`, and a
 * unit longer than that is a chunk of its own. Each chunk carries the sha256
 * of its text: extract's progress is keyed by it, so a re-cut that leaves a
 * chunk's text as it was does not ask the model again.
 */
export interface Chunk {
  id: string;
  chapter: string;
  start_line: number;
  end_line: number;
  chars: number;
  sha256: string;
  narrative: boolean;
}

export const CHUNK_COLUMNS = ['id', 'chapter', 'start_line', 'end_line', 'chars', 'sha256', 'narrative'] as const;
export const DEFAULT_MAX_CHARS = 4000;

/** A run of lines that must stay together. */
interface Unit {
  start: number;
  end: number;
  chars: number;
}

export function cutChunks(text: string, chapters: readonly Chapter[], maxChars: number): Chunk[] {
  const model = parseNote(text);
  const { kinds } = lineBlocks(text, model);
  const lines = text.split(/\r?\n/);
  const out: Chunk[] = [];
  for (const ch of chapters) {
    const units = unitsOf(kinds, lines, ch.start_line, ch.end_line);
    let cur: Unit | null = null;
    const flush = () => {
      if (!cur) return;
      const body = lines.slice(cur.start - 1, cur.end).join('\n');
      out.push({ id: '', chapter: ch.id, start_line: cur.start, end_line: cur.end, chars: body.length, sha256: sha256(body), narrative: ch.narrative });
      cur = null;
    };
    // a chapter that is only its heading gives the model nothing to read
    if (units.every((u) => u.start === u.end && kinds[u.start - 1] === 'heading')) continue;
    for (const u of units) {
      if (cur && cur.chars + u.chars > maxChars) flush();
      if (!cur) cur = { ...u };
      else cur = { start: cur.start, end: u.end, chars: cur.chars + u.chars };
    }
    flush();
  }
  out.forEach((c, i) => (c.id = `c${String(i + 1).padStart(4, '0')}`));
  return out;
}

/** Units of one chapter: runs of lines of one block kind (a paragraph's lines, a table, a list…); blank lines separate. */
function unitsOf(kinds: readonly LineKind[], lines: readonly string[], from: number, to: number): Unit[] {
  const units: Unit[] = [];
  let l = from;
  while (l <= to) {
    const kind = kinds[l - 1] ?? 'blank';
    if (kind === 'blank') {
      l++;
      continue;
    }
    let e = l;
    // a heading is its own unit but is glued to what follows (a chunk never ends on a heading)
    if (kind !== 'heading' && kind !== 'thematic') while (e + 1 <= to && kinds[e] === kind) e++;
    let chars = 0;
    for (let i = l; i <= e; i++) chars += (lines[i - 1] ?? '').length + 1;
    units.push({ start: l, end: e, chars });
    l = e + 1;
  }
  // glue headings to the unit after them
  const glued: Unit[] = [];
  const isHead = units.map((u) => kinds[u.start - 1] === 'heading' || kinds[u.start - 1] === 'thematic');
  for (let i = 0; i < units.length; i++) {
    const u = units[i]!;
    const next = units[i + 1];
    if (isHead[i] && next) {
      units[i + 1] = { start: u.start, end: next.end, chars: u.chars + next.chars };
      continue;
    }
    glued.push(u);
  }
  return glued;
}

export function chunkText(source: string, c: Pick<Chunk, 'start_line' | 'end_line'>): string {
  return source.split(/\r?\n/).slice(c.start_line - 1, c.end_line).join('\n');
}

export interface ChunkResult {
  chunks: number;
  max_chars: number;
  chapters: number;
  narrative_chunks: number;
  largest: number;
}

/** `atomize chunk --work DIR [--max-chars N]`. */
export function atomizeChunk(work: Work, maxChars: number = DEFAULT_MAX_CHARS): ChunkResult {
  const text = readSource(work);
  const chapters = readChapters(work);
  const chunks = cutChunks(text, chapters, maxChars);
  writeAtomic(
    files(work.dir).chunks,
    formatTsv(
      CHUNK_COLUMNS,
      chunks.map((c) => ({ id: c.id, chapter: c.chapter, start_line: String(c.start_line), end_line: String(c.end_line), chars: String(c.chars), sha256: c.sha256, narrative: c.narrative ? 'yes' : 'no' })),
    ),
  );
  work.state.chunk = { max_chars: maxChars, chunks: chunks.length, at: nowIso() };
  saveState(work);
  return { chunks: chunks.length, max_chars: maxChars, chapters: chapters.length, narrative_chunks: chunks.filter((c) => c.narrative).length, largest: Math.max(0, ...chunks.map((c) => c.chars)) };
}

/** chunks.tsv, or ATOMIZE_NOT_READY when chunk has not run since init. */
export function readChunks(work: Work): Chunk[] {
  let text: string;
  try {
    text = fs.readFileSync(files(work.dir).chunks, 'utf8');
  } catch {
    throw new VaultgateError('ATOMIZE_NOT_READY', 'the source has not been cut into chunks since `atomize init`', { hint: 'Run `vaultgate atomize chunk --work DIR` first.' });
  }
  const t = parseTsv(text);
  const col = (n: string) => t.header.indexOf(n);
  return t.rows.map((r) => ({
    id: r.cells[col('id')] ?? '',
    chapter: r.cells[col('chapter')] ?? '',
    start_line: Number(r.cells[col('start_line')]),
    end_line: Number(r.cells[col('end_line')]),
    chars: Number(r.cells[col('chars')]),
    sha256: r.cells[col('sha256')] ?? '',
    narrative: r.cells[col('narrative')] === 'yes',
  }));
}
