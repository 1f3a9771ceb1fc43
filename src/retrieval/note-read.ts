import { VaultgateError } from '../errors.js';
import { readNoteArg, resolveSubpath, stripHeading, headingKey } from '../links/index.js';
import { parseNote } from '../markdown/index.js';
import { anchorOf } from './section-rows.js';

/**
 * `vaultgate note PATH [--heading H]`: the note (or one section of it) read from
 * disk now, with the hash of the bytes and the section map. Read straight from the
 * file rather than from the index so the text and the hash are one read of the same
 * bytes: an agent that later proposes an edit cites exactly this `sha256`.
 */

export interface NoteSectionInfo {
  heading_path: string[];
  anchor: string | null;
  level: number;
  lines: [number, number];
  /** Characters (UTF-16 units) of the section's text. */
  chars: number;
}

export interface NoteReadResult {
  path: string;
  sha256: string;
  /** Size of the file in bytes. */
  size: number;
  /** The whole note, or the requested section (heading line included, subsections included). */
  text: string;
  /** Lines of `text` in the note, 1-based inclusive. */
  lines: [number, number];
  heading_path: string[] | null;
  anchor: string | null;
  sections: NoteSectionInfo[];
  frontmatter: { data: unknown; error: unknown } | null;
}

export function readNoteSection(root: string, input: string, heading?: string): NoteReadResult {
  // `note Projects/Idea` means `Projects/Idea.md` (added once the path is normalised).
  const file = readNoteArg(root, input, { impliedMd: true });
  const model = parseNote(file.text);
  const sections: NoteSectionInfo[] = model.sections.map((s) => ({
    heading_path: s.headingPath,
    anchor: anchorOf(s.headingPath),
    level: s.heading?.level ?? 0,
    lines: [s.startLine, s.endLine],
    chars: s.range.end - s.range.start,
  }));
  const base = {
    path: file.path,
    sha256: file.sha256,
    size: file.size,
    sections,
    frontmatter: model.frontmatter ? { data: model.frontmatter.data, error: model.frontmatter.error } : null,
  };
  if (heading === undefined) {
    return { ...base, text: file.text, lines: [1, model.lineStarts.length], heading_path: null, anchor: null };
  }
  const subpath = heading.replace(/^#/, '');
  const found = resolveSubpath(model, subpath);
  if (!found || !found.exists || !found.lines) {
    const known = model.headings.map((h) => h.text);
    throw new VaultgateError('HEADING_NOT_FOUND', `${file.path} has no heading ${JSON.stringify(heading)}`, {
      path: file.path,
      details: { headings: known.slice(0, 50) },
      hint: 'Headings are matched as Obsidian does (case and punctuation ignored); nested ones as `Parent#Child`. See `sections` of `vaultgate note PATH`.',
    });
  }
  const [startLine, endLine] = found.lines;
  const start = model.lineStarts[startLine - 1] ?? 0;
  const end = endLine < model.lineStarts.length ? model.lineStarts[endLine]! : file.text.length;
  const want = headingKey(subpath.split('#').filter(Boolean).pop() ?? '');
  const section = model.sections.find((s) => s.startLine === startLine && s.heading && headingKey(stripHeading(s.heading.text)) === want);
  const headingPath = section?.headingPath ?? null;
  return {
    ...base,
    text: file.text.slice(start, end),
    lines: [startLine, endLine],
    heading_path: headingPath,
    anchor: headingPath ? anchorOf(headingPath) : '#' + subpath,
  };
}
