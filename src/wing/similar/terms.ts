import { isStopWord, normalizeText, lineWords, stemWord } from '../../index/index.js';

/**
 * The terms of a text as LSA counts them: the index's own text pipeline
 * (NFKC, lower case, ё→е, CJK segmentation, Russian/English stems), minus stop
 * words, one-character words, bare numbers and the pieces of URLs — words
 * that say nothing about what a section is about.
 */
const URL = /\b[a-z][a-z0-9+.-]*:\/\/[^\s)\]>]+/gi;
const NUMBER = /^\d+$/;

export function textTermCounts(text: string, into: Map<string, number> = new Map()): Map<string, number> {
  const words = lineWords(normalizeText(text.includes('://') ? text.replace(URL, ' ') : text));
  for (const w of words) {
    if (w.length < 2 || NUMBER.test(w) || isStopWord(w)) continue;
    const t = stemWord(w);
    into.set(t, (into.get(t) ?? 0) + 1);
  }
  return into;
}
