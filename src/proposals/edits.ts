import { VaultgateError } from '../errors.js';
import { headingKey } from '../links/index.js';
import { parseNote, type Heading, type NoteModel } from '../markdown/index.js';
import { tagged } from './request-field.js';

/**
 * The edit forms agents already use, each turned into the exact new text of the
 * note (issue #8 §1): exact or refuse. Every function takes the note's text as
 * read (a leading U+FEFF stands for its byte-order mark, kept as it is) and
 * returns the whole new text.
 */

const BOM = '\ufeff';

function splitBom(text: string): { bom: string; body: string } {
  return text.startsWith(BOM) ? { bom: BOM, body: text.slice(1) } : { bom: '', body: text };
}

/** The note's line ending: CRLF when its first line break is one, else LF. */
export function lineEnding(text: string): string {
  const i = text.indexOf('\n');
  return i > 0 && text[i - 1] === '\r' ? '\r\n' : '\n';
}

/** Occurrences of `needle` in `text`, overlapping ones included (`aa` is twice in `aaa`). */
export function countOccurrences(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i !== -1; i = text.indexOf(needle, i + 1)) n++;
  return n;
}

/** A `replace` request (`--replace OLD --with NEW`): OLD must occur exactly once (overlaps count), else refused with the count. */
export function replaceOnce(path: string, text: string, oldText: string, newText: string): string {
  if (oldText === '') {
    throw tagged('replace', new VaultgateError('USAGE', 'the text to replace is empty', { hint: 'Give the exact text to replace as it is in the note (`vaultgate note PATH` shows it).' }));
  }
  const { bom, body } = splitBom(text);
  const count = countOccurrences(body, oldText);
  if (count === 0) {
    throw new VaultgateError('EDIT_NO_MATCH', `${path} does not contain the text to replace`, {
      path,
      details: { count },
      hint: 'Copy the text exactly from `vaultgate note PATH` (line endings and spaces included), or send the full new text.',
    });
  }
  if (count > 1) {
    throw new VaultgateError('EDIT_AMBIGUOUS', `the text to replace occurs ${count} times in ${path}; it must occur exactly once`, {
      path,
      details: { count },
      hint: 'Include more of the surrounding text so it occurs once, or send the full new text.',
    });
  }
  const at = body.indexOf(oldText);
  return bom + body.slice(0, at) + newText + body.slice(at + oldText.length);
}

/** `--append-file F`: the content at the end of the note, on a line of its own. */
export function appendToNote(text: string, content: string): string {
  const sep = text === '' || text === BOM || text.endsWith('\n') ? '' : lineEnding(text);
  return text + sep + content;
}

/** A heading path as the CLI takes it: `Heading > Sub > Deeper`. */
export function parseHeadingPath(input: string): string[] {
  const segments = input.split(' > ').map((s) => s.trim().replace(/^#+\s*/, ''));
  if (segments.some((s) => s === '')) {
    throw new VaultgateError('USAGE', `heading path ${JSON.stringify(input)} has an empty part`, {
      hint: 'Write nested headings as `Heading > Sub` (the heading texts, without `#`).',
    });
  }
  return segments;
}

interface SectionSpan {
  heading: Heading;
  /** Where the body starts: the line after the heading. */
  bodyStart: number;
  /** Where the section ends: the next heading of the same or a higher level, or the end of the note. */
  end: number;
}

/**
 * Every section the heading path names: each segment matches (as Obsidian
 * compares headings) a heading inside the previous match's section. All matches
 * are collected, not the first: two `## Notes` make `Notes` ambiguous, refused.
 */
function findSections(path: string, body: string, segments: string[]): SectionSpan {
  const model = parseNote(body);
  const hs = model.headings;
  const sectionEnd = (i: number) => {
    for (let j = i + 1; j < hs.length; j++) if (hs[j]!.level <= hs[i]!.level) return j;
    return hs.length;
  };
  let scopes: Array<{ from: number; to: number }> = [{ from: 0, to: hs.length }];
  let matches: number[] = [];
  for (const seg of segments) {
    const want = headingKey(seg);
    matches = [];
    for (const s of scopes) for (let i = s.from; i < s.to; i++) if (headingKey(hs[i]!.text) === want) matches.push(i);
    scopes = matches.map((i) => ({ from: i + 1, to: sectionEnd(i) }));
  }
  const unique = [...new Set(matches)];
  const shown = segments.join(' > ');
  if (unique.length === 0) {
    throw new VaultgateError('HEADING_NOT_FOUND', `${path} has no section ${JSON.stringify(shown)}`, {
      path,
      details: { headings: hs.slice(0, 50).map((h) => h.text) },
      hint: 'Headings are matched as Obsidian does (case and punctuation ignored); nest them as `Heading > Sub`. `vaultgate note PATH` lists the sections.',
    });
  }
  if (unique.length > 1) {
    throw new VaultgateError('EDIT_AMBIGUOUS', `${path} has ${unique.length} sections ${JSON.stringify(shown)}; the heading path must name exactly one`, {
      path,
      details: { count: unique.length, lines: unique.map((i) => hs[i]!.startLine) },
      hint: 'Name the parent heading too (`Parent > Heading`), or send the full new text.',
    });
  }
  const i = unique[0]!;
  const h = hs[i]!;
  const lineEnd = body.indexOf('\n', h.range.end);
  const bodyStart = lineEnd === -1 ? body.length : lineEnd + 1;
  const next = sectionEnd(i);
  return { heading: h, bodyStart, end: next < hs.length ? hs[next]!.range.start : body.length };
}

/** Make `content` end a line when more text follows it. */
function asLines(content: string, followed: boolean, eol: string): string {
  return followed && content !== '' && !content.endsWith('\n') ? content + eol : content;
}

/** A section body cut into its leading blank lines, its text, and its trailing blank lines. */
function splitBody(body: string, from: number, to: number): { textStart: number; textEnd: number } {
  const part = body.slice(from, to);
  const lead = /^(?:[ \t]*\r?\n)*/.exec(part)![0].length;
  // a body of blank lines only: the text goes right under the heading
  if (lead === part.length || /^\s*$/.test(part)) return { textStart: from, textEnd: from };
  const trail = /(?:\r?\n[ \t]*)*$/.exec(part)![0];
  // keep the line break that ends the last text line with the text
  const lastBreak = trail.search(/\r?\n/);
  const keep = lastBreak < 0 ? trail.length : lastBreak + (trail[lastBreak] === '\r' ? 2 : 1);
  return { textStart: from + lead, textEnd: to - trail.length + keep };
}

/**
 * `--section "Heading > Sub" --content-file F`: replace the section's text —
 * everything after its heading line up to the next heading of the same or a
 * higher level (subsections included, as `vaultgate note --heading` shows it),
 * except the blank lines right after the heading and right before the next
 * heading, which stay as they are. The heading line itself stays.
 */
export function replaceSection(path: string, text: string, headingPath: string, content: string): string {
  const { bom, body } = splitBom(text);
  const s = findSections(path, body, parseHeadingPath(headingPath));
  const eol = lineEnding(body);
  // a heading on the note's last line without a line break gets one before its new body
  const headBreak = s.bodyStart === body.length && !body.endsWith('\n') && content !== '' ? eol : '';
  const { textStart, textEnd } = splitBody(body, s.bodyStart, s.end);
  return bom + body.slice(0, textStart) + headBreak + asLines(content, textEnd < body.length, eol) + body.slice(textEnd);
}

/**
 * `--append-to-section "Heading" --content-file F`: the text right after the
 * section's last non-blank line (before the blank lines that precede its next
 * sibling heading). Start it with a blank line for a new paragraph.
 */
export function appendToSection(path: string, text: string, headingPath: string, content: string): string {
  const { bom, body } = splitBom(text);
  const s = findSections(path, body, parseHeadingPath(headingPath));
  const eol = lineEnding(body);
  const at = splitBody(body, s.bodyStart, s.end).textEnd;
  const before = body.slice(0, at);
  const sep = before === '' || before.endsWith('\n') ? '' : eol;
  return bom + before + sep + asLines(content, at < body.length, eol) + body.slice(at);
}

/**
 * `--rename-heading NOTE "Old" "New"`: the note with one heading's text
 * replaced (its level, markers and everything else as written). The heading
 * path must name exactly one heading; the new text must be one line, and must
 * not read (as Obsidian compares headings) like another heading of the note:
 * links to that one would then open the renamed one, or the other way round.
 */
export function renameHeading(path: string, text: string, headingPath: string, newHeading: string): { text: string; index: number; before: NoteModel } {
  const { bom, body } = splitBom(text);
  const s = findSections(path, body, parseHeadingPath(headingPath));
  const next = newHeading.trim();
  if (next === '' || /[\r\n]/.test(next)) {
    throw tagged('to', new VaultgateError('USAGE', `the new heading must be one non-empty line, not ${JSON.stringify(newHeading)}`, { hint: 'Give the new heading text, without `#`.' }));
  }
  const before = parseNote(body);
  const index = before.headings.findIndex((h) => h.range.start === s.heading.range.start);
  const clash = before.headings.find((h, i) => i !== index && headingKey(h.text) === headingKey(next));
  if (clash) {
    throw tagged('to', new VaultgateError('EDIT_AMBIGUOUS', `${path} already has a heading ${JSON.stringify(clash.text)} (line ${clash.startLine}) that reads like ${JSON.stringify(next)}; links to either would open the first`, {
      path,
      details: { line: clash.startLine, heading: clash.text },
      hint: 'Choose a heading text that differs from the note’s other headings (case and punctuation are ignored).',
    }));
  }
  const h = s.heading;
  return { text: bom + body.slice(0, h.textRange.start) + next + body.slice(h.textRange.end), index, before };
}
