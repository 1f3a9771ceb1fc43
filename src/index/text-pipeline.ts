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

const CJK = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Hangul}]/u;
const WORD = /[\p{L}\p{N}\p{M}]+/gu;
const CYRILLIC = /^[\u0400-\u04FF]+$/;
const LATIN = /^[a-z\u00C0-\u024F]+$/;
const LATIN_DIACRITIC = /[\u00C0-\u024F]/;
/** `data:` URIs (inline base64 images) carry no words, only megabytes of noise. */
const DATA_URI = /data:[a-z0-9.+-]+\/[a-z0-9.+-]+[;,][^\s)"'\]]*/g;

let segmenter: Intl.Segmenter | undefined;

/** NFKC, lower case, ё→е (FTS5's unicode61 does not fold ё; Russian writers mostly omit it). */
export function normalizeText(text: string): string {
  return text.normalize('NFKC').toLowerCase().replace(/ё/g, 'е');
}

/** Words of one already-normalized line, in order; CJK runs are split into dictionary words. */
export function lineWords(line: string, out: string[] = []): string[] {
  const clean = line.includes('data:') ? line.replace(DATA_URI, ' ') : line;
  if (!CJK.test(clean)) {
    for (const m of clean.matchAll(WORD)) if (m[0].length <= MAX_TOKEN_CHARS) out.push(m[0]);
    return out;
  }
  segmenter ??= new Intl.Segmenter('zh', { granularity: 'word' });
  for (let i = 0; i < clean.length; i += MAX_SEGMENT_CHARS) {
    const piece = clean.slice(i, i + MAX_SEGMENT_CHARS);
    for (const s of segmenter.segment(piece)) {
      if (!s.isWordLike) continue;
      // The segmenter keeps e.g. "c++"-like punctuation out but may return mixed runs; split them like unicode61 would.
      for (const m of s.segment.matchAll(WORD)) if (m[0].length <= MAX_TOKEN_CHARS) out.push(m[0]);
    }
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

/** Normalized words of a text, line by line (no stemming). */
export function textWords(text: string): string[] {
  const out: string[] = [];
  for (const line of normalizeText(text).split('\n')) lineWords(line, out);
  return out;
}

/** Stemmed tokens of a text, in order. */
export function textTokens(text: string): string[] {
  return textWords(text).map(stemWord);
}

/** What goes into an FTS5 column: stemmed tokens separated by spaces. */
export function indexText(text: string): string {
  return textTokens(text).join(' ');
}
