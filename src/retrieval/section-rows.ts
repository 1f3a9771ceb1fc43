import { stripHeading } from '../links/index.js';

/**
 * A section as read queries select it: the `sections` row joined with its file.
 * Search hits and context evidence are both built from it, so a section is
 * located (path, heading path, anchor, lines, part, file hash) one way only.
 */
export interface SectionRow {
  id: number;
  file_id: number;
  path: string;
  sha256: string;
  heading_path: string;
  start_line: number;
  end_line: number;
  part: number;
  parts: number;
  text: string;
}

/** The select list for {@link SectionRow}: `FROM sections s JOIN files f ON f.id = s.file_id`. */
export const SECTION_COLUMNS = 's.id, s.file_id, f.path, f.sha256, s.heading_path, s.start_line, s.end_line, s.part, s.parts, s.text';

/** Where a section is, as every read output cites it. */
export interface LocatedSection {
  /** @internal Section row id, for context packets. */
  section_id: number;
  path: string;
  heading_path: string[];
  /** Link subpath to the section (`#Heading#Sub`, as Obsidian writes it), or null for the part before the first heading. */
  anchor: string | null;
  /** 1-based inclusive line span. */
  lines: [number, number];
  /** `[k, n]`: part k of an oversized section split into n at paragraph boundaries; null when whole. */
  part: [number, number] | null;
  /** SHA-256 of the whole file's bytes when it was indexed. */
  sha256: string;
  /** @internal The section's source text, for context packets. */
  text: string;
}

/** `#A#B` for a heading path, each part stripped as Obsidian writes heading links. */
export function anchorOf(headingPath: string[]): string | null {
  if (headingPath.length === 0) return null;
  return '#' + headingPath.map(stripHeading).join('#');
}

export function locateSection(row: SectionRow): LocatedSection {
  const headingPath = JSON.parse(row.heading_path) as string[];
  return {
    section_id: row.id,
    path: row.path,
    heading_path: headingPath,
    anchor: anchorOf(headingPath),
    lines: [row.start_line, row.end_line],
    part: row.parts > 1 ? [row.part, row.parts] : null,
    sha256: row.sha256,
    text: row.text,
  };
}
