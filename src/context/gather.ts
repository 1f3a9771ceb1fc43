import { anchorOf, bestSectionInNote, parseQuery, searchIndex, type Db, type SearchHit } from '../index/index.js';
import type { LinkResolution } from '../links/index.js';
import type { Candidate } from './fit-budget.js';

/**
 * Where evidence comes from, read from the index: the best sections for each query,
 * and the sections one link away from those.
 */

function fromHit(hit: SearchHit, reason: string): Candidate {
  return {
    sectionId: hit.section_id,
    path: hit.path,
    heading_path: hit.heading_path,
    anchor: hit.anchor,
    lines: hit.lines,
    part: hit.part,
    sha256: hit.sha256,
    text: hit.text,
    reason,
    score: hit.score,
  };
}

/** The best sections (one per note) for a query, each with the reason it was chosen. */
export function queryCandidates(
  db: Db,
  query: string,
  label: string,
  limit: number,
  scope: string[] | undefined,
): { candidates: Candidate[]; searchable: boolean } {
  const r = searchIndex(db, query, { limit, pathPrefixes: scope });
  return {
    candidates: r.hits.map((h, i) => fromHit(h, `${h.match === 'text' ? 'best match' : `${h.match} match`} for ${label} (#${i + 1})`)),
    searchable: parseQuery(query).match !== null,
  };
}

interface LinkRow {
  raw: string;
  target: string;
  resolution: string;
}

interface SectionRow {
  id: number;
  path: string;
  sha256: string;
  heading_path: string;
  start_line: number;
  end_line: number;
  part: number;
  parts: number;
  text: string;
}

const SECTION_COLUMNS = 's.id, f.path, f.sha256, s.heading_path, s.start_line, s.end_line, s.part, s.parts, s.text';

function toCandidate(row: SectionRow, reason: string, score: number): Candidate {
  const headingPath = JSON.parse(row.heading_path) as string[];
  return {
    sectionId: row.id,
    path: row.path,
    heading_path: headingPath,
    anchor: anchorOf(headingPath),
    lines: [row.start_line, row.end_line],
    part: row.parts > 1 ? [row.part, row.parts] : null,
    sha256: row.sha256,
    text: row.text,
    reason,
    score,
  };
}

/**
 * Sections reached by one hop of links from `sources`, in source order then link
 * order. A link naming a heading or block leads to the section holding it; a link to
 * a whole note leads to that note's best section for the question, else its first.
 * Only resolved links into indexed notes are followed; attachments are not evidence.
 */
export function linkedCandidates(db: Db, sources: Candidate[], question: string, exclude: Set<number>, scope: string[] | undefined): Candidate[] {
  const linksOf = db.prepare(
    `SELECT l.raw, l.target, l.resolution FROM links l JOIN sections s ON s.file_id = l.file_id
     WHERE s.id = ? AND l.start_line BETWEEN s.start_line AND s.end_line
       AND l.status = 'resolved' AND l.external = 0 AND l.target LIKE '%.md'
     ORDER BY l.ord`,
  );
  const sectionAt = db.prepare(
    `SELECT ${SECTION_COLUMNS} FROM sections s JOIN files f ON f.id = s.file_id
     WHERE f.path = ? AND f.kind = 'note' AND s.start_line <= ? ORDER BY s.start_line DESC LIMIT 1`,
  );
  const firstSection = db.prepare(
    `SELECT ${SECTION_COLUMNS} FROM sections s JOIN files f ON f.id = s.file_id WHERE f.path = ? AND f.kind = 'note' ORDER BY s.idx LIMIT 1`,
  );
  const inScope = (p: string) => scope === undefined || scope.some((prefix) => p.startsWith(prefix));
  const out: Candidate[] = [];
  const seen = new Set(exclude);
  for (const source of sources) {
    for (const link of linksOf.all(source.sectionId) as LinkRow[]) {
      if (!inScope(link.target)) continue;
      const r = JSON.parse(link.resolution) as LinkResolution;
      const via = `linked from ${source.path}${source.anchor ?? ''} via ${link.raw}`;
      let c: Candidate | null = null;
      if (r.subpath?.exists && r.subpath.lines) {
        const row = sectionAt.get(link.target, r.subpath.lines.startLine) as SectionRow | undefined;
        if (row) c = toCandidate(row, via, 0);
      } else {
        const best = bestSectionInNote(db, question, link.target);
        if (best) c = fromHit(best, via);
        else {
          const row = firstSection.get(link.target) as SectionRow | undefined;
          if (row) c = toCandidate(row, via, 0);
        }
      }
      if (c && !seen.has(c.sectionId)) {
        seen.add(c.sectionId);
        out.push(c);
      }
    }
  }
  return out;
}
