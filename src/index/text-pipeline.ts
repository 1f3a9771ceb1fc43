import { stemmer as stemEnglish } from '@orama/stemmers/english';
import { stemmer as stemRussian } from '@orama/stemmers/russian';

/**
 * The text pipeline that turns note text (and query text) into the tokens FTS5
 * sees. better-sqlite3 cannot register a tokenizer written in JS, so the index
 * stores pre-processed text and FTS5's own `unicode61` tokenizer merely splits it
 * on spaces again (dependencies.md §15):
 *
 *   "Заметки о Ёлке, engines 全文搜索"
 *     → NFKC, lowercase, ё→е   "заметки о елке, engines 全文搜索"
 *     → words (CJK by Intl.Segmenter, one line at a time)
 *                               заметки о елке engines 全文 搜索
 *     → stems (ru / en)         заметк о елк engin 全文 搜索
 *
 * The same function runs on the query side, so both sides always agree.
 */

/** Tokens longer than this are noise (base64, hashes, minified code) and are not indexed. */
export const MAX_TOKEN_CHARS = 48;

/**
 * Lines longer than this are cut into pieces before segmentation: Intl.Segmenter
 * is superlinear on long input (95k chars of Chinese took 6.5 s in one call).
 */
const MAX_SEGMENT_CHARS = 1000;

const CYRILLIC = /^[\u0400-\u04FF]+$/;
const LATIN = /^[a-z\u00C0-\u024F]+$/;
const LATIN_DIACRITIC = /[\u00C0-\u024F]/;
/** `data:` URIs (inline base64 images) carry no words, only megabytes of noise. */
const DATA_URI = /data:[a-z0-9.+-]+\/[a-z0-9.+-]+[;,][^\s)"'\]]*/g;
const WORD_CHAR = /^[\p{L}\p{N}\p{M}]$/u;

/**
 * Character classes of the BMP, filled in on first sight: 1 word character,
 * 2 separator, 3 CJK (word character handed to the segmenter). A hand-written
 * scanner with this table is ~3× faster than a `\p{L}` regex over the text, and
 * the table costs nothing at start-up (a CLI process starts for every search).
 */
const WORD = 1;
const SEP = 2;
const CJK_CHAR = 3;
const classes = new Uint8Array(0x10000);

function isCjk(c: number): boolean {
  return (
    (c >= 0x3040 && c <= 0x30ff) || // Hiragana, Katakana
    (c >= 0x3400 && c <= 0x4dbf) || // CJK Extension A
    (c >= 0x4e00 && c <= 0x9fff) || // CJK Unified Ideographs
    (c >= 0xac00 && c <= 0xd7af) || // Hangul syllables
    (c >= 0x1100 && c <= 0x11ff) || // Hangul Jamo
    (c >= 0xf900 && c <= 0xfaff) || // CJK Compatibility Ideographs
    (c >= 0x31f0 && c <= 0x31ff) // Katakana extension
  );
}

function classOf(c: number): number {
  let k = classes[c]!;
  if (k === 0) {
    k = isCjk(c) ? CJK_CHAR : c >= 0xd800 && c <= 0xdfff ? WORD : WORD_CHAR.test(String.fromCharCode(c)) ? WORD : SEP;
    classes[c] = k;
  }
  return k;
}

let segmenter: Intl.Segmenter | undefined;

/** NFKC, lower case, ё→е (FTS5's unicode61 does not fold ё; Russian writers mostly omit it). */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/ё/g, 'е');
}

function pushWord(out: string[], word: string): void {
  if (word.length <= MAX_TOKEN_CHARS) out.push(word);
}

/** Split a run of CJK characters into dictionary words, in bounded pieces. */
function segmentCjk(run: string, out: string[]): void {
  segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
  for (let i = 0; i < run.length; i += MAX_SEGMENT_CHARS) {
    for (const s of segmenter.segment(run.slice(i, i + MAX_SEGMENT_CHARS))) if (s.isWordLike) pushWord(out, s.segment);
  }
}

/**
 * Words of already-normalized text, in order: runs of letters, digits and marks
 * (what FTS5's unicode61 calls tokens), with runs of CJK characters split into
 * dictionary words by Intl.Segmenter. Surrogate pairs count as word characters.
 */
export function lineWords(text: string, out: string[] = []): string[] {
  const clean = text.includes('data:') ? text.replace(DATA_URI, ' ') : text;
  const n = clean.length;
  let i = 0;
  while (i < n) {
    let k = classOf(clean.charCodeAt(i));
    if (k === SEP) {
      i++;
      continue;
    }
    const start = i;
    if (k === CJK_CHAR) {
      while (i < n && classOf(clean.charCodeAt(i)) === CJK_CHAR) i++;
      segmentCjk(clean.slice(start, i), out);
      continue;
    }
    while (i < n && (k = classOf(clean.charCodeAt(i))) === WORD) i++;
    pushWord(out, clean.slice(start, i));
  }
  return out;
}

const stemCache = new Map<string, string>();
const STEM_CACHE_LIMIT = 200_000;

/**
 * Stem one normalized word: Cyrillic with the Russian stemmer, Latin with the
 * English one (after folding diacritics, so `café` and `cafe` agree), anything
 * else (digits, CJK, Greek…) unchanged.
 */
export function stemWord(word: string): string {
  // One- and two-letter words are kept as they are: no stemmer changes them, and
  // skipping the cache lookup for them saves ~15% of the pipeline's time. (Not 3:
  // Porter maps "use"/"used" and "fly"/"flies" to one stem each.)
  if (word.length <= 2) return word;
  const cached = stemCache.get(word);
  if (cached !== undefined) return cached;
  let out = word;
  if (CYRILLIC.test(word)) out = stemRussian(word);
  else if (LATIN.test(word)) {
    const folded = LATIN_DIACRITIC.test(word) ? word.normalize('NFD').replace(/[\u0300-\u036f]/g, '').normalize('NFC') : word;
    out = /^[a-z]+$/.test(folded) ? stemEnglish(folded) : folded;
  }
  if (out.length === 0) out = word;
  if (stemCache.size >= STEM_CACHE_LIMIT) stemCache.clear();
  stemCache.set(word, out);
  return out;
}

/** Normalized words of a text (no stemming). */
export function textWords(text: string): string[] {
  return lineWords(normalizeText(text));
}

/** Stemmed tokens of a text, in order. */
export function textTokens(text: string): string[] {
  return textWords(text).map(stemWord);
}

/** What goes into an FTS5 column: stemmed tokens separated by spaces. */
export function indexText(text: string): string {
  return textTokens(text).join(' ');
}
