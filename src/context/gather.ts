import { SECTION_BITS, type Db } from '../index/index.js';
import {
  DEFAULT_RANKING_PROFILE,
  SECTION_COLUMNS,
  bestSectionInNote,
  locateSection,
  parseQuery,
  rankedNotes,
  sectionAtLine,
  type LocatedSection,
  type RankingProfile,
  type SectionRow,
} from '../retrieval/index.js';
import type { LinkResolution } from '../links/index.js';
import type { Candidate } from './fit-budget.js';
import type { CandidateQuery } from './types.js';

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

/**
 * The best sections for a query, each with the reason it was chosen, ordered by
 * section score: the sections of the `limit` best notes (each note's best, and
 * its runners-up, within the profile's `context` numbers), each scored by its own BM25
 * and anchors times its note's coverage of the query. So a note may contribute
 * several sections in a row, and the note's next-best section can come before
 * another note's best one (issue 9: "all best sections, then all next-best" put
 * the answering section at positions 6–11). Exact title and alias matches lead.
 */
export function queryCandidates(db: Db, ask: CandidateQuery): { candidates: Candidate[]; searchable: boolean } {
  const { query, label, limit, scope, profile = DEFAULT_RANKING_PROFILE } = ask;
  const r = rankedNotes(db, query, { limit, paths: scope, profile }, profile.context.sectionsPerNote);
  const ranked: { c: Candidate; lead: boolean }[] = [];
  r.notes.forEach((n, i) => {
    const [best, ...rest] = n.sections;
    if (!best) return;
    const why = n.match === 'text' ? 'best match' : `${n.match} match`;
    ranked.push({ c: candidateOf(best, `${why} for ${label} (#${i + 1})`, best.score), lead: n.match !== 'text' });
    for (const s of rest) {
      if (s.score >= profile.context.nextSectionRatio * best.score) ranked.push({ c: candidateOf(s, `next match for ${label} in #${i + 1}`, s.score), lead: false });
    }
  });
  // Stable: equal scores keep note order.
  ranked.sort((a, b) => Number(b.lead) - Number(a.lead) || b.c.score - a.c.score);
  const parsed = parseQuery(query);
  return { candidates: ranked.map((x) => x.c), searchable: parsed.match !== null || parsed.bigrams !== null };
}

/** What {@link linkedCandidates} looks for, one hop from its sources. */
export interface LinkedQuery {
  /** The words a linked note's best section is chosen by. */
  question: string;
  /** Sections already taken: never offered again. */
  exclude: Set<number>;
  /** As {@link CandidateQuery.scope}. */
  scope: string[] | undefined;
  /** At most this many candidates (default: every one). */
  want?: number;
  profile?: RankingProfile;
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
 * At most `want` candidates are built (each costs a query).
 */
export function linkedCandidates(db: Db, sources: Candidate[], ask: LinkedQuery): Candidate[] {
  const { question, exclude, scope, want = Infinity, profile = DEFAULT_RANKING_PROFILE } = ask;
  const linksOf = db.prepare(
    `SELECT l.raw, l.target, l.resolution FROM links l JOIN sections s ON s.file_id = l.file_id
     WHERE s.id = ? AND l.start_line BETWEEN s.start_line AND s.end_line
       AND l.status = 'resolved' AND l.external = 0 AND l.target LIKE '%.md'
     ORDER BY l.ord`,
  );
  // A note's first section with words of its own (else its first): what a link to the
  // whole note shows. Sections are found by the note's id range (schema.ts): there is
  // no index on sections.file_id.
  const firstSection = db.prepare(
    `SELECT ${SECTION_COLUMNS} FROM files f JOIN sections s ON s.id BETWEEN f.id * ${2 ** SECTION_BITS} AND f.id * ${2 ** SECTION_BITS} + ${2 ** SECTION_BITS - 1}
     WHERE f.path = ? AND f.kind = 'note' ORDER BY s.empty, s.id LIMIT 1`,
  );
  const allowed = scope && new Set(scope);
  const inScope = (p: string) => allowed === undefined || allowed.has(p);
  const out: Candidate[] = [];
  const seen = new Set(exclude);
  for (const source of sources) {
    for (const link of linksOf.all(source.sectionId) as LinkRow[]) {
      // Each candidate costs a query: stop once there are enough to fill the packet's links.
      if (out.length >= want) return out;
      if (!inScope(link.target)) continue;
      const r = JSON.parse(link.resolution) as LinkResolution;
      const via = `linked from ${source.path}${source.anchor ?? ''} via ${link.raw}`;
      let c: Candidate | null = null;
      if (r.subpath?.exists && r.subpath.lines) {
        const at = sectionAtLine(db, link.target, r.subpath.lines[0], question, profile);
        if (at) c = candidateOf(at, via, 0);
      } else {
        const best = bestSectionInNote(db, question, link.target, { profile });
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
