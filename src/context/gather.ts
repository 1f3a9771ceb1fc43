import { SECTION_COLUMNS, bestSectionInNote, locateSection, parseQuery, searchIndex, type Db, type LocatedSection, type SectionRow } from '../index/index.js';
import type { LinkResolution } from '../links/index.js';
import type { Candidate } from './fit-budget.js';

/**
 * Where evidence comes from, read from the index: the best sections for each query,
 * and the sections one link away from those.
 */

function candidateOf(section: LocatedSection, reason: string, score: number): Candidate {
  return {
    sectionId: section.section_id,
    path: section.path,
    heading_path: section.heading_path,
    anchor: section.anchor,
    lines: section.lines,
    part: section.part,
    sha256: section.sha256,
    text: section.text,
    reason,
    score,
  };
}

/** A note's second section joins the evidence when its score is at least this share of the note's best. */
const NEXT_SECTION_RATIO = 0.5;

/**
 * The best sections for a query (one per note, then runners-up), each with the
 * reason it was chosen. `scope`: the only notes that may be evidence (a
 * scenario's areas, as exact paths); undefined = the whole vault.
 */
export function queryCandidates(
  db: Db,
  query: string,
  label: string,
  limit: number,
  scope: string[] | undefined,
): { candidates: Candidate[]; searchable: boolean } {
  const r = searchIndex(db, query, { limit, paths: scope });
  const candidates = r.hits.map((h, i) => candidateOf(h, `${h.match === 'text' ? 'best match' : `${h.match} match`} for ${label} (#${i + 1})`, h.score));
  // Then each note's next-best section, when it scores at least half as well as the
  // best: the note is often right while its best section is a sibling of the one that
  // answers (eval, dev split: context section recall 0.70 → 0.79, note recall unchanged).
  // They come after every note's best section, so a tight budget keeps notes first.
  r.hits.forEach((h, i) => {
    const first = bestSectionInNote(db, query, h.path);
    const next = first && bestSectionInNote(db, query, h.path, [h.section_id, first.section_id]);
    if (next && next.score >= NEXT_SECTION_RATIO * first.score) candidates.push(candidateOf(next, `next match for ${label} in #${i + 1}`, next.score));
  });
  return {
    candidates,
    searchable: parseQuery(query).match !== null,
  };
}

interface LinkRow {
  raw: string;
  target: string;
  resolution: string;
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
  const allowed = scope && new Set(scope);
  const inScope = (p: string) => allowed === undefined || allowed.has(p);
  const out: Candidate[] = [];
  const seen = new Set(exclude);
  for (const source of sources) {
    for (const link of linksOf.all(source.sectionId) as LinkRow[]) {
      if (!inScope(link.target)) continue;
      const r = JSON.parse(link.resolution) as LinkResolution;
      const via = `linked from ${source.path}${source.anchor ?? ''} via ${link.raw}`;
      let c: Candidate | null = null;
      if (r.subpath?.exists && r.subpath.lines) {
        const row = sectionAt.get(link.target, r.subpath.lines[0]) as SectionRow | undefined;
        if (row) c = candidateOf(locateSection(row), via, 0);
      } else {
        const best = bestSectionInNote(db, question, link.target);
        if (best) c = candidateOf(best, via, best.score);
        else {
          const row = firstSection.get(link.target) as SectionRow | undefined;
          if (row) c = candidateOf(locateSection(row), via, 0);
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
