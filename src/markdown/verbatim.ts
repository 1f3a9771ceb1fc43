/**
 * Verbatim checking: is every sentence of a draft word for word in its source?
 *
 * Notes cut from a book (atomize) and notes filed from a captured source
 * (ingest) are extractive: a sentence that is not in the source is a
 * paraphrase or an invention, and a word-overlap score does not catch either.
 * So both sides are reduced to the text a reader sees — a link becomes its
 * display text, an embed disappears, emphasis and code markers go, runs of
 * whitespace become one space — and each draft sentence must occur in the
 * source as a substring. Sentences are cut by Intl.Segmenter, which knows
 * abbreviations and non-Latin scripts better than a full-stop regex.
 *
 * What is not a claim is never checked: frontmatter, headings, block ids and
 * lines the caller marks as its own (a `Source:` line, a map of content).
 */
import { parseWikilinkInner, scanMarkdownLinks, scanWikilinks, splitImageAlt } from './link-parts.js';

/** Link text as the reader sees it: `[[a/b#H|c]]` → `c`, `[[a/b#H]]` → `a/b#H`, `![[x]]` → nothing. */
export function linksToText(text: string): string {
  const wikis = scanWikilinks(text, 0, text.length);
  let out = replaceHits(text, wikis, (h) => {
    if (h.embed) return '';
    const parts = parseWikilinkInner(h.inner, false);
    if (parts.display !== null) return parts.display;
    return parts.subpath === null ? parts.path : `${parts.path}${parts.subpath}`;
  });
  const mds = scanMarkdownLinks(out, 0, out.length);
  out = replaceHits(out, mds, (h) => (h.image ? splitImageAlt(h.label).display ?? '' : h.label));
  return out;
}

function replaceHits<H extends { start: number; end: number }>(text: string, hits: H[], by: (hit: H) => string): string {
  if (hits.length === 0) return text;
  let out = '';
  let at = 0;
  for (const h of hits) {
    out += text.slice(at, h.start) + by(h);
    at = h.end;
  }
  return out + text.slice(at);
}

/** `**b**`, `*i*`, `_i_`, `~~s~~`, `==h==`, `` `c` `` markers; the words stay. */
const EMPHASIS = /\*\*|__|~~|==|[*`]|(?<![\p{L}\p{N}])_|_(?![\p{L}\p{N}])/gu;
/** Leading list, quote, task and table markers a line may carry in either text. */
const LINE_MARKERS = /^\s*(?:>\s*)*(?:[-*+]\s+(?:\[.\]\s+)?|\d+[.)]\s+)?/;
/** An Obsidian block id at a line's end (`^rule-3`). */
const BLOCK_ID = /\s\^[A-Za-z0-9-]+\s*$/;

/**
 * The comparable form of one line or sentence: reader-visible text, markers
 * gone, whitespace folded, curly quotes and dashes kept (they are the
 * author's). Case is kept: a changed capital is a changed sentence.
 */
export function normalizeForVerbatim(text: string): string {
  return linksToText(text)
    .split('\n')
    .map((line) => line.replace(BLOCK_ID, '').replace(LINE_MARKERS, '').replace(/\|/g, ' '))
    .join(' ')
    .replace(EMPHASIS, '')
    .replace(/\s+/g, ' ')
    .trim();
}

let sentenceSegmenter: Intl.Segmenter | undefined;

/** Sentences of already-normalized text; pieces with no letter or digit are dropped. */
export function splitSentences(text: string): string[] {
  sentenceSegmenter ??= new Intl.Segmenter('en', { granularity: 'sentence' });
  const out: string[] = [];
  for (const { segment } of sentenceSegmenter.segment(text)) {
    const s = segment.trim();
    if (/[\p{L}\p{N}]/u.test(s)) out.push(s);
  }
  return out;
}

/** The source, prepared once for many drafts. */
export interface VerbatimSource {
  /** The source's reader-visible text on one line. */
  readonly text: string;
}

export function prepareSource(markdown: string): VerbatimSource {
  return { text: normalizeForVerbatim(stripFrontmatter(markdown)) };
}

export function isVerbatim(source: VerbatimSource, sentence: string): boolean {
  const s = normalizeForVerbatim(sentence);
  return s === '' || source.text.includes(s);
}

export interface NovelSentence {
  /** 1-based line of the draft the sentence starts on. */
  line: number;
  text: string;
}

export interface VerbatimReport {
  sentences: number;
  verbatim: number;
  novel: NovelSentence[];
}

export interface CheckDraftOptions {
  /** Lines (1-based) the caller wrote itself and that are not claims, e.g. a `Source:` line. */
  skipLines?: ReadonlySet<number>;
  /** Lines matching this are not claims either (checked on the raw line). */
  skipLine?: (line: string) => boolean;
}

/**
 * Every sentence of `draft` not found verbatim in `source`. Frontmatter,
 * headings, fenced-code fences, thematic breaks and skipped lines are not
 * checked; a paragraph is checked sentence by sentence, so one invented
 * sentence among copied ones is reported alone.
 */
export function checkDraft(source: VerbatimSource, draft: string, options: CheckDraftOptions = {}): VerbatimReport {
  const lines = draft.split(/\r?\n/);
  let i = frontmatterEnd(lines);
  const report: VerbatimReport = { sentences: 0, verbatim: 0, novel: [] };
  // A paragraph runs over consecutive claim lines; sentences may cross lines.
  let para: { line: number; text: string }[] = [];
  const flush = (): void => {
    if (para.length === 0) return;
    const joined = para.map((p) => p.text).join('\n');
    const normalized = normalizeForVerbatim(joined);
    for (const sentence of splitSentences(normalized)) {
      report.sentences += 1;
      if (source.text.includes(sentence)) {
        report.verbatim += 1;
      } else {
        report.novel.push({ line: lineOfSentence(para, sentence), text: sentence });
      }
    }
    para = [];
  };
  for (; i < lines.length; i++) {
    const raw = lines[i] ?? '';
    const lineNo = i + 1;
    if (raw.trim() === '' || isStructural(raw) || options.skipLines?.has(lineNo) || options.skipLine?.(raw)) {
      flush();
      continue;
    }
    // A list item or table row starts its own claim.
    if (LINE_MARKERS.exec(raw)?.[0].trim() || raw.trimStart().startsWith('|')) flush();
    para.push({ line: lineNo, text: raw });
  }
  flush();
  return report;
}

/** The paragraph line whose normalized text holds the sentence's first words. */
function lineOfSentence(para: { line: number; text: string }[], sentence: string): number {
  const head = sentence.split(' ').slice(0, 3).join(' ');
  for (const p of para) {
    if (normalizeForVerbatim(p.text).includes(head)) return p.line;
  }
  return para[0]?.line ?? 1;
}

function isStructural(line: string): boolean {
  const t = line.trim();
  return /^#{1,6}(\s|$)/.test(t) || /^(```|~~~)/.test(t) || /^([-*_])(\s*\1){2,}$/.test(t) || /^\|?[\s:|-]+\|[\s:|-]*$/.test(t) || /^%%.*%%$/.test(t);
}

function frontmatterEnd(lines: string[]): number {
  if (lines[0]?.trim() !== '---') return 0;
  for (let i = 1; i < lines.length; i++) {
    const t = lines[i]?.trim();
    if (t === '---' || t === '...') return i + 1;
  }
  return 0;
}

function stripFrontmatter(markdown: string): string {
  const lines = markdown.split(/\r?\n/);
  return lines.slice(frontmatterEnd(lines)).join('\n');
}
